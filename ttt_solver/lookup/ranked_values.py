"""The values of a 16-cell variant's boards in two bits a board, by the board's rank among the
boards with legal piece counts, for ``value_batch``.

By code, two bits a board are 10.8 MB for 4x4 (43 million codes, most of them no legal board):
ten times a core's L2 cache, so that a batch of random boards pays a miss on nearly every read.
By rank, 10,165,779 boards whose X has as many marks as O or one more, they are 2.5 MB.

A board is its two half codes (its first and last eight cells, :attr:`Geometry.base` = 3**8
each) and each half has a digit sum (a cell's digit is its number plus one: 8 + X's marks less
O's). The board's counts are legal when the two sums make 16 or 17, so for each high half the
low halves that complete it are those of two adjacent sums: with the low halves sorted by sum,
one run of them. Boards are ranked by high half, then along that run:

    rank = base[high] + position[low]

two reads of small tables (26 KB and 13 KB, in the L1 and L2 caches). The tiers' places
(:class:`.places.Places`) number the same boards by ply first; their tables by the low half's
pieces and the high half are 236 KB even in int32, and the loop over them ran 15% slower.

Each entry is 0 where no legal board is (illegal lines), else value + 2; four boards a byte,
lowest first; one entry more, 0, is the rank of impossible counts on numpy's path.
"""

from __future__ import annotations

import numpy as np

from ..game import array_rules
from ..game.value_bytes import NO_POSITION, REMOTENESS_BITS
from ..game.variant import Variant

_LEGAL_SUMS = 16  # the digit sums of a 16-cell board whose counts are legal: 16 and 17
_RANK_BITS = 24


class RankedValues:
    """Two bits a board by rank (see the module docstring), from the result bytes by code."""

    def __init__(self, variant: Variant, results: np.ndarray) -> None:
        g = array_rules.geometry(variant)
        assert g.high_cells == g.low_cells == variant.cells // 2 == 8
        self.half = g.base
        self.sums = g.digits[0].sum(axis=1).astype(np.int64)  # the same digits for either half
        by_sum = np.argsort(self.sums, kind="stable")
        self.position = np.empty(self.half, dtype=np.uint16)
        self.position[by_sum] = np.arange(self.half)
        first = np.searchsorted(self.sums[by_sum], np.arange(_LEGAL_SUMS + 3))
        runs = first[_LEGAL_SUMS - self.sums], first[_LEGAL_SUMS + 2 - self.sums]  # each high half's low run
        counts = runs[1] - runs[0]
        self.size = int(counts.sum())
        self.base = (np.cumsum(counts) - counts - runs[0]).astype(np.int32)
        state = np.zeros(self.size + 1, dtype=np.uint8)  # and the rank of impossible counts
        for total in range(_LEGAL_SUMS + 1):  # the high halves of one sum share their run
            high = np.flatnonzero(self.sums == total)
            low = by_sum[first[_LEGAL_SUMS - total] : first[_LEGAL_SUMS + 2 - total]]
            found = np.take(results, high[:, None] * self.half + low[None, :])
            rank = self.base[high][:, None] + self.position[low][None, :].astype(np.int64)
            state[rank] = np.where(found == NO_POSITION, 0, found // (1 << REMOTENESS_BITS) + 1)
        self.packed = _four_a_byte(state)
        # numpy's path: the digit sums above the rank (< 2**24), so that one add gives both;
        # a negative rank borrows only where the sums are too small anyway.
        assert self.size < 1 << _RANK_BITS
        summed = self.sums << _RANK_BITS
        self.summed = ((self.base + summed).astype(np.int32), (self.position + summed).astype(np.int32))

    def states(self, codes: np.ndarray) -> np.ndarray:
        """Each code's two bits: 0 where no legal board is, else value + 2."""
        high = codes // self.half  # and a product: np.divmod takes four times as long
        low = codes - high * self.half
        both = np.take(self.summed[0], high)
        both += np.take(self.summed[1], low)
        legal = (both >> (_RANK_BITS + 1)) == _LEGAL_SUMS // 2  # sums of 16 or 17
        rank = np.where(legal, both & ((1 << _RANK_BITS) - 1), self.size)
        two: np.ndarray = np.take(self.packed, rank >> 2)
        two >>= ((rank & 3) << 1).astype(np.uint8)
        two &= 3
        return two


def _four_a_byte(state: np.ndarray) -> np.ndarray:
    """Two-bit states, four a byte, lowest first."""
    packed = np.zeros(len(state) // 4 + 1, dtype=np.uint8)
    for k in range(4):
        part = state[k::4]
        packed[: len(part)] |= part << np.uint8(2 * k)
    packed.flags.writeable = False
    return packed
