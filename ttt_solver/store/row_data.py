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

from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import numpy as np

    from ..solver import Solved


class Row(NamedTuple):
    """What a lookup needs of one canonical position (canonical cell numbering)."""

    value: int
    remoteness: int
    best: tuple[int, ...]  # ascending cells that keep the value
    wins: int
    draws: int
    losses: int


def cells_of(mask: int) -> tuple[int, ...]:
    """The cells of a bit mask, ascending (a table for each byte: lookups read thousands)."""
    bytes_ = _byte_cells()
    found = bytes_[0][mask & 255]
    shift = 1
    mask >>= 8
    while mask:
        found += bytes_[shift][mask & 255]
        mask >>= 8
        shift += 1
    return found


@lru_cache(maxsize=1)
def _byte_cells() -> tuple[tuple[tuple[int, ...], ...], ...]:
    """For each byte of a mask (0 to 3) and each of its values, its cells: a value's lowest
    cell, then those of the value without it (made in a quarter of the instructions a test of
    each bit takes: a command-line lookup makes it once)."""
    tables = []
    for byte in range(4):
        table: list[tuple[int, ...]] = [()] * 256
        for value in range(1, 256):
            rest = value & (value - 1)
            table[value] = (8 * byte + (value ^ rest).bit_length() - 1, *table[rest])
        tables.append(tuple(table))
    return tuple(tables)


# The numbers in ``positions.data``: name -> (lowest bit, bits, what is added before packing).
DATA_FIELDS = {
    "value": (0, 2, 1), "remoteness": (2, 5, 0), "wins": (7, 5, 0), "draws": (12, 5, 0),
    "losses": (17, 5, 0), "orbit": (22, 4, 0),
}  # fmt: skip
BEST_SHIFT = 26


def data_limit(cells: int) -> int:
    """``data`` is below this (the best-moves mask has one bit per cell)."""
    return 1 << (BEST_SHIFT + cells)


def pack_data(solved: Solved) -> np.ndarray:
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


def unpack_data(data: int) -> tuple[int, int, int, int, int, int, int] | None:
    """(value, remoteness, best mask, wins, draws, losses, orbit) of one ``data``, or None if
    it is no packing of numbers in range (pure Python: the lookups use it)."""
    if data.__class__ is not int or data < 0 or data >> BEST_SHIFT >= 1 << 32:
        return None
    plus_one = data & 3
    if plus_one == 3:
        return None
    return (
        plus_one - 1,
        data >> 2 & 31,
        data >> BEST_SHIFT,
        data >> 7 & 31,
        data >> 12 & 31,
        data >> 17 & 31,
        data >> 22 & 15,
    )
