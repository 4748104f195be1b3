"""The columns a merge held in memory fills: in memory before their first write (one mapping
populated at once: written a page at a time, each first write of numpy's arrays, huge pages,
had the system compact memory in a build), and merged into code order from sorted runs."""

from __future__ import annotations

import mmap
import random
import sys

import numpy as np
import pytest

from ttt_solver.builder import merge
from ttt_solver.solver import STORED_COLUMNS, STORED_ROW_BYTES, StoredRows

ROWS = 1 << 20  # 18 MB of columns


def resident_bytes() -> int:
    """The bytes of this process in memory (Linux's ``/proc``)."""
    with open("/proc/self/statm") as file:
        return int(file.read().split()[1]) * mmap.PAGESIZE


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="MAP_POPULATE and /proc are Linux's")
def test_the_held_columns_are_in_memory_before_their_first_write():
    before = resident_bytes()
    columns = merge._populated_columns(ROWS)
    assert resident_bytes() - before >= ROWS * STORED_ROW_BYTES  # every page given; none written yet
    assert [(len(column), column.dtype) for column in columns] == [
        (ROWS, np.dtype(dtype)) for _name, dtype in STORED_COLUMNS
    ]
    for number, column in enumerate(columns):  # writable, apart from each other, aligned
        column[:] = number
        assert column.flags.writeable and column.ctypes.data % column.itemsize == 0
    assert [int(column[0]) for column in columns] == list(range(len(STORED_COLUMNS)))
    assert [int(column[-1]) for column in columns] == list(range(len(STORED_COLUMNS)))


def test_merge_held_puts_sorted_runs_of_disjoint_codes_in_code_order(monkeypatch):
    """Random disjoint runs, a few hundred rows to a block: every column follows its code."""
    monkeypatch.setattr(merge, "HELD_BLOCK", 300)
    shuffled = random.Random(40)
    codes = np.array(shuffled.sample(range(100_000), 5_000), dtype=np.int64)
    tier = np.array([shuffled.randrange(12) for _ in codes])
    runs = [runs_of(np.sort(codes[tier == number])) for number in range(12)]
    merged = merge.merge_held(runs, len(codes))
    expected = runs_of(np.sort(codes))
    assert all(np.array_equal(found, wanted) for found, wanted in zip(merged, expected))


def runs_of(codes: np.ndarray) -> StoredRows:
    """Rows of ``codes`` whose every column is a function of the code."""
    return StoredRows(
        *(codes.astype(dtype) if name == "code" else (codes * 7 % 101).astype(dtype) for name, dtype in STORED_COLUMNS)
    )


def test_the_cuts_sample_a_tier_file_a_code_at_a_time_where_samples_are_far_apart(tmp_path, monkeypatch):
    """Samples far apart are read one by one from the file (no piece of the column read
    whole), samples close together a piece at a time: the same codes either way."""
    codes = np.cumsum(np.random.default_rng(40).integers(1, 9, size=100_003)).astype(np.int64)
    codes.tofile(tmp_path / "code.bin")
    column = np.memmap(tmp_path / "code.bin", dtype=np.int64, mode="r", shape=(len(codes),))
    assert np.array_equal(merge._samples(column, 1000), codes[::1000])  # pieces
    monkeypatch.setattr(merge, "read_slice", refused)
    for step in (merge.SAMPLE_GAP, 3 * merge.SAMPLE_GAP + 1, len(codes), 2 * len(codes)):
        assert np.array_equal(merge._samples(column, step), codes[::step])


def refused(*args: object) -> np.ndarray:
    raise AssertionError("a piece of the column read whole")
