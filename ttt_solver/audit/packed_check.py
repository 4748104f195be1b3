"""The packed arrays of a database against its ``positions`` table, in one pass: every
column's rows equal to each tier's stored rows, and the content digest of their bytes equal
to the one ``meta`` states (the digest ``Oracle.load()`` checks)."""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import shown
from ..store.content import PACKED, Hashes, unpack_pieces
from . import Audited
from .held_tiers import HeldTiers
from .report import Report
from .retrograde import plies

if TYPE_CHECKING:
    from ..game.variant import Variant
    from ..solver import Steps


def check_packed(source: Audited, tiers: HeldTiers, report: Report, rows: int, steps: Steps | None) -> None:
    """The packed arrays in one pass, ``rows`` rows of every column at a time: their rows
    against each tier's stored rows, and their digest."""
    reader, variant = source.reader, source.variant
    try:
        index = reader.packed_index()
        if sorted(index) != sorted(name for name, _ in PACKED) or any(index[n][0] != d for n, d in PACKED):
            raise ValueError(f"{sorted(index)!r}, not the {len(PACKED)} columns this version writes")
        parts = {index[name][1] for name, _dtype in PACKED}
        if len(parts) != 1:
            raise ValueError("the arrays have different numbers of parts")
        hashes = Hashes(variant.name)
        same = _packed_equal_table(_packed_pieces(reader, parts.pop(), rows, hashes), variant, tiers, steps)
        report.check(same, "the packed arrays equal the positions table")
        found = hashes.hexdigest()
    except (zlib.error, ValueError) as why:
        report.failed(f"packed arrays: {why}")
        return
    said = source.meta.get("digest", "")
    if found == said:
        report.passed(f"the content digest {found[:12]}... matches the packed arrays")
    else:
        report.failed(f"packed arrays: the content digest is {found[:12]}..., meta says {shown(said[:12])}")


def _packed_equal_table(
    pieces: Iterator[dict[str, np.ndarray]], variant: Variant, tiers: HeldTiers, steps: Steps | None
) -> bool:
    """Whether the packed arrays (``pieces``, in code order) hold exactly the rows of every
    tier: each piece's rows are matched with the next rows of their tiers. Every piece is
    read, so that all of it is hashed."""
    taken = [0] * (variant.cells + 1)
    same = True
    total = sum(tiers.counts)
    for piece in pieces:
        same = same and _piece_equal(piece, variant, tiers, taken)
        if steps:
            steps("checking the packed arrays", len(piece["code"]), total)
    return same and taken == tiers.counts


def _piece_equal(piece: dict[str, np.ndarray], variant: Variant, tiers: HeldTiers, taken: list[int]) -> bool:
    """Whether a piece of the packed arrays holds the next rows of their tiers (``taken``: the
    rows of each tier matched so far, moved on)."""
    ply = plies(piece["code"], variant)
    if (ply < 0).any():
        return False
    for p in np.unique(ply).tolist():
        here = np.flatnonzero(ply == p)
        first = taken[p]
        if first + len(here) > tiers.counts[p]:
            return False
        stored = tiers.read(p, first, first + len(here))
        taken[p] += len(here)
        for name, dtype in PACKED:
            if not np.array_equal(getattr(stored, name).astype(dtype), piece[name][here]):
                return False
    return True


def _packed_pieces(reader: Any, parts: int, rows: int, hashes: Hashes) -> Iterator[dict[str, np.ndarray]]:
    """The packed arrays' rows in code order, ``rows`` rows of every column at a time,
    each column's bytes hashed into ``hashes`` as they are read (ValueError or zlib.error if a
    part is damaged or the columns' lengths differ)."""
    columns = {name: _ColumnRows(_column_bytes(reader, name, (parts, rows), hashes), dtype) for name, dtype in PACKED}
    while True:
        piece = {name: column.take(rows) for name, column in columns.items()}
        sizes = {len(taken) for taken in piece.values()}
        if len(sizes) != 1:
            raise ValueError("the arrays have different numbers of rows")
        if sizes == {0}:
            return
        yield piece


def _column_bytes(reader: Any, name: str, sizes: tuple[int, int], hashes: Hashes) -> Iterator[bytes]:
    """One packed column's bytes (``sizes``: its parts, and the most rows a piece)."""
    parts, rows = sizes
    for part in range(parts):
        for raw in unpack_pieces(name, reader.packed_part(name, part), rows):
            hashes.update(name, raw)
            yield raw


class _ColumnRows:
    """One packed column's rows, from its unpacked pieces of bytes, taken a number at a time."""

    def __init__(self, pieces: Iterator[bytes], dtype: str) -> None:
        self.pieces = pieces
        self.dtype = dtype
        self.held = np.zeros(0, dtype=dtype)

    def take(self, count: int) -> np.ndarray:
        found = [self.held]
        have = len(self.held)
        while have < count:
            raw = next(self.pieces, None)
            if raw is None:
                break
            found.append(np.frombuffer(raw, dtype=self.dtype))
            have += len(found[-1])
        rows = np.concatenate(found)
        self.held = rows[count:]
        return rows[:count]
