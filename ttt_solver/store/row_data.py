"""A row's numbers in one integer: the one packing of a position's row, and its unpacking.

The ``positions`` table stores two columns per row, the code and ``data``; every other column
(``value``, ``remoteness``, ``best_moves``, ``board``, ...) is a generated column that SQL
computes from those two when it is read (see :mod:`ttt_solver.store.schema`). ``data`` holds,
from the lowest bit up: value + 1 (2 bits), remoteness (5), wins (5), draws (5), losses (5),
orbit (4), then the best-moves mask (one bit per cell, :data:`BEST_SHIFT` up). For 25 cells that
is 51 bits (within a signed 64-bit integer): a row takes about 17 bytes on disk, instead of 50 with the columns written out.

Pure Python but the array forms (:func:`pack_data`, :func:`well_formed`, :func:`unpack_rows`):
the command line's lookups unpack rows with this module, one at a time (:func:`unpack_data`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import numpy as np

    from ..solver import Solved, StoredRows


class Row(NamedTuple):
    """What a lookup needs of one canonical position (canonical cell numbering)."""

    value: int
    remoteness: int
    best: int  # the cells that keep the value, as the stored mask (bit c: cell c); cells_of() lists them
    wins: int
    draws: int
    losses: int


def cells_of(mask: int) -> tuple[int, ...]:
    """The cells of a bit mask, ascending: one step per set bit (a row has a few best moves)."""
    cells = []
    while mask:
        lowest = mask & -mask
        cells.append(lowest.bit_length() - 1)
        mask ^= lowest
    return tuple(cells)


# The numbers in ``positions.data``: name -> (lowest bit, bits, what is added before packing).
DATA_FIELDS = {
    "value": (0, 2, 1), "remoteness": (2, 5, 0), "wins": (7, 5, 0), "draws": (12, 5, 0),
    "losses": (17, 5, 0), "orbit": (22, 4, 0),
}  # fmt: skip
BEST_SHIFT = 26


def data_limit(cells: int) -> int:
    """``data`` is below this (the best-moves mask has one bit per cell)."""
    return 1 << (BEST_SHIFT + cells)


def pack_data(solved: Solved | StoredRows) -> np.ndarray:
    """int64 ``data`` of each position."""
    import numpy as np  # here, not at the top: numpy stays off the command-line lookup path

    data = solved.best.astype(np.int64) << BEST_SHIFT
    for name, (shift, _bits, added) in DATA_FIELDS.items():
        data |= (getattr(solved, name).astype(np.int64) + added) << shift
    return data


def well_formed(data: np.ndarray) -> np.ndarray:
    """Which of int64 ``data`` are a packing of numbers in range (the reader has already
    refused any at :func:`data_limit` or above): the array form of :func:`unpack_data`'s test."""
    fine: np.ndarray = (data >= 0) & ((data & 3) != 3)
    return fine


def unpack_rows(code: np.ndarray, data: np.ndarray) -> Solved:
    """The rows of ``code`` from their well-formed int64 ``data`` (the inverse of
    :func:`pack_data`; the preferred moves, which ``data`` does not hold, are zero)."""
    import numpy as np

    from ..solver import Solved

    fields = {name: ((data >> shift) & ((1 << bits) - 1)) - added for name, (shift, bits, added) in DATA_FIELDS.items()}
    return Solved(
        code, fields["value"].astype(np.int8), fields["remoteness"].astype(np.int8),
        (data >> BEST_SHIFT).astype(np.uint32), np.zeros(len(code), dtype=np.uint32), fields["orbit"].astype(np.int8),
        fields["wins"].astype(np.uint8), fields["draws"].astype(np.uint8), fields["losses"].astype(np.uint8),
    )  # fmt: skip


def unpack_data(data: int) -> Row | None:
    """The :class:`Row` one ``data`` packs, or None if it is no packing of numbers in range (pure
    Python: the lookups read each row through it; the orbit, which no lookup reads, is left)."""
    if data.__class__ is not int or data < 0 or data >> BEST_SHIFT >= 1 << 32:
        return None
    plus_one = data & 3
    if plus_one == 3:
        return None
    return Row(plus_one - 1, data >> 2 & 31, data >> BEST_SHIFT, data >> 7 & 31, data >> 12 & 31, data >> 17 & 31)
