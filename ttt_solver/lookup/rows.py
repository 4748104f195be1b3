"""Where an oracle's rows come from: one small interface, three sources.

A source answers ``fetch(codes)`` with the rows of those canonical codes (as :class:`Row`)
and ``arrays()`` with every row as compact numpy arrays (:class:`~.arrays.Arrays`). A
database is one source (:class:`DatabaseRows`: indexed queries per lookup, the packed arrays
for an in-memory load, the digest checked on that load); solved tables or the recursive
solver's solutions are another (:class:`~.arrays.ArrayRows`). The oracle does not know which
it has. This module stays free of numpy: the command line's lookups import it.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, NamedTuple

from ..errors import DatabaseError
from ..variant import Variant

if TYPE_CHECKING:
    from typing import Protocol

    from ..store.reader import Reader
    from .arrays import Arrays

    class RowSource(Protocol):
        variant: Variant
        location: str  # for messages: the database as the user named it, or "<memory>"

        def fetch(self, codes: Collection[int]) -> dict[int, Row]: ...

        def arrays(self) -> Arrays: ...

        def rebuild_hint(self) -> str: ...

        def close(self) -> None: ...


_READ_LIMIT = 1 << 16  # rows kept by a DatabaseRows before it starts again


class Row(NamedTuple):
    """What a lookup needs of one canonical position (canonical cell numbering)."""

    value: int
    remoteness: int
    best: tuple[int, ...]  # ascending cells that keep the value
    wins: int
    draws: int
    losses: int


def cells_of(mask: int) -> tuple[int, ...]:
    """The cells of a bit mask, ascending."""
    return tuple(cell for cell in range(mask.bit_length()) if mask >> cell & 1)


class DatabaseRows:
    """Rows read from a database through :class:`ttt_solver.store.reader.Reader`."""

    def __init__(self, reader: Reader, variant: Variant) -> None:
        self.variant = variant
        self.reader = reader
        self.location = reader.target.spec
        self._arrays: Arrays | None = None
        # Rows already read: a lookup's children are the next lookup's position and children
        # when play goes on (``analyze`` reads the whole perfect line). A database is not
        # changed in place (a rebuild replaces it), so a row read once stays what it was.
        self._read: dict[int, Row] = {}

    @property
    def meta(self) -> dict[str, str]:
        return self.reader.meta

    def fetch(self, codes: Collection[int]) -> dict[int, Row]:
        read = self._read
        found = {code: read[code] for code in codes if code in read}
        if len(found) == len(codes):
            return found
        if len(read) >= _READ_LIMIT:
            read.clear()
        for code, (value, remoteness, best, wins, draws, losses) in self.reader.rows(
            [code for code in codes if code not in found]
        ).items():
            try:
                cells = tuple(int(cell) for cell in best.split(",")) if best else ()
            except (AttributeError, ValueError):
                raise DatabaseError(
                    f"database {self.location!r} is damaged (best_moves of code {code} is {str(best)[:20]!r});"
                    f" {self.rebuild_hint()}"
                ) from None
            found[code] = read[code] = Row(value, remoteness, cells, wins, draws, losses)
        return found

    def arrays(self) -> Arrays:
        """The packed arrays, read once, their digest checked against the meta table."""
        if self._arrays is None:
            self._arrays = self._load_arrays()
        return self._arrays

    def _load_arrays(self) -> Arrays:
        from .arrays import unpack

        try:
            return unpack(self.reader.packed(), self.variant, self.meta)
        except ValueError as why:
            raise self._damaged(str(why)) from None

    def _damaged(self, why: str) -> DatabaseError:
        return DatabaseError(f"database {self.location!r} is damaged ({why}); {self.rebuild_hint()}")

    def rebuild_hint(self) -> str:
        from ..store.hints import rebuild_hint

        return rebuild_hint(self.location, self.variant.name)

    def close(self) -> None:
        self.reader.close()
