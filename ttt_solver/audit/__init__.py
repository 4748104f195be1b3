"""Auditing a whole solved table: ``ttt-lookup verify``, the proof of every row against the
rules and the rows below it (:mod:`.retrograde`), and its report (:mod:`.report`).

The audit reads rows only through the store (:mod:`ttt_solver.store`), which alone knows the
row format; the query layer (:mod:`ttt_solver.lookup`) uses it to prove small tables whole.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..game.variant import Variant
    from ..store.reader import Reader

SMALL_ROWS = 100_000
"""Most canonical rows whose table an in-memory oracle (:mod:`ttt_solver.lookup.in_memory`)
proves whole at load (3x3: 765 rows in a few milliseconds; 3x4k3: 28,275 in some 30 ms) and
``all_positions()`` resolves board by board; a named query's check (:mod:`.verify`) proves as
many. Bigger variants (4x4: 1.2 million) rely on the digest of their arrays until a batch
lookup proves them."""


class Audited(Protocol):
    """What an audit reads: a database's reader, the variant it holds, and how to rebuild it
    (a lookup's row source, :class:`ttt_solver.lookup.rows.DatabaseRows`, is one)."""

    variant: Variant
    location: str
    reader: Reader

    @property
    def meta(self) -> dict[str, str]: ...

    def rebuild_hint(self) -> str: ...
