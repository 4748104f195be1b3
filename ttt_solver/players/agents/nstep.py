"""``nstep:D``: ``n_step_ai`` of seed 003, a depth-D minimax scored +100 / -100 for a win / loss.

Each own move is scored by a minimax over the next ``D - 1`` plies (the seed's
``get_minimax(n_steps, ...)``): a finished game or the depth limit scores +100 if the agent has
three in a row, -100 if the opponent has, else 0. The agent plays uniformly among the
best-scored moves, so ``nstep:1`` takes a win when it has one and otherwise plays at random.

Deviation from the seed's code (its text is followed): the seed's ``check_stalemate`` compares
``check_winning(...) == ''`` with a boolean, so a full drawn board is never terminal; with depth
left it falls through to ``max``/``min`` over no moves and scores -inf or +inf. Here a full board
is a finished game worth 0, as the text says.

The score is symmetric, so the search is a negamax memoised on (board, depth) per agent.

It scores finished games by the rules of the variant (k in a row on bigger boards), so it plays
misère too: there making the line is the loss, scored -100 for the player who made it.
"""

from __future__ import annotations

from ...game import rules
from ...game.variant import STANDARD, Variant
from .base import Cell, SearchAgent, check_board, empty_cells, place, remember, search_depth

WIN = 100
SEARCH_MEMO_LIMIT = 1 << 19  # (board, depth) scores kept: bounds memory on big boards


class NStepAgent(SearchAgent):
    kind = "nstep"

    def __init__(self, depth: int, variant: Variant = STANDARD) -> None:
        super().__init__(depth, variant)
        self._memo: dict[tuple[str, int], int] = {}

    def scores(self, board: str) -> dict[Cell, int]:
        """The seed's ``n_step_ai_temp``: each empty cell's score for the side to move."""
        board = check_board(board, self.variant)
        me = rules.to_move(board)
        return {cell: -self._negamax(place(board, cell, me), self.depth - 1) for cell in empty_cells(board)}

    def _negamax(self, board: str, depth: int) -> int:
        """The score for the side to move on ``board`` with ``depth`` plies left to search."""
        key = (board, search_depth(board, depth))
        found = self._memo.get(key)
        if found is not None:
            return found
        terminal = rules.terminal_value(board, self.variant)
        if terminal is not None:
            value = WIN * terminal
        elif depth == 0:
            value = 0
        else:
            me = rules.to_move(board)
            value = max(-self._negamax(place(board, cell, me), depth - 1) for cell in empty_cells(board))
        return remember(self._memo, key, value, SEARCH_MEMO_LIMIT)
