"""The result bytes made through files with one writer each (what a distributed engine's tasks
do: ttt_solver/engine/shuffle.py) are the bytes ``spread`` writes in one process, tier by tier,
whatever the chunks and ranges."""

from __future__ import annotations

import numpy as np
import pytest

from ttt_solver.engine.shuffle import FEW_RANGES, gather_range, join_ranges, range_bounds, write_images
from ttt_solver.engine.storage import Storage
from ttt_solver.errors import EngineError
from ttt_solver.game.variant import Variant
from ttt_solver.solver import checksums
from ttt_solver.solver.passes import new_tier, solve_chunk, spread
from ttt_solver.solver.tiers import tiers


# file://: a storage URL, through fsspec (which the [dask] extra brings)
@pytest.mark.parametrize("url", [False, pytest.param(True, marks=pytest.mark.dask)], ids=["folder", "url"])
@pytest.mark.parametrize(
    "name, chunk, memory, widest",
    [("3x4k3", 1_000, 1_400, 50), ("3x3-misere", 50, 60, 56), ("4x3k3", 10**6, 10**9, 1)],
)  # widest: the most ranges of a tier (3x4k3 at 1,400: ranges of 700 boards at most, 34,650 boards in its widest tier)
def test_the_shuffled_result_bytes_are_spreads(tmp_path, name, chunk, memory, widest, url):
    storage = Storage(f"file://{tmp_path}" if url else str(tmp_path))
    found = tiers(Variant.parse(name))
    below = None
    ranges_seen = []
    for ply in range(found.variant.cells, -1, -1):
        size = found.size(ply)
        starts = list(range(0, size, chunk))
        bounds = range_bounds(size, memory, len(starts))
        expected, groups = new_tier(found, ply), []
        for start in starts:
            solved = solve_chunk(found, ply, start, min(size, start + chunk), below)
            spread(found, ply, solved, expected)
            with storage.create(f"{ply}-{start}.bin") as file:
                file.write(b"rows first")  # a chunk's file holds its rows before its images
                groups.append(write_images(found, ply, solved, bounds, file))
        ranges = [f"{ply}-range-{first}.bin" for first in bounds[:-1]]
        for r, range_name in enumerate(ranges):
            parts = [(f"{ply}-{start}.bin", group[r], group[r + 1]) for start, group in zip(starts, groups)]
            gather_range(storage, parts, bounds[r + 1] - bounds[r], range_name)
        join_ranges(storage, ranges, bounds, str(tmp_path / f"{ply}-results.bin"))
        made = np.fromfile(tmp_path / f"{ply}-results.bin", dtype=np.uint8)
        assert np.array_equal(made, expected), (name, ply)  # the tier's bytes and one more
        assert checksums.of_file(str(tmp_path / f"{ply}-results.bin")) == checksums.of_bytes(expected)
        ranges_seen.append(len(ranges))
        below = expected
    assert max(ranges_seen) == widest
    if name == "3x4k3":  # a tier of one range, tiers split a pass per range, tiers split by a sort
        assert 1 in ranges_seen and any(1 < n <= FEW_RANGES for n in ranges_seen) and widest > FEW_RANGES


def test_ranges_are_of_one_width_within_the_budget_and_at_least_the_workers():
    assert range_bounds(10, 8, 1) == [0, 4, 8, 10]  # at most 4 boards (half of 8 bytes): 3 ranges
    assert range_bounds(10, 1000, 3) == [0, 4, 8, 10]  # at least 3 ranges
    assert range_bounds(10, 1000, 1) == [0, 10]
    assert range_bounds(2, 1000, 4) == [0, 1, 2]  # no empty range
    assert range_bounds(1, 1000, 1) == [0, 1]


@pytest.mark.parametrize("length", [3, 5])
def test_a_range_file_cut_or_grown_since_its_task_wrote_it_is_refused_in_one_line(tmp_path, length):
    storage = Storage(str(tmp_path))
    for name, data in (("a.bin", b"\x01\x02"), ("b.bin", bytes(length))):
        with storage.create(name) as file:
            file.write(data)
    with pytest.raises(EngineError, match=rf"b\.bin holds {length} bytes, not the 4 its task wrote$"):
        join_ranges(storage, ["a.bin", "b.bin"], [0, 2, 6], str(tmp_path / "joined.bin"))
