"""Where a board's answer sits in the batch tables: an index for every legal board, from the
board as an array (+1 X, -1 O, 0 empty), with no Python loop per board.

Two indexes, one interface (``size``, ``locate``, ``spread``), chosen once by the board's size
(:func:`index_of`):

- :class:`Codes`, up to :data:`DENSE_CELLS` cells: the board's code itself, one small matrix
  product away (up to 15 cells) or two reads of 256 KB tables (16 cells, whose codes float32
  cannot hold; 43 million places for 4x4: every code, most of them no legal board);
- :class:`Places`, above it: the board's place among the boards of its tier
  (:mod:`ttt_solver.solver.tiers`), from its two half codes and three small tables (741 million
  places for 4x5, against 3.5 billion codes).

A place where no legal board is (an impossible code, impossible piece counts) reads the
tables' last entry, :attr:`size`: no position.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..game import array_rules, codec
from ..game.variant import Variant
from ..solver import Tiers, tiers

DENSE_CELLS = 16  # up to this many cells the index is the code: a table per code is 43 MB of bytes for 4x4
# Rows per BLAS call. OpenBLAS splits a bigger matrix product over its own threads, which then
# queue behind each other when two of our threads multiply at once.
_BLAS_ROWS = 512


def _halves(part: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """``part @ matrix`` as int64, a stack of small products at a time (float32: exact, every
    partial sum is a half code of at most 10 cells or a count of marks)."""
    found = np.empty((len(part), matrix.shape[1]), dtype=np.float32)
    floats = part.astype(np.float32)
    whole = len(part) - len(part) % _BLAS_ROWS
    if whole:
        found[:whole] = (floats[:whole].reshape(-1, _BLAS_ROWS, part.shape[1]) @ matrix).reshape(-1, matrix.shape[1])
    found[whole:] = floats[whole:] @ matrix
    return found.astype(np.int64)


def _half_matrix(g: array_rules.Geometry) -> tuple[np.ndarray, tuple[int, int]]:
    """The matrix that gives a board's two half codes and X's marks less O's, and the half
    codes of empty halves (added after: digits are numbers plus one)."""
    weights = g.weights.astype(np.float64)
    matrix = np.zeros((g.n, 3), dtype=np.float32)
    matrix[: g.high_cells, 0] = weights[: g.high_cells] // g.base
    matrix[g.high_cells :, 1] = weights[g.high_cells :]
    matrix[:, 2] = 1
    return matrix, (int(matrix[:, 0].sum()), int(matrix[:, 1].sum()))


class Codes:
    """The code of each board is its place (up to :data:`DENSE_CELLS` cells)."""

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        g = array_rules.geometry(variant)
        self.size = 3**variant.cells
        # One product gives the code while float32 holds it exactly (up to 15 cells); 16 cells
        # are read as two 64-bit words of 8 cells (:func:`_word_tables`).
        self.whole = self.size < 1 << 24
        if self.whole:
            self.weights = g.weights.astype(np.float32)
            self.empty = np.int32(codec.offset(variant.cells))
        else:
            assert variant.cells == 2 * _WORD_CELLS
            self.words = _word_tables(g.weights)

    def locate(self, part: np.ndarray) -> np.ndarray:
        if self.whole:  # stacks of matrix-vector products straight into int32 codes
            code: np.ndarray = np.empty(len(part), dtype=np.int32)
            floats = part.astype(np.float32)
            whole = len(part) - len(part) % _BLAS_ROWS
            code[:whole] = (floats[:whole].reshape(-1, _BLAS_ROWS, part.shape[1]) @ self.weights).ravel()
            code[whole:] = floats[whole:] @ self.weights
            code += self.empty
            return code
        # Each byte of a cell (+1, -1 or 0) keeps its two low bits (1, 3 or 0); the eight pairs
        # of a word are gathered into 16 bits, the index of that word's table.
        word = np.ascontiguousarray(part, dtype=np.int8).view("<u8") & np.uint64(0x0303030303030303)
        for shift, keep in ((6, 0x000F000F000F000F), (12, 0x000000FF000000FF), (24, 0xFFFF)):
            word |= word >> np.uint64(shift)
            word &= np.uint64(keep)
        index = word.astype(np.int32)
        index[:, 1] += 1 << 16
        found = np.take(self.words, index)
        code = found[:, 0] + found[:, 1]
        return code

    def images(self, codes: np.ndarray) -> Iterator[np.ndarray]:
        """The place of each symmetry's image of each code, a symmetry at a time."""
        yield from array_rules.image_codes(np.asarray(codes, dtype=np.int64), self.variant)


_WORD_CELLS = 8  # cells of a board read as one 64-bit word


def _word_tables(weights: np.ndarray) -> np.ndarray:
    """For each 8-cell word of a 16-cell board and each 16-bit gathering of its cells' two low
    bits (0 empty, 1 X, 3 O), that word's part of the code (its digits are the numbers plus
    one): the two words' tables one after the other, int32."""
    fields = (np.arange(1 << 16)[:, None] >> (2 * np.arange(_WORD_CELLS))) & 3
    digits = np.choose(fields, [1, 2, 0, 0])  # 2 is no cell's bits: checked before
    parts = [digits @ weights[w * _WORD_CELLS : (w + 1) * _WORD_CELLS] for w in range(2)]
    return np.concatenate(parts).astype(np.int32)


class Places:
    """The place of each board among the boards of its tier: small tables over half codes."""

    def __init__(self, found: Tiers) -> None:
        g = found.geometry
        self.tiers = found
        self.n, self.hi = g.n, g.high_cells
        self.starts = np.concatenate([[0], np.cumsum(found.sizes)]).astype(np.int64)
        self.size = int(self.starts[-1])  # one more byte after it: the place of no board
        # base[ply * width + high]: where the tier's boards with this high half begin; one more
        # column, the place of no board, for a taken cell's "child" (:data:`Tiers.taken_high`).
        base = found.offsets + self.starts[:-1, None]
        self.width = base.shape[1] + 1
        self.base = np.concatenate([base, np.full((len(base), 1), self.size)], axis=1).ravel()
        self.rank_low = found.rank_low
        self.rank_low_padded = found.rank_low_padded  # a taken cell of the low half: past every place
        self.pieces = (
            np.count_nonzero(g.digits[0] != 1, axis=1).astype(np.int64),
            np.count_nonzero(g.digits[1] != 1, axis=1).astype(np.int64),
        )
        self.variant = found.variant
        self.matrix, self.empty_halves = _half_matrix(g)
        # One gather for the low half's rank and pieces, one for where its tier's boards with
        # this high half begin: base[(pieces of the high half + pieces of the low) * width + high].
        pieces_high = self.pieces[0]
        self.low_info = (self.rank_low << 8) | self.pieces[1]
        lows = np.arange(g.low_cells + 1)[:, None]
        highs = np.arange(len(pieces_high))[None, :]
        self.by_low_pieces = np.take(self.base, (pieces_high[None, :] + lows) * self.width + highs).ravel()

    def locate(self, part: np.ndarray) -> np.ndarray:
        return self.locate_halves(part)[0]

    def locate_halves(self, part: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(place, high half, low half) of each +1/-1/0 board; the place is :attr:`size` (no
        board) where the piece counts are impossible."""
        halves = _halves(part, self.matrix)
        high = halves[:, 0] + self.empty_halves[0]  # a column at a time: an add over rows of 3 is slow
        low = halves[:, 1] + self.empty_halves[1]
        info = np.take(self.low_info, low)
        place: np.ndarray = np.take(self.by_low_pieces, (info & 255) * len(self.pieces[0]) + high)
        place += info >> 8
        counted = (halves[:, 2] & ~1) == 0  # X has as many marks as O, or one more
        if not counted.all():
            place[~counted] = self.size
        return place, high, low

    def plies(self, high: np.ndarray, low: np.ndarray) -> np.ndarray:
        ply: np.ndarray = np.take(self.pieces[0], high)
        ply += np.take(self.pieces[1], low)
        return ply

    def images(self, codes: np.ndarray) -> Iterator[np.ndarray]:
        """The place of each symmetry's image of each (canonical) code, a symmetry at a time."""
        g = self.tiers.geometry
        high, low = np.divmod(np.asarray(codes, dtype=np.int64), np.int64(g.base))
        ply = np.take(self.pieces[0], high) + np.take(self.pieces[1], low)
        (high_high, high_low), (low_high, low_low) = g.image_halves
        for s in range(len(high_high)):
            image_high = np.take(high_high[s], high) + np.take(low_high[s], low)
            image_low = np.take(high_low[s], high) + np.take(low_low[s], low)
            yield np.take(self.base, ply * self.width + image_high) + np.take(self.rank_low, image_low)


def index_of(variant: Variant) -> Codes | Places:
    """The index of a variant's batch tables (see the module docstring)."""
    return Codes(variant) if variant.cells <= DENSE_CELLS else Places(tiers(variant))
