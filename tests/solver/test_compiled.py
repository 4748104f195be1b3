"""The compiled passes (the C extension, ``kernels.c``) against numpy's: the same tables, byte
for byte, in memory, through a build's engine and on random chunks of random tiers; and what
the loops do with arrays they cannot take."""

from __future__ import annotations

import os
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import extra_markers as extras

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
from ttt_solver.solver.passes import compiled_passes
from ttt_solver.system.compiled_loops import VARIABLE as PASSES_VARIABLE

pytestmark = pytest.mark.compiled
compiled_module = pytest.importorskip("ttt_solver.solver.compiled", reason=extras.NOT_BUILT, exc_type=ImportError)
kernels = compiled_module.kernels

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
    """Within it, the passes are the compiled ones."""
    return mock.patch.dict(os.environ, {PASSES_VARIABLE: "compiled"})


def assert_same(compiled: Solved, plain: Solved) -> None:
    for (name, _dtype), ours, theirs in zip(COLUMNS, compiled, plain, strict=True):
        assert ours.dtype == theirs.dtype and np.array_equal(ours, theirs), name


def test_the_compiled_passes_are_chosen_for_every_tier_unless_numpy_is_asked_for():
    with mock.patch.dict(os.environ, {PASSES_VARIABLE: ""}):
        assert compiled_passes() is not None  # for every tier: loading them costs nothing
    with numpy_passes():
        assert compiled_passes() is None


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


def test_the_loops_refuse_arrays_of_the_wrong_type_or_size_with_a_typed_error():
    # The loops read their arrays in place: one of another element type, too short, or not
    # contiguous is refused before the loop runs, never read past its end.
    out, ranks, results = np.zeros(8, dtype=np.uint8), np.array([1, 7], dtype=np.uint32), np.array([3, 4], np.uint8)
    kernels.scatter(out, ranks, results)
    assert out.tolist() == [0, 3, 0, 0, 0, 0, 0, 4]
    with pytest.raises(TypeError, match="unsigned 4-byte integers expected"):
        kernels.scatter(out, ranks.astype(np.int64), results)
    with pytest.raises(TypeError, match="unsigned 1-byte integers expected"):
        kernels.scatter(out.view(np.int8), ranks, results)
    with pytest.raises(ValueError, match="results: 1 elements, 2 expected at least"):
        kernels.scatter(out, ranks, results[:1])
    with pytest.raises(IndexError, match="beyond out"):
        kernels.scatter(out[:7], ranks, results)
    with pytest.raises(ValueError, match="not C-contiguous"):  # numpy's own refusal of the buffer asked for
        kernels.scatter(out, np.zeros(8, dtype=np.uint32)[::2], np.zeros(4, dtype=np.uint8))
    with pytest.raises(ValueError, match="read-only"):  # nothing is written into it
        kernels.scatter(np.frombuffer(bytes(8), dtype=np.uint8), ranks, results)


def test_a_chunk_beyond_its_tier_is_refused_before_solving():
    found = tiers(Variant.parse("3x3"))
    boards = (found.offsets[4], found.partner[4], found.class_start, found.lows, 0)
    out = tuple(np.empty(found.size(4) + 1, dtype=dtype) for _name, dtype in COLUMNS)
    valuing = compiled_module._valuing(found, 4, new_tier(found, 5))
    assert kernels.solve_ranks(4, 0, found.size(4), boards, *valuing, out) > 0
    with pytest.raises(ValueError, match="ranks out of range"):
        kernels.solve_ranks(4, 0, found.size(4) + 1, boards, *valuing, out)
