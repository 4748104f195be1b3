"""Where an oracle's answers come from: one small interface, two sources, chosen once at load.

- :class:`~.in_memory.InMemory`: every row in digest-checked arrays (a small variant's table
  also proved whole at load); each board resolved from them when first asked.
- :class:`~.proved.ProvedFromFile`: each answer read from the file and proved one ply down
  (:mod:`.proof`): the command line's path, instant and checked, and a big variant's either
  way; its whole-table work (:mod:`.whole_table`) memory-maps a big variant's arrays.

:class:`~.oracle.Oracle` holds one of them and does not know which. This module stays free of
numpy: the command line's lookups import it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..game.variant import Variant
    from ..store.arrays import Arrays
    from .position import Position
    from .rows import DatabaseRows
    from .tables import BatchTables


class RowSource(Protocol):
    """The answers of one variant's table."""

    variant: Variant
    location: str  # for messages: the database as the user named it, or "<memory>"
    database: DatabaseRows | None  # the database read, or None for rows solved in memory

    def position(self, text: str) -> Position:
        """The answer for a normalised legal board (a DatabaseError if the table contradicts it)."""
        ...

    def preferred(self, text: str) -> tuple[int, ...]:
        """A normalised legal board's preferred moves, as :meth:`position` lists them, its row
        proved but not its moves' rows (a perfect line proves each of them when it gets there)."""
        ...

    def arrays(self) -> Arrays:
        """Every canonical row, digest checked (loaded or mapped once)."""
        ...

    def batch_tables(self) -> BatchTables:
        """The dense tables behind the batch lookups (made once)."""
        ...

    def rebuild_hint(self) -> str:
        """How to rebuild the table, for an error message."""
        ...

    def close(self) -> None:
        """Close the database (a source in memory keeps answering)."""
        ...
