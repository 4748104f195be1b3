"""The one rule that turns a position's children into its value, in scalar and array form.

Values are +1 win, 0 draw, -1 loss, always for the side to move; remoteness counts plies to
the end under perfect play (the winner wins as fast as possible, the loser loses as slowly
as possible, a draw runs until the board is full). A move is worth minus its child's value
to the player making it, one ply further from the end than the child: :func:`move_result`.
A position takes its best move's result (:func:`rank`); its best moves keep its value, and
its preferred moves keep its remoteness as well.

The solver backs values up with :func:`back_up`, and the lookups and ``verify`` check stored
rows with the same functions, so the rule is written once. (The recursive solver in
:mod:`ttt_solver.solver` keeps its own copy on purpose: it is the independent reference the
tests compare against.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import numpy as np

SPAN = 64  # score = (1 - value) * SPAN + remoteness key; remoteness <= 16 < SPAN // 2


def rank(value: int, remoteness: int) -> tuple[int, int]:
    """Sort key, best first: win before draw before loss, fast wins, slow losses."""
    return (-value, remoteness if value > 0 else -remoteness)


def move_result(child_value: int, child_remoteness: int) -> tuple[int, int]:
    """A move's (value, remoteness) for the player making it, from its child's row."""
    return -child_value, child_remoteness + 1


class Outcome(NamedTuple):
    """What a position's moves imply about it."""

    value: int
    remoteness: int
    best: tuple[int, ...]  # ascending cells that keep the value
    preferred: tuple[int, ...]  # ascending cells that keep the value and the remoteness
    wins: int  # moves that win for the mover
    draws: int
    losses: int


def outcome(moves: Sequence[tuple[int, int, int]]) -> Outcome:
    """A position's outcome from its moves' ``(cell, value, remoteness)``, ascending by cell
    (at least one move: a finished position's outcome comes from the rules)."""
    value, remoteness = min(((v, r) for _cell, v, r in moves), key=lambda vr: rank(*vr))
    best = tuple(cell for cell, v, _r in moves if v == value)
    preferred = tuple(cell for cell, v, r in moves if v == value and r == remoteness)
    wins = sum(1 for _c, v, _r in moves if v > 0)
    losses = sum(1 for _c, v, _r in moves if v < 0)
    return Outcome(value, remoteness, best, preferred, wins, len(moves) - wins - losses, losses)


class Backed(NamedTuple):
    """:func:`back_up`'s result: one entry per position with moves."""

    value: np.ndarray  # int8
    remoteness: np.ndarray  # int8
    best: np.ndarray  # uint16: bit c if the move on cell c keeps the value
    preferred: np.ndarray  # uint16: bit c if it keeps the value and the remoteness
    wins: np.ndarray  # uint8 counts of moves by their result for the mover
    draws: np.ndarray
    losses: np.ndarray


def back_up(child_value: np.ndarray, child_remoteness: np.ndarray, starts: np.ndarray, cells: np.ndarray) -> Backed:
    """:func:`outcome` for many positions at once. The moves of position ``i`` are
    ``starts[i]`` up to the next start, each with its cell and its child's stored row."""
    import numpy as np

    move_value = -child_value.astype(np.int16)
    move_rem = child_remoteness.astype(np.int16) + 1
    score = (1 - move_value) * SPAN + np.where(move_value > 0, move_rem, SPAN // 2 - move_rem)
    top = np.minimum.reduceat(score, starts)
    value = (1 - top // SPAN).astype(np.int8)
    remoteness = np.where(value > 0, top % SPAN, SPAN // 2 - top % SPAN).astype(np.int8)
    counts = np.diff(np.append(starts, len(score)))
    bit = np.left_shift(np.uint16(1), cells.astype(np.uint16), dtype=np.uint16)
    keeps = move_value == np.repeat(value, counts)
    fastest = score == np.repeat(top, counts)
    best = np.bitwise_or.reduceat(np.where(keeps, bit, np.uint16(0)), starts)
    preferred = np.bitwise_or.reduceat(np.where(fastest, bit, np.uint16(0)), starts)
    wins = np.add.reduceat((move_value > 0).astype(np.uint8), starts)
    losses = np.add.reduceat((move_value < 0).astype(np.uint8), starts)
    draws = (counts - wins - losses).astype(np.uint8)
    return Backed(value, remoteness, best, preferred, wins, draws, losses)
