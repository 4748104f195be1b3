"""The one rule that turns a position's children into its value (its array form, for whole
tiers and tables, is :mod:`.value_bytes`).

Values are +1 win, 0 draw, -1 loss, always for the side to move; remoteness counts plies to
the end under perfect play (the winner wins as fast as possible, the loser loses as slowly
as possible, a draw runs until the board is full). A move is worth minus its child's value
to the player making it, one ply further from the end than the child: :func:`move_result`.
A position takes its best move's result (:func:`rank`); its best moves keep its value, and
its preferred moves keep its remoteness as well.

The solver backs values up with :func:`~.value_bytes.back_up`, and the lookups and ``verify`` check
rows with the same functions, so the rule is written once. (The recursive solver in
:mod:`ttt_solver.solver.reference` keeps its own copy on purpose: it is the independent reference the
tests compare against.)
"""

from __future__ import annotations

from collections.abc import Sequence

SPAN = 64  # score = (1 - value) * SPAN + remoteness key; remoteness <= 25 < SPAN // 2


def rank(value: int, remoteness: int) -> tuple[int, int]:
    """Sort key, best first: win before draw before loss, fast wins, slow losses."""
    return (-value, remoteness if value > 0 else -remoteness)


def move_result(child_value: int, child_remoteness: int) -> tuple[int, int]:
    """A move's (value, remoteness) for the player making it, from its child's row."""
    return -child_value, child_remoteness + 1


class Outcome:
    """What a position's moves imply about it (a plain class with slots: a NamedTuple's class
    costs a lookup's import some 0.4% of importing click)."""

    __slots__ = ("best", "draws", "losses", "preferred", "remoteness", "value", "wins")

    def __init__(
        self,
        value: int,
        remoteness: int,
        best: tuple[int, ...],
        preferred: tuple[int, ...],
        wins: int,
        draws: int,
        losses: int,
    ) -> None:
        self.value = value
        self.remoteness = remoteness
        self.best = best  # ascending cells that keep the value
        self.preferred = preferred  # ascending cells that keep the value and the remoteness
        self.wins = wins  # moves that win for the mover
        self.draws = draws
        self.losses = losses


def outcome(moves: Sequence[tuple[int, int, int]]) -> Outcome:
    """A position's outcome from its moves' ``(cell, value, remoteness)``, ascending by cell
    (at least one move: a finished position's outcome comes from the rules)."""
    values = [v for _cell, v, _r in moves]
    value = max(values)
    kept = [(cell, r) for cell, v, r in moves if v == value]  # the best moves
    remoteness = (min if value > 0 else max)(r for _cell, r in kept)  # see rank()
    preferred = tuple(cell for cell, r in kept if r == remoteness)
    wins, losses = values.count(1), values.count(-1)
    return Outcome(
        value, remoteness, tuple(cell for cell, _r in kept), preferred, wins, len(moves) - wins - losses, losses
    )
