"""A database's rows, as the lookups and the audit read them.

:class:`DatabaseRows` answers ``fetch(codes)`` with the rows of those canonical codes (as
:class:`Row`, one indexed query) and ``arrays()`` with every row as compact numpy arrays
(:class:`~ttt_solver.store.arrays.Arrays`, read once, the digest checked). The oracle's sources
(:mod:`.source`) and ``verify`` read a database through it. This module stays free of numpy:
the command line's lookups import it.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from ..errors import DatabaseError, shown
from ..game.variant import Variant
from ..store import number_in
from ..store.hints import rebuild_hint
from ..store.row_data import Row, unpack_data

if TYPE_CHECKING:
    from ..store.arrays import Arrays
    from ..store.reader import Reader


EAGER_ROWS = 1 << 24
"""Most canonical rows an eager load reads into memory (4x4: 1.2 million; 4x5: 170 million):
above it a database is *big*, and its whole-table work reads memory-mapped arrays
(:mod:`.whole_table`)."""

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

    @property
    def big(self) -> bool:
        """Whether the database has more canonical rows than an eager load reads into memory."""
        return (number_in(self.meta.get("positions")) or 0) > EAGER_ROWS

    def fetch(self, codes: Collection[int]) -> dict[int, Row]:
        read = self._read
        found = {code: read[code] for code in codes if code in read}
        if len(found) == len(codes):
            return found
        if len(read) >= _READ_LIMIT:
            read.clear()

        for code, data in self.reader.rows([code for code in codes if code not in found]).items():
            row = unpack_data(data)
            if row is None:
                raise DatabaseError(
                    f"database {self.location!r} is damaged (the data of code {code} is {shown(data)});"
                    f" {self.rebuild_hint()}"
                )
            found[code] = read[code] = row
        return found

    def arrays(self) -> Arrays:
        """The packed arrays, read once, their digest checked against the meta table."""
        if self._arrays is None:
            self._arrays = self._load_arrays()
        return self._arrays

    def _load_arrays(self) -> Arrays:
        # Imported here, not at the top: numpy stays off the command-line lookup path.
        from ..store.arrays import unpack

        try:
            return unpack(self.reader.packed(), self.variant, self.meta)
        except ValueError as why:
            raise self.damaged(str(why)) from None

    def damaged(self, why: str) -> DatabaseError:
        return DatabaseError(f"database {self.location!r} is damaged ({why}); {self.rebuild_hint()}")

    def rebuild_hint(self) -> str:
        return rebuild_hint(self.location, self.variant.name)

    def close(self) -> None:
        self.reader.close()
