"""An oracle's rows in memory: digest-checked arrays, each board resolved from them when asked.

The arrays come from a database (:meth:`InMemory.from_database`: the packed arrays, their
content digest checked) or from solved tables. A small variant's table (up to
:data:`~ttt_solver.store.SMALL_ROWS` rows) is also proved whole against the rules at load, which costs
milliseconds; resolving every real board up front would cost seconds (3x4k3: 2.6 s), so each
board is resolved from the arrays the first time it is asked for (the oracle keeps it). A
table of up to :data:`ROWS_BY_CODE` rows is also read into a dictionary by code at load (3x3:
2 ms), so that resolving a board is dictionary hits, not a numpy search for each board.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TYPE_CHECKING

from ..game.array_rules import decode_texts
from ..game.symmetry import images, inverse
from ..store import SMALL_ROWS
from ..store.arrays import Arrays
from .proof import answer, preferred, resolve
from .rows import DatabaseRows
from .tables import BatchTables

if TYPE_CHECKING:
    from ..store.row_data import Row
    from .position import Position


ROWS_BY_CODE = 1 << 15  # rows read into a dictionary at load (3x4k3's 28,275: 30 ms)


def by_code(arrays: Arrays) -> Callable[[Collection[int]], dict[int, Row]]:
    """``arrays.fetch`` from a dictionary of every row: one numpy search for all rows, then a
    dictionary hit for each code asked for."""
    every = arrays.fetch(arrays.code.tolist())

    def fetch(codes: Collection[int]) -> dict[int, Row]:
        return {code: every[code] for code in codes if code in every}

    return fetch


class InMemory:
    """Answers from arrays in memory (see the module docstring)."""

    def __init__(self, arrays: Arrays, database: DatabaseRows | None = None) -> None:
        self.variant = arrays.variant
        self.database = database
        self.location = "<memory>" if database is None else database.location
        self._arrays = arrays
        self._batch: BatchTables | None = None
        if len(arrays) <= SMALL_ROWS:
            self.batch_tables()  # proves the whole table against the rules
        self._fetch = by_code(arrays) if len(arrays) <= ROWS_BY_CODE else arrays.fetch

    @classmethod
    def from_database(cls, database: DatabaseRows) -> InMemory:
        """The database's packed arrays, read once, their digest checked."""
        return cls(database.arrays(), database)

    # The arrays were checked at load: nothing to prove again.
    def position(self, text: str) -> Position:
        return resolve(text, self.variant, self._fetch, self.location, self.rebuild_hint, False)

    def preferred(self, text: str) -> tuple[int, ...]:
        return preferred(text, self.variant, self._fetch, self.location, self.rebuild_hint, False)

    def arrays(self) -> Arrays:
        return self._arrays

    def batch_tables(self) -> BatchTables:
        if self._batch is None:
            self._batch = BatchTables.build(self._arrays, self.location, self.rebuild_hint())
        return self._batch

    def rebuild_hint(self) -> str:
        return "solve the variant again" if self.database is None else self.database.rebuild_hint()

    def close(self) -> None:
        if self.database is not None:
            self.database.close()


def every_position(arrays: Arrays, location: str, hint: str) -> dict[str, Position]:
    """Every real board of a table whose arrays are checked (and proved), and its answer."""
    fetch, variant = by_code(arrays), arrays.variant
    # The canonical answer once per row, seen from each of its images: image = apply(s, text)
    # holds the canonical cell c at inverse(s)[c].
    to_real = [inverse(perm) for perm in variant.symmetries]
    found: dict[str, Position] = {}
    for code, text in zip(arrays.code.tolist(), decode_texts(arrays.code, variant), strict=True):
        canonical = answer(code, variant, fetch, location, lambda: hint, prove=False)
        for image, perm in zip(images(text, variant), to_real, strict=True):
            if image not in found:
                found[image] = canonical.seen_as(image, perm)
    return found
