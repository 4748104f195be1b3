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
from typing import TYPE_CHECKING

from ..errors import DatabaseError
from ..game.variant import Variant
from ..store.content import Row, cells_of

if TYPE_CHECKING:
    from typing import Protocol

    from ..store.arrays import Arrays
    from ..store.reader import Reader

    class RowSource(Protocol):
        variant: Variant
        location: str  # for messages: the database as the user named it, or "<memory>"

        def fetch(self, codes: Collection[int]) -> dict[int, Row]: ...

        def arrays(self) -> Arrays: ...

        def rebuild_hint(self) -> str: ...

        def close(self) -> None: ...


_READ_LIMIT = 1 << 16  # rows kept by a DatabaseRows before it starts again


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
        from ..store.content import unpack_data

        for code, data in self.reader.rows([code for code in codes if code not in found]).items():
            numbers = unpack_data(data)
            if numbers is None:
                raise DatabaseError(
                    f"database {self.location!r} is damaged (the data of code {code} is {str(data)[:24]!r});"
                    f" {self.rebuild_hint()}"
                )
            value, remoteness, best, wins, draws, losses, _orbit = numbers
            found[code] = read[code] = Row(value, remoteness, cells_of(best), wins, draws, losses)
        return found

    def arrays(self) -> Arrays:
        """The packed arrays, read once, their digest checked against the meta table."""
        if self._arrays is None:
            self._arrays = self._load_arrays()
        return self._arrays

    def _load_arrays(self) -> Arrays:
        from ..store.arrays import unpack

        try:
            return unpack(self.reader.packed(), self.variant, self.meta)
        except ValueError as why:
            raise self.damaged(str(why)) from None

    def damaged(self, why: str) -> DatabaseError:
        return DatabaseError(f"database {self.location!r} is damaged ({why}); {self.rebuild_hint()}")

    def rebuild_hint(self) -> str:
        from ..store.hints import rebuild_hint

        return rebuild_hint(self.location, self.variant.name)

    def close(self) -> None:
        self.reader.close()
