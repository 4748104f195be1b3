"""The CRC-32 of bytes that follow others, from the two CRC-32s alone (zlib's ``crc32_combine``,
which Python's zlib lacks): the tier record takes each column's CRC-32 once, and the column
file's follows from them, each byte read once."""

from __future__ import annotations

import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ttt_solver.solver import checksums


@given(st.binary(max_size=2000), st.binary(max_size=2000))
def test_the_combined_crc32_is_the_crc32_of_the_bytes_one_after_the_other(first, then):
    for combine in (checksums.crc32_combine, checksums._combined):  # ISA-L's where installed, and zlib's way
        assert combine(zlib.crc32(first), zlib.crc32(then), len(then)) == zlib.crc32(first + then)


@given(st.binary(min_size=1, max_size=3000), st.lists(st.integers(0, 3000), max_size=6))
def test_a_running_crc32_extended_piece_by_piece_is_the_whole_files(data, cuts):
    running, start = checksums.Running(), 0
    for end in [*sorted(cut % (len(data) + 1) for cut in cuts), len(data)]:
        running.extend(zlib.crc32(data[start:end]), end - start)
        start = end
    assert running.entry() == [len(data), f"{zlib.crc32(data):08x}"]


def test_long_pieces_combine_as_zlib_says():
    """A length of many bits (a column of a big chunk)."""
    first, then = bytes(range(256)) * 4099, b"\xa5" * (1 << 20 | 12345)
    assert checksums._combined(zlib.crc32(first), zlib.crc32(then), len(then)) == zlib.crc32(first + then)
    assert checksums._combined(0x12345678, 0, 0) == 0x12345678


@given(st.integers(0, (1 << 32) - 1), st.integers(0, (1 << 32) - 1), st.integers(0, 1 << 62))
def test_lengths_past_what_a_test_can_hash_combine_as_isals_c_code_does(crc, then, length):
    """Lengths of 512 MB and more, where the powers of x the combination uses wrap around."""
    isal = pytest.importorskip("isal.isal_zlib")  # the [fast] extra
    assert checksums._combined(crc, then, length) == isal.crc32_combine(crc, then, length)
