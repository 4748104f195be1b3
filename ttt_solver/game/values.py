"""The one rule that turns a position's children into its value, in scalar and array form.

Values are +1 win, 0 draw, -1 loss, always for the side to move; remoteness counts plies to
the end under perfect play (the winner wins as fast as possible, the loser loses as slowly
as possible, a draw runs until the board is full). A move is worth minus its child's value
to the player making it, one ply further from the end than the child: :func:`move_result`.
A position takes its best move's result (:func:`rank`); its best moves keep its value, and
its preferred moves keep its remoteness as well.

The solver backs values up with :func:`back_up`, and the lookups and ``verify`` check stored
rows with the same functions, so the rule is written once. (The recursive solver in
:mod:`ttt_solver.solver.reference` keeps its own copy on purpose: it is the independent reference the
tests compare against.)
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import numpy as np

SPAN = 64  # score = (1 - value) * SPAN + remoteness key; remoteness <= 25 < SPAN // 2


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
    value = max(v for _cell, v, _r in moves)
    remoteness = (min if value > 0 else max)(r for _cell, v, r in moves if v == value)  # see rank()
    best = tuple(cell for cell, v, _r in moves if v == value)
    preferred = tuple(cell for cell, v, r in moves if v == value and r == remoteness)
    wins = sum(v > 0 for _c, v, _r in moves)
    losses = sum(v < 0 for _c, v, _r in moves)
    return Outcome(value, remoteness, best, preferred, wins, len(moves) - wins - losses, losses)


# A position's result in one byte, as the solver's tiers and the batch tables hold it:
# (value + 1) * 32 + remoteness, with 255 for a code that is no legal position.
REMOTENESS_BITS = 5  # remoteness <= cells <= 25 < 32
NO_POSITION = 255
NO_MOVE = 255  # the move score of a cell that cannot be played


def result_bytes(value: np.ndarray, remoteness: np.ndarray) -> np.ndarray:
    """uint8 per position: ``(value + 1) * 32 + remoteness``."""
    # Imported here, not at the top: numpy stays off the command-line lookup path, which imports this module.
    import numpy as np

    found: np.ndarray = ((value.astype(np.int16) + 1) * (1 << REMOTENESS_BITS) + remoteness).astype(np.uint8)
    return found


class ByteTables(NamedTuple):
    """Lookup tables over bytes (numpy, made on first use: the lookups import this module)."""

    move_score: np.ndarray  # a child's result byte -> the move's score for the mover, best lowest
    move_value: np.ndarray  # a move's score -> its value for the mover (9 for NO_MOVE)
    remoteness: np.ndarray  # the best move's score -> the position's remoteness


@cache
def byte_tables() -> ByteTables:
    """The tables of :class:`ByteTables`."""
    import numpy as np

    move_score = np.full(256, NO_MOVE, dtype=np.uint8)
    for child_value in (-1, 0, 1):
        for child_remoteness in range(1 << REMOTENESS_BITS):
            v, r = move_result(child_value, child_remoteness)
            move_score[(child_value + 1) << REMOTENESS_BITS | child_remoteness] = min(
                NO_MOVE - 1, (1 - v) * SPAN + (r if v > 0 else SPAN // 2 - r)
            )
    scores = np.arange(256)
    score_value = np.where(scores < NO_MOVE, 1 - scores // SPAN, 9).astype(np.int8)  # 9: no move
    top_remoteness = np.where(score_value > 0, scores % SPAN, SPAN // 2 - scores % SPAN).astype(np.int8)
    return ByteTables(move_score, score_value, top_remoteness)


class Backed(NamedTuple):
    """:func:`back_up`'s result: one entry per position with moves."""

    value: np.ndarray  # int8
    remoteness: np.ndarray  # int8
    best: np.ndarray  # uint32: bit c if the move on cell c keeps the value
    preferred: np.ndarray  # uint32: bit c if it keeps the value and the remoteness
    wins: np.ndarray  # uint8 counts of moves by their result for the mover
    draws: np.ndarray
    losses: np.ndarray


def back_up(scores: np.ndarray) -> Backed:
    """:func:`outcome` for many positions at once: ``scores[c, i]`` is the score of the move
    on cell ``c`` of position ``i`` (``move_score`` of its child's result byte,
    :data:`NO_MOVE` where the cell is taken), at least one move per position."""
    import numpy as np

    tables = byte_tables()
    top = scores.min(axis=0)
    value, remoteness = tables.move_value[top], tables.remoteness[top]
    move_value = tables.move_value[scores]
    best = _bits(move_value == value)
    preferred = _bits(scores == top)
    wins = np.count_nonzero(move_value == 1, axis=0).astype(np.uint8)
    draws = np.count_nonzero(move_value == 0, axis=0).astype(np.uint8)
    losses = np.count_nonzero(move_value == -1, axis=0).astype(np.uint8)
    return Backed(value, remoteness, best, preferred, wins, draws, losses)


def _bits(flags: np.ndarray) -> np.ndarray:
    """(cells <= 32, N) bools -> uint32 masks, bit c from row c."""
    import numpy as np

    packed = np.packbits(flags, axis=0, bitorder="little")  # (bytes, N)
    masks = np.zeros(flags.shape[1], dtype=np.uint32)
    for byte, row in enumerate(packed):
        masks |= row.astype(np.uint32) << np.uint32(8 * byte)
    return masks
