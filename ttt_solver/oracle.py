"""``from ttt_solver.oracle import Oracle`` keeps working: the oracle lives in :mod:`ttt_solver.lookup`."""

from .lookup.oracle import SMALL_ROWS, Move, Oracle, Position

__all__ = ["SMALL_ROWS", "Move", "Oracle", "Position"]
