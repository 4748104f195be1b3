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


class Audited(Protocol):
    """What an audit reads: a database's reader, the variant it holds, and how to rebuild it
    (a lookup's row source, :class:`ttt_solver.lookup.rows.DatabaseRows`, is one)."""

    variant: Variant
    location: str
    reader: Reader

    @property
    def meta(self) -> dict[str, str]: ...

    def rebuild_hint(self) -> str: ...
