"""Every legal board of a variant, walked once per test process (``rules.all_boards`` walks the
game each call: several test modules list them when they are imported)."""

from __future__ import annotations

from functools import cache

from ttt_solver.game import rules


@cache
def legal_boards(variant: str = "3x3") -> tuple[str, ...]:
    """Every legal board of ``variant``, in order of ply."""
    return tuple(rules.all_boards(variant))
