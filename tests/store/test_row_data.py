"""The one packing of a row (``positions.data``) and its two unpackings: the array form an
audit reads blocks of rows with, and the pure-Python form a lookup reads one row with. Both
must invert the packing, and agree on which numbers are no packing at all."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ttt_solver.solver.passes import Solved
from ttt_solver.store.row_data import Row, cells_of, data_limit, pack_data, unpack_data, unpack_rows, well_formed

CELLS = 25  # the widest board: the best-moves mask takes 25 bits
# (value, remoteness, best, orbit, wins, draws, losses)
ROW = st.tuples(
    st.integers(-1, 1), st.integers(0, CELLS), st.integers(0, (1 << CELLS) - 1), st.integers(1, 8),
    st.integers(0, CELLS), st.integers(0, CELLS), st.integers(0, CELLS),
)  # fmt: skip


def solved_of(rows: list[tuple[int, ...]]) -> Solved:
    value, remoteness, best, orbit, wins, draws, losses = (list(column) for column in zip(*rows, strict=True))
    return Solved(
        np.arange(len(rows), dtype=np.int64), np.array(value, np.int8), np.array(remoteness, np.int8),
        np.array(best, np.uint32), np.zeros(len(rows), np.uint32), np.array(orbit, np.int8),
        np.array(wins, np.uint8), np.array(draws, np.uint8), np.array(losses, np.uint8),
    )  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(st.lists(ROW, min_size=1, max_size=50))
def test_both_unpackings_invert_the_packing(rows):
    solved = solved_of(rows)
    data = pack_data(solved)
    assert int(data.max()) < data_limit(CELLS) and well_formed(data).all()
    unpacked = unpack_rows(solved.code, data)
    for name in Solved._fields:
        assert np.array_equal(getattr(unpacked, name), getattr(solved, name)), name
        assert getattr(unpacked, name).dtype == getattr(solved, name).dtype, name
    unpacked_rows = [unpack_data(int(d)) for d in data]
    assert unpacked_rows == [(v, r, b, w, d, lo) for v, r, b, _o, w, d, lo in rows]
    assert all(type(row) is Row for row in unpacked_rows)  # the lookup's row, built once


@given(st.integers(-(1 << 62), (1 << 51) - 1))
def test_both_unpackings_refuse_the_same_numbers(data):
    array_says = bool(well_formed(np.array([data], dtype=np.int64))[0])
    assert array_says == (unpack_data(data) is not None)


@given(st.integers(0, (1 << 32) - 1))
def test_the_cells_of_a_mask_are_its_set_bits_ascending(mask):
    assert cells_of(mask) == tuple(cell for cell in range(32) if mask >> cell & 1)
