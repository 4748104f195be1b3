"""The value rule of :mod:`.values` in array form, for whole tiers and tables: a position's
result in one byte, and :func:`back_up`, :func:`~ttt_solver.game.values.outcome` for many
positions at once. Apart from :mod:`.values` so that the command line's lookups, which prove
single rows with the scalar rule, import neither numpy nor these tables' classes."""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import numpy as np

from .values import SPAN, move_result

# A position's result in one byte, as the solver's tiers and the batch tables hold it:
# (value + 1) * 32 + remoteness, with 255 for a code that is no legal position.
REMOTENESS_BITS = 5  # remoteness <= cells <= 25 < 32
NO_POSITION = 255
NO_MOVE = 255  # the move score of a cell that cannot be played


def result_bytes(value: np.ndarray, remoteness: np.ndarray) -> np.ndarray:
    """uint8 per position: ``(value + 1) * 32 + remoteness``."""
    found: np.ndarray = ((value.astype(np.int16) + 1) * (1 << REMOTENESS_BITS) + remoteness).astype(np.uint8)
    return found


class ByteTables(NamedTuple):
    """Lookup tables over bytes (made on first use)."""

    move_score: np.ndarray  # a child's result byte -> the move's score for the mover, best lowest
    move_value: np.ndarray  # a move's score -> its value for the mover (9 for NO_MOVE)
    remoteness: np.ndarray  # the best move's score -> the position's remoteness


@cache
def byte_tables() -> ByteTables:
    """The tables of :class:`ByteTables`."""
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
    packed = np.packbits(flags, axis=0, bitorder="little")  # (bytes, N)
    masks = np.zeros(flags.shape[1], dtype=np.uint32)
    for byte, row in enumerate(packed):
        masks |= row.astype(np.uint32) << np.uint32(8 * byte)
    return masks
