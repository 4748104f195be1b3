"""What a built database holds, read through the package's reader (so a database of shards
reads as one): its rows and its content digest, to compare two builds."""

from __future__ import annotations

from pathlib import Path

from ttt_solver.store import Target
from ttt_solver.store.reader import Reader


def rows(path: Path) -> list[tuple[int, int]]:
    """Every ``positions`` row, (code, data), in code order."""
    with Reader(Target.parse(str(path)), None) as reader:
        return [(int(c), int(d)) for c, d in reader._query("SELECT code, data FROM positions ORDER BY code")]


def digest(path: Path) -> str:
    with Reader(Target.parse(str(path)), None) as reader:
        return reader.meta["digest"]
