"""The streaming solver on small variants with a tiny memory budget (many chunks, every tier
spilled to its scratch folder), stopped and resumed, checked row by row against the in-memory
solve and an independent solver; and the tier index, on every board shape up to 20 cells."""

from __future__ import annotations

import os
import random
from math import comb
from pathlib import Path

import numpy as np
import pytest
from support.layered import solve_tables as layered_tables

from ttt_solver.builder import merge
from ttt_solver.builder.merge import merge_scratch
from ttt_solver.engine.engines import InProcess
from ttt_solver.engine.scratch import open_scratch
from ttt_solver.engine.solving import solve_tiers
from ttt_solver.game import array_rules, codec
from ttt_solver.game.variant import Variant
from ttt_solver.solver import StoredRows
from ttt_solver.solver.solve import MIN_CHUNK, chunk_boards, solve_tables
from ttt_solver.solver.tiers import tiers
from ttt_solver.system.files import locked

TINY = 1 << 16  # bytes: chunks of a few hundred boards
STREAMED = ["3x3", "3x3-misere", "3x4k3", "4x3k3-misere", "2x5k3", "1x7k3"]
SHAPES = [(r, c) for r in range(1, 21) for c in range(1, 21) if 3 <= max(r, c) and r * c <= 20]


def solve_streaming(variant: Variant, folder, memory: int = TINY):
    with locked(str(folder)):
        scratch = open_scratch(str(folder), variant, {"solver": "test"})
        solve_tiers(InProcess(), scratch, memory)
        return scratch, merge_scratch(scratch, memory)


@pytest.mark.parametrize("rows,cols", SHAPES)
def test_the_tiers_number_every_board_with_legal_counts_in_code_order(rows, cols):
    variant = Variant(rows, cols, max(rows, cols))
    found = tiers(variant)
    n = variant.cells
    assert found.sizes.tolist() == [comb(n, (p + 1) // 2) * comb(n - (p + 1) // 2, p // 2) for p in range(n + 1)]
    rng = random.Random(n)
    for ply in range(n + 1):
        size = found.size(ply)
        start = rng.randrange(size)
        stop = min(size, start + rng.randrange(1, 5000))
        high, low = found.boards(ply, start, stop)
        assert found.ranks(ply, high, low).tolist() == list(range(start, stop))
        codes = high * array_rules.geometry(variant).base + low
        assert (np.diff(codes) > 0).all()
        digits = array_rules.digits(codes, variant)
        assert ((digits == codec.X_DIGIT).sum(axis=1) == (ply + 1) // 2).all()
        assert ((digits == codec.O_DIGIT).sum(axis=1) == ply // 2).all()


@pytest.mark.parametrize("name", STREAMED)
def test_streamed_with_a_tiny_budget_equals_the_in_memory_solve_and_an_independent_solver(name, tmp_path):
    variant = Variant.parse(name)
    if max(tiers(variant).sizes) > 4 * MIN_CHUNK:
        assert chunk_boards(variant, TINY) < max(tiers(variant).sizes) // 4  # many chunks a tier
    _scratch, merged = solve_streaming(variant, tmp_path / "scratch")
    memory = solve_tables(variant)
    held_rows = memory.solved.stored()  # a build keeps every column but preferred
    for column, streamed, held in zip(held_rows._fields, merged, held_rows, strict=True):
        assert np.array_equal(np.asarray(streamed), held), column
    independent = layered_tables(variant)
    assert np.array_equal(memory.codes, independent.codes)
    for column in ("value", "remoteness", "best", "orbit", "wins", "draws", "losses"):
        assert np.array_equal(getattr(memory, column), getattr(independent, column)), column
    through_files = merge.held_bytes(len(merged)) > TINY // 2  # else held in memory: no merged/
    assert merge.is_mapped(merged) == through_files
    assert sorted(os.listdir(tmp_path / "scratch")) == [
        "lock", "manifest.json", *(["merged"] if through_files else []), *(f"tier-{p:02d}" for p in range(variant.cells + 1))
    ]  # fmt: skip


class Stop(Exception):
    pass


@pytest.mark.long
@pytest.mark.parametrize("seed", range(6))
def test_a_stopped_solve_resumes_from_the_last_finished_tier(tmp_path, seed):
    """Stopped at a random chunk of a random phase, again and again: the solve goes on from
    where it was, and ends with what an uninterrupted solve gives."""
    variant = Variant.parse("3x4k3")
    folder = str(tmp_path / "scratch")
    rng = random.Random(seed)
    total = 0

    def stopping(phase: str, done: int, _all: int) -> None:
        nonlocal total
        total += 1
        if rng.random() < 0.02:
            raise Stop(phase)

    notes: list[str] = []
    for _attempt in range(200):
        try:
            with locked(folder):
                scratch = open_scratch(folder, variant, {"solver": "test"})
                solve_tiers(InProcess(), scratch, TINY, notes.append, stopping)
                merged = merge_scratch(scratch, TINY, stopping)
            break
        except Stop:
            continue
    else:
        pytest.fail("never finished")
    expected = solve_tables(variant).solved.stored()
    assert all(np.array_equal(np.asarray(a), b) for a, b in zip(merged, expected, strict=True))
    assert any("resuming" in note for note in notes)


def test_a_scratch_folder_of_another_variant_or_version_is_not_reused(tmp_path):
    folder = tmp_path / "scratch"
    solve_streaming(Variant.parse("3x3"), folder)
    with locked(str(folder)):
        scratch = open_scratch(str(folder), Variant.parse("3x3-misere"), {"solver": "test"})
        assert not any(scratch.finished(p) for p in range(10))
    with locked(str(folder)):
        scratch = open_scratch(str(folder), Variant.parse("3x3-misere"), {"solver": "other"})
        assert not any(scratch.finished(p) for p in range(10))


def test_a_removal_stopped_half_way_leaves_a_folder_no_build_resumes_from(tmp_path, monkeypatch):
    """The build renames its database into place, then removes the folder; killed during the
    removal, it leaves some tiers and not others. The manifest goes first, so the next build
    starts afresh instead of resuming over missing tiers."""
    import shutil

    variant = Variant.parse("3x3")
    folder = tmp_path / "scratch"
    scratch, _merged = solve_streaming(variant, folder)

    def killed_half_way(path: str, ignore_errors: bool = False) -> None:
        for name in sorted(os.listdir(path))[::2]:  # some of it gone, then the kill
            target = os.path.join(path, name)
            shutil.rmtree(target) if os.path.isdir(target) else os.remove(target)
        raise Stop("killed")

    with monkeypatch.context() as patched:
        patched.setattr(shutil, "rmtree", killed_half_way)
        with pytest.raises(Stop):
            scratch.remove()
    assert "manifest.json" not in os.listdir(folder) and any(n.startswith("tier-") for n in os.listdir(folder))
    with locked(str(folder)):
        again = open_scratch(str(folder), variant, {"solver": "test"})
        assert not any(again.finished(p) for p in range(variant.cells + 1))
    _scratch, merged = solve_streaming(variant, folder)
    assert all(
        np.array_equal(np.asarray(a), b) for a, b in zip(merged, solve_tables(variant).solved.stored(), strict=True)
    )


def merged_under(tmp_path: Path, budgets: list[int]) -> list[StoredRows]:
    """3x4k3's rows merged under each of ``budgets`` in turn (the ones held first): each held in
    memory, with no ``merged/`` made, or mapped from the files of ``merged/``."""
    folder = str(tmp_path / "scratch")
    found = []
    with locked(folder):
        scratch = open_scratch(folder, Variant.parse("3x4k3"), {"solver": "test"})
        solve_tiers(InProcess(), scratch, 1 << 30)
        for budget in budgets:
            rows = merge_scratch(scratch, budget)
            mapped = os.path.isdir(scratch.file("merged"))
            assert isinstance(rows.code, np.memmap) == mapped == merge.is_mapped(rows)
            found.append(rows)
    return found


def test_a_small_merge_is_held_in_memory_and_a_big_one_goes_through_files(tmp_path):
    """Under a budget that holds them, a small variant's rows are merged in memory (nothing
    to resume, and no files to write and hash); under a tiny one, through ``merged/``."""
    held, streamed = merged_under(tmp_path, [1 << 30, TINY])
    assert not merge.is_mapped(held) and merge.is_mapped(streamed)
    assert all(np.array_equal(np.asarray(a), b) for a, b in zip(streamed, held, strict=True))


def test_a_merge_is_held_where_its_rows_at_their_own_bytes_fit_half_the_budget(tmp_path, monkeypatch):
    """The rows held count their own 18 bytes (and a block's copies), not a chunk's 160 bytes a
    board: 3x4k3's 28,275 rows and three blocks of 3,000 take 671 KB so, held under a budget
    of twice that and merged through files two bytes below it. Merged a few thousand rows at a
    time, they are the rows merged through files."""
    monkeypatch.setattr(merge, "HELD_BLOCK", 3000)
    held_bytes = (28_275 + 3 * 3000) * 18
    assert merge.held_bytes(28_275) == held_bytes
    held, streamed = merged_under(tmp_path, [2 * held_bytes, 2 * held_bytes - 2])
    assert merge.is_mapped(streamed) and not merge.is_mapped(held)
    assert all(np.array_equal(np.asarray(a), b) for a, b in zip(streamed, held, strict=True))
