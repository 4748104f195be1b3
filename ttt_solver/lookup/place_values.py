"""The values of a 16-cell variant's boards in two bits a board, by the board's place among
the boards of its tier (:class:`.places.Places`), for ``value_batch``.

By code, two bits a board are 10.8 MB for 4x4 (43 million codes, most of them no legal board):
more than a core's L2 cache by ten, so that a batch of random boards pays a miss on nearly every
read. By place, 10.2 million places with legal piece counts, they are 2.5 MB, and a board's
place costs two reads of small tables more (:func:`.batch_kernels.values_by_place`).

Each entry is 0 where no legal board is (illegal lines), else value + 2; four places a byte,
lowest first.
"""

from __future__ import annotations

import numpy as np

from ..game.value_bytes import NO_POSITION, REMOTENESS_BITS
from ..game.variant import Variant
from ..solver import tiers
from .places import Places


class PlaceValues:
    """Two bits a place (see the module docstring), from the result bytes by code."""

    def __init__(self, variant: Variant, results: np.ndarray) -> None:
        self.places = places = Places(tiers(variant))
        g = places.tiers.geometry
        state = np.zeros(places.size + 1, dtype=np.uint8)  # and the place of no board
        for ply, start in enumerate(places.starts[:-1].tolist()):
            high, low = places.tiers.boards(ply, 0, places.tiers.size(ply))
            found = np.take(results, high * g.base + low)
            state[start : start + len(found)] = np.where(found == NO_POSITION, 0, found // (1 << REMOTENESS_BITS) + 1)
        self.packed = _four_a_byte(state)
        # The compiled loops' copies of the place's two tables, in int32 so that they stay in
        # the L1 and L2 caches: by the low half's pieces and the high half, by the low half.
        self.high_by_pieces = places.by_low_pieces.reshape(g.low_cells + 1, -1).astype(np.int32)
        self.rank_low = places.rank_low.astype(np.int32)

    def states(self, part: np.ndarray) -> np.ndarray:
        """Each (N, cells) +1/-1/0 board's two bits: 0 where no legal board is, else value + 2."""
        place = self.places.locate(part)
        two: np.ndarray = np.take(self.packed, place >> 2)
        two >>= ((place & 3) << 1).astype(np.uint8)
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
