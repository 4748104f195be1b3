"""The tiers: the boards of each ply, numbered without a table over every code.

Tier ``p`` holds every board with ``p`` pieces and legal piece counts (X has ``(p + 1) // 2``,
O has ``p // 2``): 741 million boards over the 21 tiers of a 20-cell board, against 3.5 billion
codes. A board is its two half codes (:func:`ttt_solver.game.array_rules.halves`); its **rank** in
its tier is

    rank = offsets[p][high] + rank_low[low]

where ``rank_low[low]`` numbers the low halves with the same counts of X and O, and
``offsets[p][high]`` counts the boards of the tier whose high half is smaller. Ranks follow
code order, so a range of ranks is a range of codes, and a tier is cut into chunks (ranges of
ranks) that the solver's passes handle one at a time (:mod:`ttt_solver.solver.passes`), each
a task of an engine (:mod:`ttt_solver.engine`), in this process or on other machines.

Every legal board is in its tier, and every board of a tier with legal lines
(:func:`ttt_solver.game.array_rules.lines_legal`) is reachable in play, so the tiers replace the
forward search: nothing is generated that is not needed, and nothing needs sorting.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ..game import array_rules, codec
from ..game.variant import Variant


class Tiers:
    """The combinatorial index of one variant's tiers (tables of ``3**(cells / 2)`` rows)."""

    def __init__(self, variant: Variant) -> None:
        g = array_rules.geometry(variant)
        self.variant = variant
        self.geometry = g
        lo = g.low_cells
        high_digits, low_digits = g.digits
        self.high_x = (high_digits == codec.X_DIGIT).sum(axis=1).astype(np.int64)
        self.high_o = (high_digits == codec.O_DIGIT).sum(axis=1).astype(np.int64)
        self.low_x = low_x = (low_digits == codec.X_DIGIT).sum(axis=1).astype(np.int64)
        self.low_o = low_o = (low_digits == codec.O_DIGIT).sum(axis=1).astype(np.int64)
        kind = low_x * (lo + 1) + low_o  # the class of a low half: its counts of X and O
        order = np.argsort(kind, kind="stable")  # low halves by class, ascending within one
        count = np.bincount(kind, minlength=(lo + 1) ** 2)
        start = np.concatenate([[0], np.cumsum(count)[:-1]]).astype(np.int64)
        self.low_width = lo + 1
        self.class_count = count.astype(np.int64)
        self.class_start = start
        self.lows = order.astype(np.int64)  # the low halves, class after class
        self.rank_low = np.empty(len(order), dtype=np.int64)
        self.rank_low[order] = np.arange(len(order)) - start[kind[order]]
        # Per tier: the class of low half that completes each high half (-1: none), and the offsets.
        tiers = range(variant.cells + 1)
        self.partner = np.stack([self._partner(p) for p in tiers])
        counts = np.where(self.partner >= 0, self.class_count[np.maximum(self.partner, 0)], 0)
        self.offsets = np.zeros((len(tiers), len(high_digits) + 1), dtype=np.int64)
        np.cumsum(counts, axis=1, out=self.offsets[:, 1:])
        self.sizes = self.offsets[:, -1].copy()
        # One more entry each, for a taken cell: a rank beyond every tier (see :meth:`steps`).
        beyond = np.int64(1) << 40
        self.offsets_padded = np.concatenate([self.offsets, np.full((len(tiers), 1), beyond)], axis=1)
        self.rank_low_padded = np.append(self.rank_low, beyond)
        self.taken_high, self.taken_low = len(high_digits) + 1, len(low_digits)

    def _partner(self, ply: int) -> np.ndarray:
        lo = self.low_width - 1
        x, o = (ply + 1) // 2, ply // 2
        need_x, need_o = x - self.high_x, o - self.high_o
        ok = (need_x >= 0) & (need_o >= 0) & (need_x + need_o <= lo)
        return np.where(ok, need_x * self.low_width + need_o, -1)

    def size(self, ply: int) -> int:
        """How many boards tier ``ply`` holds."""
        return int(self.sizes[ply])

    def boards(self, ply: int, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """The halves of the boards of ranks ``start`` to ``stop`` of tier ``ply``, in rank
        (= code) order."""
        offsets = self.offsets[ply]
        first, last = np.searchsorted(offsets, [start, stop - 1], side="right") - 1
        highs = np.arange(first, last + 1)
        ends = np.minimum(offsets[highs + 1], stop) - np.maximum(offsets[highs], start)
        high = np.repeat(highs, ends)
        # Each high half's low halves are one run of ``lows``: where this chunk enters each run.
        entry = self.class_start[self.partner[ply][highs]] + np.maximum(offsets[highs], start) - offsets[highs]
        index = np.arange(stop - start, dtype=np.int64)
        index += np.repeat(entry - np.concatenate([[0], np.cumsum(ends)[:-1]]), ends)
        return high, np.take(self.lows, index)

    def steps(self, ply: int) -> tuple[np.ndarray, np.ndarray]:
        """For a board of tier ``ply`` and each cell: the half code after the side to move marks
        the cell, as (cells in the high half, 3**high) and (cells in the low half, 3**low)
        int64 tables. A taken cell gives :attr:`taken_high` or :attr:`taken_low`, whose rank
        (by :meth:`child_ranks`) is past the end of any tier."""
        return _steps(self.geometry, ply % 2)

    def child_ranks(self, ply: int, high: np.ndarray, low: np.ndarray, cell: int) -> np.ndarray:
        """The rank in tier ``ply + 1`` of each board after the side to move marks ``cell``, or
        a rank past the end of that tier where the cell is taken."""
        g = self.geometry
        high_steps, low_steps = self.steps(ply)
        offsets = self.offsets_padded[ply + 1]
        if cell < g.high_cells:
            rank: np.ndarray = np.take(offsets, np.take(high_steps[cell], high))
            rank += np.take(self.rank_low_padded, low)
        else:
            rank = np.take(self.rank_low_padded, np.take(low_steps[cell - g.high_cells], low))
            rank += np.take(offsets, high)
        return rank

    def ranks(self, ply: int, high: np.ndarray, low: np.ndarray) -> np.ndarray:
        """The rank of each board (given by its halves, with ``ply`` pieces) in its tier."""
        rank: np.ndarray = np.take(self.offsets[ply], high)
        rank += np.take(self.rank_low, low)
        return rank


@cache
def _steps(g: array_rules.Geometry, parity: int) -> tuple[np.ndarray, np.ndarray]:
    side = 1 if parity == 0 else -1  # X (digit 2) moves at even plies, O (digit 0) at odd ones
    tables = []
    for digits, taken in ((g.digits[0], len(g.digits[0]) + 1), (g.digits[1], len(g.digits[1]))):
        m = digits.shape[1]
        codes = np.arange(len(digits), dtype=np.int64)
        tables.append(
            np.stack(
                [np.where(digits[:, i] == codec.EMPTY_DIGIT, codes + side * 3 ** (m - 1 - i), taken) for i in range(m)]
            )
        )
    return tables[0], tables[1]


@cache
def tiers(variant: Variant) -> Tiers:
    """The variant's tiers, built once per process."""
    return Tiers(variant)
