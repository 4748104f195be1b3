"""What a lookup answers: a :class:`Position` and its :class:`Move` list.

Values are +1/0/-1 for the side to move (a move's value is for the player making it);
remoteness counts plies to the end of the game under perfect play. Cells are numbered in the
real board's numbering, row by row from 0.
"""

from __future__ import annotations

from typing import NamedTuple

from ..game import board as rules


class Move(NamedTuple):
    cell: int  # in the real board's numbering
    value: int  # for the player making the move
    remoteness: int  # plies from the position to the end after this move


class Position(NamedTuple):
    """Everything the database knows about one real board."""

    board: str
    value: int
    remoteness: int
    moves: tuple[Move, ...]  # best first: value, then fastest win / slowest loss, then cell
    best_moves: tuple[int, ...]  # ascending cells whose move keeps the value
    # Ascending best moves that also have the best remoteness (win fastest, lose slowest), as
    # GamesmanUni ranks moves: value first, then remoteness. What a perfect player picks from.
    preferred_moves: tuple[int, ...]

    @property
    def to_move(self) -> str:
        return rules.to_move(self.board)

    @property
    def is_over(self) -> bool:
        return not self.moves
