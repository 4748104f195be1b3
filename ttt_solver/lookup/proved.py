"""An oracle's rows read from the file as asked, each answer proved one ply down.

A lookup fetches the position, its children and its grandchildren in one indexed query and
checks what it shows against them (:mod:`.proof`): the command line's path, instant, with no
load, and never showing a number the table contradicts. The whole-table work (batch lookups,
``arrays()``) reads the digest-checked packed arrays once, and the batch tables prove the
table whole. This module stays free of numpy until that work is asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .proof import preferred, resolve
from .rows import DatabaseRows

if TYPE_CHECKING:
    from ..store.arrays import Arrays
    from .position import Position
    from .tables import BatchTables
    from .whole_table import WholeTable


class ProvedFromFile:
    """Answers read from a database and proved (see the module docstring)."""

    def __init__(self, database: DatabaseRows) -> None:
        self.variant = database.variant
        self.database: DatabaseRows | None = database
        self.rows = database
        self.location = database.location
        self._whole: WholeTable | None = None

    def position(self, text: str) -> Position:
        return resolve(text, self.variant, self.rows.fetch, self.location, self.rows.rebuild_hint, True)

    def preferred(self, text: str) -> tuple[int, ...]:
        return preferred(text, self.variant, self.rows.fetch, self.location, self.rows.rebuild_hint, True)

    def arrays(self) -> Arrays:
        return self._whole_table().arrays()

    def batch_tables(self) -> BatchTables:
        return self._whole_table().batch_tables()

    def _whole_table(self) -> WholeTable:
        if self._whole is None:
            # The one way from a file's single answers to numpy, taken on the first whole-table request.
            from .whole_table import WholeTable

            self._whole = WholeTable(self.rows)
        return self._whole

    def rebuild_hint(self) -> str:
        return self.rows.rebuild_hint()

    def close(self) -> None:
        self.rows.close()
