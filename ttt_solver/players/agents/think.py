"""``think1``, ``think2``, ``think3``: the rule players ``AI_think1/2/3`` of seed 001.

Each level adds one rule in front of a uniformly random move (the seed's ``None`` ->
``random.choice(env.validinputs)``):

1. take a win: the first winning cell in the seed's scan order (ascending cells);
2. block: the seed tries every (own move m1, opponent reply m2) in scan order and returns the
   first m2 that wins for the opponent. Our m1 can only occupy a threat, so the answer is
   the lowest threat other than the lowest empty cell, or that cell if it is the only threat;
3. look three plies ahead: count, for each own move m1, the (m2, m3) sequences after which
   our m3 completes a line, and play the move counted most. A reply m2 can never spoil such
   an m3 (the line is all ours), so the count is ``|wins after m1| * (empty cells - 2)``.
   Ties go to the first of ``set(w3)`` in CPython's iteration order, exactly as the seed's
   ``max(set(w3), key=w3.count)`` breaks them (not always the lowest cell).

The seed's code does what its text says; these closed forms are checked against a literal
port of it in ``tests/players/test_agents.py``.
"""

from __future__ import annotations

from ...game import rules
from ...game.variant import STANDARD, Variant
from .base import Cell, Policy, PolicyAgent, empty_cells, opponent, place, uniform, winning_cells


class ThinkAgent(PolicyAgent):
    def __init__(self, level: int, variant: Variant = STANDARD) -> None:
        if level not in (1, 2, 3):
            raise ValueError(f"think level must be 1, 2 or 3, got {level!r}")
        super().__init__(f"think{level}", variant)
        self.level = level

    def _policy(self, board: str) -> Policy:
        cell = self.rule_move(board)
        return {cell: 1.0} if cell is not None else uniform(empty_cells(board))

    def rule_move(self, board: str) -> Cell | None:
        """The move the seed's ``AI_think<level>()`` returns, or None (then it plays at random)."""
        me = rules.to_move(board)
        wins = winning_cells(board, me, self.variant)
        if wins:
            return wins[0]
        if self.level == 1:
            return None
        block = _seed_block(board, winning_cells(board, opponent(me), self.variant))
        if block is not None or self.level == 2:
            return block
        return _three_ply(board, me, self.variant)


def _seed_block(board: str, threats: list[Cell]) -> Cell | None:
    if not threats:
        return None
    first_empty = board.index(rules.EMPTY)
    others = [cell for cell in threats if cell != first_empty]
    return others[0] if others else first_empty


def _three_ply(board: str, me: str, variant: Variant) -> Cell | None:
    empties = empty_cells(board)
    if len(empties) < 3:
        return None
    counts: dict[int, int] = {}
    for m1 in empties:
        wins = len(winning_cells(place(board, m1, me), me, variant))
        if wins:
            counts[m1 + 1] = wins * (len(empties) - 2)  # the seed's book numbering, cells 1..n
    if not counts:
        return None
    w3 = list(counts)  # a set built from a list, as in the seed (from a dict it would be presized)
    return max(set(w3), key=counts.__getitem__) - 1
