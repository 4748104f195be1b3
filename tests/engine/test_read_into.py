"""A column's rows read into memory the caller reuses: from its file where it is memory-mapped
(its pages never mapped into the process), from the array otherwise; a file cut short is an
error, not rows of zeros."""

from __future__ import annotations

import numpy as np
import pytest

from ttt_solver.engine import read_into, read_slice


def test_read_into_copies_the_rows_of_a_mapped_column_or_an_array(tmp_path):
    values = np.arange(1000, dtype="<i8") * 3
    values.tofile(tmp_path / "code.bin")
    mapped = np.memmap(tmp_path / "code.bin", dtype="<i8", mode="r", shape=(1000,))
    for column in (mapped, values):
        out = np.full(40, -1, dtype="<i8")
        read_into(column, 17, out[5:35])
        assert np.array_equal(out[5:35], values[17:47]) and (out[:5] == -1).all() and (out[35:] == -1).all()
        assert np.array_equal(out[5:35], read_slice(column, 17, 47))


def test_read_into_a_file_cut_short_is_an_error(tmp_path):
    np.arange(1000, dtype="<i8").tofile(tmp_path / "code.bin")
    mapped = np.memmap(tmp_path / "code.bin", dtype="<i8", mode="r", shape=(1000,))
    with open(tmp_path / "code.bin", "r+b") as file:
        file.truncate(800 * 8)
    with pytest.raises(OSError, match="shorter than its 1,000 rows"):
        read_into(mapped, 790, np.empty(20, dtype="<i8"))
