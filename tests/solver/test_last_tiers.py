"""The last tiers of a variant, solved alone into a scratch folder (``lowest=``, as
``benchmarks/solve_last_tiers.py`` runs them), against an independent brute-force search
(:mod:`support.brute_force`).

The check of 5x5k4's three last tiers (478 million boards: minutes on a cluster) is opt-in
(``-m "not twenty and not last_tiers"`` in pyproject.toml): it reads the scratch folder that
``benchmarks/solve_last_tiers.py`` kept, named by ``$TTT_LAST_TIERS_DIR``, and skips without it::

    nice python benchmarks/solve_last_tiers.py 5x5k4 --tiers 3 --engine dask --workers 2 --folder /work/tmp-5x5/scratch
    TTT_LAST_TIERS_DIR=/work/tmp-5x5/scratch python -m pytest -m last_tiers -q -s

The same check runs in the default run on small variants' last tiers, solved here in seconds.
"""

from __future__ import annotations

import json
import os
from itertools import product

import pytest
from support import brute_force, negamax

from ttt_solver.engine.engines import InProcess
from ttt_solver.engine.scratch import open_scratch
from ttt_solver.engine.solving import solve_tiers
from ttt_solver.game.variant import Variant
from ttt_solver.solver.solve import SOLVER_VERSION
from ttt_solver.system.files import locked

SAMPLES = 1_000


def solve_last_tiers(folder: str, name: str, count: int) -> None:
    variant = Variant.parse(name)
    with locked(folder):
        scratch = open_scratch(folder, variant, {"solver": SOLVER_VERSION, "last_tiers": count})
        solve_tiers(InProcess(), scratch, 1 << 24, lowest=variant.cells - count + 1)


def test_the_brute_force_agrees_with_the_3x3_negamax():
    checked = 0
    for cells in product(" XO", repeat=9):
        x, o = cells.count("X"), cells.count("O")
        if x - o not in (0, 1) or cells.count(" ") > 3 or negamax.has_line(cells, negamax.mover(cells)):
            continue  # illegal, or early (the brute force keeps no memo), or the mover has already won
        text = "".join(cells).replace(" ", ".")
        value, remoteness, _moves = negamax.solve(cells)
        assert brute_force.search(text, 3, 3, 3, False) == (value, remoteness), text
        checked += 1
    assert checked > 500


@pytest.mark.parametrize("name", ["4x4", "3x5k4-misere"])
def test_the_last_tiers_of_a_small_variant_match_a_brute_force_search(tmp_path, name):
    folder = str(tmp_path / "scratch")
    solve_last_tiers(folder, name, 3)
    cells = Variant.parse(name).cells
    assert sorted(os.listdir(folder)) == [
        "lock",
        "manifest.json",
        *(f"tier-{p:02d}" for p in range(cells - 2, cells + 1)),
    ]
    checked = brute_force.check_tiers(folder, SAMPLES)
    assert checked.plies == (cells - 2, cells - 1, cells)
    assert checked.sampled == SAMPLES < checked.rows
    assert min(checked.values.values()) > 0  # wins, draws and losses sampled
    assert checked.wrong == []


def test_a_wrong_value_is_found(tmp_path):
    folder = str(tmp_path / "scratch")
    solve_last_tiers(folder, "4x4", 1)
    values = tmp_path / "scratch" / "tier-16" / "value.bin"
    damaged = bytearray(values.read_bytes())
    damaged[0] = (damaged[0] + 1) % 2  # a draw made a win, or a win a draw (full boards: no loss for the mover)
    values.write_bytes(bytes(damaged))
    checked = brute_force.check_tiers(folder, len(damaged))
    assert checked.rows == checked.sampled == len(damaged)  # every row of the tier
    assert len(checked.wrong) == 1 and checked.wrong[0].startswith("tier 16 row 0:")


@pytest.mark.last_tiers
@pytest.mark.parametrize("deepest", [False, True], ids=["every tier", "the deepest tier"])
def test_the_tiers_in_the_folder_match_a_brute_force_search(deepest):
    folder = os.environ.get("TTT_LAST_TIERS_DIR")
    if not folder or not os.path.isfile(os.path.join(folder, "manifest.json")):
        pytest.skip(
            "set TTT_LAST_TIERS_DIR to a folder made by: python benchmarks/solve_last_tiers.py 5x5k4 --tiers 3"
            " --engine dask --workers 2 --folder FOLDER"
        )
    with open(os.path.join(folder, "manifest.json")) as file:
        manifest = json.load(file)
    cells = Variant.parse(manifest["variant"]).cells
    checked = brute_force.check_tiers(folder, SAMPLES, deepest=deepest)
    print(
        f"\n{checked.variant}: {'ply' if len(checked.plies) == 1 else 'plies'} {', '.join(map(str, checked.plies))}: {checked.rows:,} canonical rows;"
        f" {checked.sampled:,} sampled, {len(checked.wrong)} differ from the brute-force search"
        f" (its values: {checked.values[1]} wins, {checked.values[0]} draws, {checked.values[-1]} losses)"
    )
    every = tuple(range(cells - manifest["last_tiers"] + 1, cells + 1))
    assert checked.plies == (every[:1] if deepest else every)
    assert checked.sampled == SAMPLES
    assert checked.wrong == [], checked.wrong[:10]
