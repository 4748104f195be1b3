"""``heuristic`` and ``onestep``: ``heuristic_ai`` and ``one_step_ai`` of seed 003.

``heuristic_ai`` scans the cells in order (the seed's ``board`` dict, 1..9): the first cell
that wins, else the first cell where the opponent would win, else the middle, else a random
corner, else a random side. ``one_step_ai`` scores every empty cell 1, an opponent's winning
cell 10 and an own winning cell 100, and plays uniformly among the best: a win if there is
one, else a block, else anything. Both do what their text says.

On boards other than 3x3 the middle is the centre cell when there is one, the corners are
the four corner cells and the sides are all the other cells.
"""

from __future__ import annotations

from ...game import rules
from ...game.variant import STANDARD, Variant
from .base import Policy, PolicyAgent, empty_cells, opponent, uniform, winning_cells


class HeuristicAgent(PolicyAgent):
    def __init__(self, variant: Variant = STANDARD) -> None:
        super().__init__("heuristic", variant)
        rows, cols = variant.rows, variant.cols
        self.middle = (rows // 2) * cols + cols // 2 if rows % 2 and cols % 2 else None
        self.corners = frozenset((0, cols - 1, (rows - 1) * cols, rows * cols - 1))

    def _policy(self, board: str) -> Policy:
        me = rules.to_move(board)
        for mark in (me, opponent(me)):
            wins = winning_cells(board, mark, self.variant)
            if wins:
                return {wins[0]: 1.0}
        empties = empty_cells(board)
        if self.middle in empties:
            return {self.middle: 1.0}
        corners = [cell for cell in empties if cell in self.corners]
        return uniform(corners or empties)


class OneStepAgent(PolicyAgent):
    def __init__(self, variant: Variant = STANDARD) -> None:
        super().__init__("onestep", variant)

    def _policy(self, board: str) -> Policy:
        me = rules.to_move(board)
        for mark in (me, opponent(me)):
            wins = winning_cells(board, mark, self.variant)
            if wins:
                return uniform(wins)
        return uniform(empty_cells(board))
