"""The compiled passes (numba, the ``[fast]`` extra) against numpy's: the same tables, byte for
byte, in memory, through a build's engine and on random chunks of random tiers."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ttt_solver
from ttt_solver import Oracle
from ttt_solver.builder.build import build
from ttt_solver.game.variant import Variant
from ttt_solver.solver import (
    COLUMNS,
    Solved,
    images,
    new_tier,
    positions,
    scatter,
    solve_chunk,
    solve_tables,
    spread,
    tiers,
)
from ttt_solver.solver.passes import LOAD_BOARDS, compiled_passes
from ttt_solver.system.compiled_loops import VARIABLE as PASSES_VARIABLE

pytestmark = pytest.mark.fast

# Every variant of up to 16 cells that the tests build or solve.
BUILT = [
    "2x3", "1x7k3", "1x9k4", "2x4k3", "4x2k3", "2x5k3", "3x3", "3x3-misere", "3x4", "3x4k3", "3x4k3-misere", "4x3k3",
    "4x3k3-misere", "4x4k3", "4x4", "3x5k4", "3x5k4-misere",
]  # fmt: skip
# Random chunks come from these (misère ones among them).
CHUNKED = [Variant.parse(name) for name in ("3x3", "3x3-misere", "2x5k3", "3x4k3", "4x3k3-misere", "4x4")]


def numpy_passes() -> mock._patch[dict[str, str]]:
    """Within it, the passes are numpy's."""
    return mock.patch.dict(os.environ, {PASSES_VARIABLE: "numpy"})


def compiled() -> mock._patch[dict[str, str]]:
    """Within it, the passes are the compiled ones, for a tier of any size."""
    return mock.patch.dict(os.environ, {PASSES_VARIABLE: "compiled"})


def assert_same(compiled: Solved, plain: Solved) -> None:
    for (name, _dtype), ours, theirs in zip(COLUMNS, compiled, plain, strict=True):
        assert ours.dtype == theirs.dtype and np.array_equal(ours, theirs), name


def test_the_compiled_passes_are_chosen_from_the_first_wide_tier_unless_numpy_is_asked_for():
    found = tiers(Variant.parse("4x4"))
    wide = next(ply for ply in range(16, -1, -1) if found.size(ply) >= LOAD_BOARDS)
    assert compiled_passes(found, wide) is not None  # and, numba loaded, for every tier after it
    assert compiled_passes(found, 16) is not None and found.size(16) < LOAD_BOARDS
    with numpy_passes():
        assert compiled_passes(found, wide) is None


@pytest.mark.parametrize("name", BUILT)
def test_every_variant_is_solved_alike_both_ways(name):
    with compiled():
        fast = solve_tables(Variant.parse(name))
    with numpy_passes():
        plain = solve_tables(Variant.parse(name))
    assert_same(fast.solved, plain.solved)


@pytest.mark.parametrize("name", ["3x3-misere", "3x4k3"])
def test_a_build_on_the_engine_has_the_same_digest_both_ways(name, variant_db, tmp_path):
    variant = Variant.parse(name)
    with compiled():
        fast = build(tmp_path / "compiled.sqlite", variant, memory=1 << 20)  # many chunks, by the engine's tasks
    with numpy_passes():
        plain = build(tmp_path / "numpy.sqlite", variant, memory=1 << 20)
    assert fast.digest == plain.digest == Oracle.load(variant_db(name), name).meta["digest"]


@st.composite
def chunks(draw: st.DrawFn) -> tuple[Variant, int, int, int, np.ndarray | None]:
    """A variant, a tier, a chunk of it (up to 3,000 boards) and random result bytes for the tier below."""
    variant = draw(st.sampled_from(CHUNKED))
    found = tiers(variant)
    ply = draw(st.integers(0, variant.cells))
    start = draw(st.integers(0, found.size(ply) - 1))
    stop = draw(st.integers(start + 1, min(found.size(ply), start + 3000)))
    below = None
    if ply < variant.cells:
        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        below = rng.integers(0, 256, found.size(ply + 1) + 1, dtype=np.uint8)  # any byte, NO_POSITION too
        below[-1] = 255
    return variant, ply, start, stop, below


@settings(max_examples=60)
@given(chunks())
def test_a_random_chunk_is_solved_and_spread_alike_both_ways(chunk):
    variant, ply, start, stop, below = chunk
    found = tiers(variant)
    with compiled():
        fast = solve_chunk(found, ply, start, stop, below)
        given_positions = solve_chunk(found, ply, start, stop, below, positions(found, ply, start, stop))
        ranks = [rank for rank, _result in images(found, ply, fast)]
        spread(found, ply, fast, spread_out := new_tier(found, ply))
        scattered = [new_tier(found, ply) for _ in ranks]
        for out, (rank, result) in zip(scattered, images(found, ply, fast)):
            scatter(out, rank.astype(np.uint32), result)
    with numpy_passes():
        plain = solve_chunk(found, ply, start, stop, below)
        assert_same(fast, plain)
        assert_same(given_positions, plain)
        assert all(np.array_equal(a, b) for a, (b, _result) in zip(ranks, images(found, ply, plain), strict=True))
        for out, (rank, result) in zip(scattered, images(found, ply, plain), strict=True):
            scatter(expected := new_tier(found, ply), rank.astype(np.uint32), result)  # a range's gather
            assert np.array_equal(out, expected)
        spread(found, ply, plain, plain_out := new_tier(found, ply))
    assert np.array_equal(spread_out, plain_out)


READ_ONLY = """mount --bind "$SITE" "$SITE" && mount -o remount,ro,bind "$SITE" || exit 77
exec "$PYTHON" -c 'from ttt_solver.game.variant import Variant
from ttt_solver.solver import solve_tables
from ttt_solver.solver import tiers
from ttt_solver.solver.passes import compiled_passes
print(len(solve_tables(Variant())), compiled_passes(tiers(Variant()), 0).__file__)'
"""


@pytest.mark.long
def test_a_read_only_installation_with_no_cache_folder_compiles_in_each_process(tmp_path):
    # numba caches next to the module, else in the user's cache folder; with neither writable
    # (nor NUMBA_CACHE_DIR set) it cannot cache, and the passes are compiled by each process.
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("needs root and unshare, to mount the package read-only")
    site = tmp_path / "site"
    shutil.copytree(Path(ttt_solver.__file__).parent, site / "ttt_solver", ignore=shutil.ignore_patterns("__pycache__"))
    unwritable = "/proc/no-such-folder"
    env = {key: value for key, value in os.environ.items() if key != "NUMBA_CACHE_DIR"}
    env |= {"SITE": str(site), "PYTHON": sys.executable, "PYTHONPATH": str(site), "HOME": unwritable}
    env |= {"XDG_CACHE_HOME": unwritable, PASSES_VARIABLE: "compiled"}
    command = ["unshare", "-m", "sh", "-c", READ_ONLY]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    if done.returncode == 77:
        pytest.skip(f"cannot mount here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["765", str(site / "ttt_solver" / "solver" / "compiled.py")]
    assert not list(site.rglob("*.nbi"))  # nothing cached: there was nowhere to
