"""Counts over a solved database: by value, by remoteness, and the longest forced win.

Each canonical row stands for ``orbit`` real boards, so there are two sets of counts: over
every legal board (rows weighted by their orbit) and over the canonical rows themselves.
Values are +1 win, 0 draw, -1 loss for the side to move.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..game.variant import STANDARD, Variant
from ..store import Target

if TYPE_CHECKING:
    from ..store.arrays import Arrays
    from .rows import DatabaseRows

OUTCOMES = {1: "win", 0: "draw", -1: "loss"}


@dataclass
class Counts:
    """How many positions there are, by value and by remoteness."""

    total: int = 0
    by_value: dict[str, int] = field(default_factory=lambda: {name: 0 for name in OUTCOMES.values()})
    by_remoteness: dict[int, int] = field(default_factory=dict)

    def add(self, value: int, remoteness: int, weight: int) -> None:
        self.total += weight
        self.by_value[OUTCOMES[value]] += weight
        self.by_remoteness[remoteness] = self.by_remoteness.get(remoteness, 0) + weight

    def to_dict(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "by_value": dict(self.by_value),
            "by_remoteness": {str(r): n for r, n in sorted(self.by_remoteness.items())},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Counts:
        return cls(data["total"], dict(data["by_value"]), {int(r): n for r, n in data["by_remoteness"].items()})


@dataclass(frozen=True)
class LongestWin:
    """The largest remoteness of a won position, how many boards reach it, and one of them."""

    remoteness: int
    boards: int  # real boards (orbit-weighted)
    canonical: int  # canonical rows
    example: str  # the canonical board of lowest ply, then lowest text


@dataclass(frozen=True)
class Stats:
    variant: str
    boards: Counts  # every legal board
    canonical: Counts  # one per canonical row
    longest_win: LongestWin | None  # None when no position is won

    def to_dict(self) -> dict[str, Any]:
        win = self.longest_win
        return {
            "variant": self.variant,
            "boards": self.boards.to_dict(),
            "canonical": self.canonical.to_dict(),
            "longest_win": None
            if win is None
            else {
                "remoteness": win.remoteness,
                "boards": win.boards,
                "canonical": win.canonical,
                "example": win.example,
            },
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Stats:
        win = data["longest_win"]
        longest = (
            None if win is None else LongestWin(win["remoteness"], win["boards"], win["canonical"], win["example"])
        )
        return cls(data["variant"], Counts.from_dict(data["boards"]), Counts.from_dict(data["canonical"]), longest)

    def report(self) -> str:
        """A plain-text table of the counts."""
        rows = [("positions", self.boards.total, self.canonical.total)]
        rows += [(name, self.boards.by_value[name], self.canonical.by_value[name]) for name in OUTCOMES.values()]
        rows += [
            (f"remoteness {r}", n, self.canonical.by_remoteness[r])
            for r, n in sorted(self.boards.by_remoteness.items())
        ]
        cells = [("", "boards", "canonical")] + [(label, f"{b:,}", f"{c:,}") for label, b, c in rows]
        # Each column as wide as its widest cell (4x5's 9,722,011 is wider than "boards"); the
        # counts at least 8 wide, the table's width on small variants.
        width, *counts = (max(len(row[i]) for row in cells) for i in range(3))
        counts = [max(8, count) for count in counts]
        lines = [f"{self.variant}: values are for the side to move", ""]
        lines += [f"{label:<{width}}  {b:>{counts[0]}}  {c:>{counts[1]}}".rstrip() for label, b, c in cells]
        win = self.longest_win
        lines.append("")
        if win is None:
            lines.append("longest forced win: none (no position is won)")
        else:
            lines.append(
                f"longest forced win: {win.remoteness} plies ({win.boards:,} boards, {win.canonical:,} canonical),"
                f" e.g. {win.example}"
            )
        return "\n".join(lines)


STEP = 1 << 22  # rows counted at a time: memory-mapped arrays of 20 cells are read a part at a time


def compute(arrays: Arrays) -> Stats:
    """Stats of every canonical row (numpy, a part at a time: a second for the 1.2 million
    rows of 4x4, a minute for the 170 million of 4x5)."""
    import numpy as np

    from ..game import array_rules, codec

    boards, canonical = Counts(), Counts()
    by_remoteness = [np.zeros(64, dtype=np.int64), np.zeros(64, dtype=np.int64)]
    top, example_rows = -1, []
    for start in range(0, len(arrays.code), STEP):
        part = slice(start, start + STEP)
        value, remoteness = np.asarray(arrays.value[part]), np.asarray(arrays.remoteness[part]).astype(np.int64)
        weight = np.asarray(arrays.orbit[part]).astype(np.int64)
        for counts, weights, found in (
            (boards, weight, by_remoteness[0]),
            (canonical, np.ones_like(weight), by_remoteness[1]),
        ):
            counts.total += int(weights.sum())
            for key, name in OUTCOMES.items():
                counts.by_value[name] += int(weights[value == key].sum())
            found += np.bincount(remoteness, weights=weights, minlength=64).astype(np.int64)[:64]
        won = np.flatnonzero(value > 0)
        if won.size:
            here = int(remoteness[won].max())
            rows = start + won[remoteness[won] == here]
            if here > top:
                top, example_rows = here, [rows]
            elif here == top:
                example_rows.append(rows)
    for counts, found in zip((boards, canonical), by_remoteness):
        counts.by_remoteness = {r: int(n) for r, n in enumerate(found.tolist()) if n}
    longest = None
    if example_rows:
        rows = np.concatenate(example_rows)
        codes = np.asarray(arrays.code[rows])
        ply = (array_rules.digits(codes, arrays.variant) != codec.EMPTY_DIGIT).sum(axis=1)
        texts = array_rules.decode_texts(codes, arrays.variant)
        example = min(zip(ply.tolist(), texts))[1]
        longest = LongestWin(top, int(np.asarray(arrays.orbit[rows]).astype(np.int64).sum()), len(rows), example)
    return Stats(arrays.variant.name, boards, canonical, longest)


def load_stats(db: str | Path, variant: Variant = STANDARD) -> Stats:
    """Read a database's digest-checked arrays and count them (a big one's counts are kept
    in its cache folder, :mod:`ttt_solver.store.cache_folder`)."""
    from ..store.reader import Reader
    from .rows import DatabaseRows

    with Reader(Target.parse(db), variant.name) as reader:
        return stats_of(DatabaseRows(reader, variant))


def stats_of(source: DatabaseRows) -> Stats:
    """The counts of a database: from its arrays, or for a big one from its cache folder
    (counted there once, from the memory-mapped arrays: a minute for 4x5)."""
    from ..store.cache_folder import cached, content_folder
    from .mapped import mapped_arrays

    if not source.big:
        return compute(source.arrays())
    try:
        folder = content_folder(source.variant.name, source.meta.get("digest", ""))
        return Stats.from_dict(cached(folder, "stats.json", lambda: compute(mapped_arrays(source)).to_dict()))
    except ValueError as why:
        raise source.damaged(str(why)) from None
