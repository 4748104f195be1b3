"""``minimax:D``: ``get_optimal_move`` of seed 000, a depth-D minimax over its window heuristic.

The heuristic scores a board for the agent from its lines ("windows"): +100,000 for each of its
own complete lines, +1 for each own open two (two of its marks and an empty cell), -100 for
each open two of the opponent and -1,000 for each complete line of the opponent. Each own move
is scored by a minimax over the next ``D - 1`` plies (the agent maximises, the opponent
minimises, a finished game or the depth limit is scored by the heuristic); the agent plays
uniformly among the best-scored moves. On k-in-a-row boards "three" is k and "two" is k - 1.

Deviations from the seed's code (its text is followed): its minimising branch never places the
opponent's piece (``ttt[valid_move] = ...`` is missing), so the opponent's "replies" leave the
board unchanged; and it passes the player to move down the tree, so leaves are scored from
alternating sides. Here the opponent really moves and every leaf is scored for the agent.
"""

from __future__ import annotations

from ...game import rules
from ...game.variant import STANDARD, Variant
from .base import Cell, SearchAgent, check_board, empty_cells, opponent, place, remember, search_depth

OWN_LINE, OWN_TWO, OPPONENT_TWO, OPPONENT_LINE = 100_000, 1, -100, -1_000
SEARCH_MEMO_LIMIT = 1 << 19  # (board, depth, side) scores kept: bounds memory on big boards


class MinimaxAgent(SearchAgent):
    kind = "minimax"

    def __init__(self, depth: int, variant: Variant = STANDARD) -> None:
        super().__init__(depth, variant)
        self._memo: dict[tuple[str, int, str], int] = {}

    def scores(self, board: str) -> dict[Cell, int]:
        """The seed's ``score_move`` for every empty cell, for the side to move."""
        board = check_board(board, self.variant)
        me = rules.to_move(board)
        return {cell: self._minimax(place(board, cell, me), self.depth - 1, me) for cell in empty_cells(board)}

    def heuristic(self, board: str, player: str) -> int:
        """The seed's ``get_heuristic(grid, player)``."""
        k = self.variant.k
        other = opponent(player)
        score = 0
        for read, _all_x, _all_o in self.variant.line_reads:
            marks = read(board)  # a tuple: k is at least 3
            own, theirs = marks.count(player), marks.count(other)
            if own == k:
                score += OWN_LINE
            elif theirs == k:
                score += OPPONENT_LINE
            elif theirs == 0 and own == k - 1:
                score += OWN_TWO
            elif own == 0 and theirs == k - 1:
                score += OPPONENT_TWO
        return score

    def _minimax(self, board: str, depth: int, root: str) -> int:
        key = (board, search_depth(board, depth), root)
        found = self._memo.get(key)
        if found is not None:
            return found
        if depth == 0 or rules.terminal_value(board, self.variant) is not None:
            value = self.heuristic(board, root)
        else:
            mover = rules.to_move(board)
            children = (self._minimax(place(board, cell, mover), depth - 1, root) for cell in empty_cells(board))
            value = max(children) if mover == root else min(children)
        return remember(self._memo, key, value, SEARCH_MEMO_LIMIT)
