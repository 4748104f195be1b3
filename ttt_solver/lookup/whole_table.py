"""A database's whole table: every row as arrays, and the batch tables over them, made once.

What needs every row (the batch lookups, ``arrays()``, ``stats``) reads it here; a single
answer never does (:mod:`.proved` reads a few rows from the file). A database of up to
:data:`~.rows.EAGER_ROWS` canonical rows is read into memory, its digest checked, and its
batch tables are proved whole as they are built (:meth:`.tables.BatchTables.build`); a *big*
one's arrays and tables are memory-mapped from its cache folder (:mod:`.mapped`), never read
into memory. This is where the file's source meets numpy: the command line's lookups, which
ask for no whole table, never import this module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from ..store.arrays import Arrays
from .mapped import mapped_arrays, mapped_tables
from .rows import DatabaseRows
from .tables import BatchTables

R = TypeVar("R")


class WholeTable:
    """Every row of one database, in memory or memory-mapped by its size (see the module docstring)."""

    def __init__(self, database: DatabaseRows) -> None:
        self.database = database
        self._arrays: Arrays | None = None
        self._tables: BatchTables | None = None

    def arrays(self) -> Arrays:
        """Every canonical row, digest checked (read or mapped once)."""
        if self._arrays is None:
            self._arrays = self._mapped(mapped_arrays) if self.database.big else self.database.arrays()
        return self._arrays

    def batch_tables(self) -> BatchTables:
        """The batch tables: proved whole from the rows in memory, or a big database's mapped ones."""
        if self._tables is None:
            database = self.database
            if database.big:
                self._tables = self._mapped(mapped_tables)
            else:
                self._tables = BatchTables.build(self.arrays(), database.location, database.rebuild_hint())
        return self._tables

    def _mapped(self, make: Callable[[DatabaseRows], R]) -> R:
        """``make(database)``; damaged arrays are a DatabaseError naming the rebuild command."""
        try:
            return make(self.database)
        except ValueError as why:
            raise self.database.damaged(str(why)) from None
