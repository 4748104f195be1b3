"""One cost model: the plan, the disk check, the refusal, the up-front line and the error of a
missing database all scale the same measured constants, and none is defined twice."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import ttt_solver
from ttt_solver.builder import disk
from ttt_solver.builder.plan import make_plan
from ttt_solver.game.variant import Variant
from ttt_solver.solver import passes, task_boards
from ttt_solver.store.missing_database import missing_default
from ttt_solver.system import compiled_loops, cost_model
from ttt_solver.system.cost_model import estimate, rough_rows, tier_sizes

PACKAGE = Path(ttt_solver.__file__).parent
CONSTANTS = [name for name in vars(cost_model) if re.fullmatch(r"[A-Z][A-Z_]+", name) and name != "TYPE_CHECKING"]


def test_every_build_counts_its_scratch_folder_however_small():
    """Every build solves into a scratch folder: the estimate of 4x4 (16 cells) said none."""
    for name in ("3x3", "4x4"):
        variant = Variant.parse(name)
        found = estimate(variant)
        assert found.disk >= rough_rows(variant) * cost_model.SCRATCH_ROW_BYTES + found.file > found.file > 0
        assert disk.estimate(variant) == found.disk
    assert f"{estimate(Variant.parse('4x4'))}" in str(missing_default(Variant.parse("4x4"), "4x4.sqlite"))
    assert "of disk at the peak" in str(missing_default(Variant.parse("4x4"), "4x4.sqlite"))


# The plan samples each tier's canonical rows; the disk check and the error of a missing database
# count them roughly (the boards over the symmetries, microseconds): 5x5k4's boards hold more
# illegal ones, so its rough rows are 21% more (4x4: 4%, 3x7k4: 6%), as its boards are than its
# legal positions, which the error counts all legal.
@pytest.mark.parametrize(("name", "rows_off"), [("4x4", 0.04), ("3x7k4", 0.06), ("5x5k4", 0.21)])
def test_the_plan_the_disk_check_and_the_missing_database_agree(name, rows_off):
    variant = Variant.parse(name)
    plan, cost = make_plan(variant, "."), estimate(variant)
    assert plan.rows == pytest.approx(rough_rows(variant), rel=rows_off + 0.01)
    assert plan.cpu_seconds == cost_model.build_seconds(variant, plan.legal, plan.rows)
    exchanged = max(tier.legal for tier in plan.tiers)
    assert plan.disk_bytes == cost_model.disk_bytes(plan.rows, max(tier_sizes(variant)), exchanged)
    assert (plan.build_memory, plan.worker_memory) == (cost.memory, cost_model.worker_memory(variant))
    assert estimate(variant, plan.legal, plan.rows, exchanged) == (
        plan.cpu_seconds,
        plan.build_memory,
        plan.disk_bytes,
        cost_model.file_bytes(plan.rows),
    )
    assert cost.disk == disk.estimate(variant) == pytest.approx(plan.disk_bytes, rel=rows_off + 0.01)
    assert cost.seconds == pytest.approx(plan.cpu_seconds, rel=rows_off + 0.02)  # every board counted legal
    assert f"({cost})" in str(missing_default(variant, f"{name}.sqlite"))


def test_the_plan_prints_the_model_s_numbers():
    plan = make_plan(Variant.parse("3x7k4"), ".")
    lines = "\n".join(plan.lines())
    assert f"CPU: about {cost_model.duration(plan.cpu_seconds)}, every process counted" in lines
    last = plan.tiers[0]
    assert last.file_bytes == cost_model.file_bytes(last.canonical)
    assert last.scratch_bytes == cost_model.scratch_bytes(last.canonical, last.boards)


def test_a_board_turned_costs_the_same():
    assert estimate(Variant.parse("6x3k4")) == estimate(Variant.parse("3x6k4"))


def test_the_solver_sizes_its_chunks_by_the_model():
    assert task_boards(1 << 20) == (1 << 20) // cost_model.BYTES_PER_BOARD
    assert task_boards(1 << 40) == cost_model.MAX_CHUNK


@pytest.mark.parametrize("constant", CONSTANTS)
def test_no_cost_constant_is_defined_twice(constant):
    assert len(CONSTANTS) >= 11
    defined = [
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if re.search(rf"^\s*{constant}\s*(:[^=]+)?=", path.read_text(), re.MULTILINE)
    ]
    assert defined == ["system/cost_model.py"]


def test_a_cost_in_words():
    found = cost_model.Cost(29.4, 660 << 20, 1288490189, 372 << 20)
    assert str(found) == "about 29 s of CPU, 660MB of memory, 1.2GB of disk at the peak and a 372MB file"
    assert str(found._replace(seconds=0.4)).startswith("under 1 s of CPU, ")


def test_the_exchange_is_costed_at_the_size_of_an_image():
    """A tier's images wait in the exchange until their ranges are gathered: the disk peak."""
    from ttt_solver.engine.shuffle import IMAGE_BYTES

    assert cost_model.EXCHANGE_BYTES == IMAGE_BYTES
    assert cost_model.disk_bytes(10, 100, 40) - cost_model.disk_bytes(10, 100, 0) == 40 * IMAGE_BYTES


@pytest.mark.parametrize("asked", ["numpy", "compiled"])
def test_the_solve_is_costed_for_the_passes_that_will_run(monkeypatch, asked):
    monkeypatch.setenv(compiled_loops.VARIABLE, asked)
    compiled = compiled_loops.installed()
    assert compiled == (asked == "compiled" and passes.compiled is not None)  # the extension was built
    each = cost_model.SOLVE_SECONDS_COMPILED if compiled else cost_model.SOLVE_SECONDS
    assert cost_model.solve_seconds(1_000_000) == pytest.approx(1_000_000 * each)
    lines = "\n".join(make_plan(Variant.parse("3x6k4"), ".").lines())
    assert ("with the compiled passes" if compiled else "with numpy's passes") in lines
