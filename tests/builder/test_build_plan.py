"""A build's plan (``ttt-lookup build --plan``) and the refusal of a build this machine cannot
hold alone: exact tier sizes, estimates close to a solved variant's counts, and nothing written."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from ttt_solver.builder import plan as plans
from ttt_solver.builder.build import build
from ttt_solver.cli import cli
from ttt_solver.errors import MachineTooSmallError
from ttt_solver.game.variant import Variant
from ttt_solver.solver.tiers import Tiers
from ttt_solver.store import missing_database
from ttt_solver.system import cost_model
from ttt_solver.system.cost_model import duration
from ttt_solver.system.memory import size_text

GIB = 1 << 30


def invoke(*args: str):
    return CliRunner(env={"TTT_DB": None}).invoke(cli, list(args))


def test_the_plan_counts_each_tier_exactly_and_estimates_its_positions(solved):
    variant = Variant.parse("4x4")
    found = plans.make_plan(variant, ".")
    assert [t.ply for t in found.tiers] == list(range(16, -1, -1))
    assert [t.boards for t in found.tiers] == Tiers(variant).sizes[::-1].tolist()
    tables = solved("4x4")
    ply = tables.ply.astype(np.int64)
    canonical = np.bincount(ply, minlength=17)[::-1]
    legal = np.bincount(ply, weights=tables.orbit, minlength=17)[::-1]
    assert sum(t.canonical for t in found.tiers) == pytest.approx(canonical.sum(), rel=0.03)
    assert sum(t.legal for t in found.tiers) == pytest.approx(legal.sum(), rel=0.03)
    for tier, rows in zip(found.tiers, canonical):
        if tier.boards <= 20:  # every board of a small tier is drawn, most of them more than once
            assert tier.canonical == pytest.approx(rows, abs=3)
    assert found.tiers[0].result_bytes == found.tiers[0].boards + 1


def test_plan_prints_every_tier_and_the_totals_of_5x5k4():
    result = invoke("build", "--variant", "5x5k4", "--plan")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("plan for 5x5k4: 25 cells, 8 symmetries, 26 tiers")
    table = lines[2:28]
    assert [int(line.split()[0]) for line in table] == list(range(25, -1, -1))
    assert table[8].split()[1] == table[9].split()[1] == "26,293,088,250"  # the widest tiers, 17 and 16 pieces
    assert sum(int(line.split()[1].replace(",", "")) for line in table[:3]) == 478_427_600  # the last three
    assert lines[28].startswith("total: 161,995,031,226 boards")
    assert [line.split(":")[0] for line in lines[29:]] == ["CPU", "memory", "shuffle", "disk", "this machine"]


def test_the_plan_in_json_holds_what_its_text_says(monkeypatch):
    monkeypatch.setattr(cost_model, "machine_memory", lambda: 16 * GIB)
    monkeypatch.setattr(plans, "machine_memory", lambda: 16 * GIB)
    monkeypatch.setattr(plans, "free_disk", lambda _folder: 2048 * GIB)  # the same in both runs
    text = invoke("build", "--variant", "5x5k4", "--plan").stdout.splitlines()
    result = invoke("build", "--variant", "5x5k4", "--plan", "--json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert [tier["ply"] for tier in found["tiers"]] == list(range(25, -1, -1))
    assert found["tiers"][8]["boards"] == found["tiers"][9]["boards"] == 26_293_088_250
    assert text[28] == (
        f"total: {found['boards']:,} boards, about {found['legal']:,} legal positions in {found['rows']:,} canonical rows"
    )
    assert f"about {duration(found['cpu_seconds'])}," in text[29]
    assert f"about {size_text(found['disk_bytes'])} (" in text[32]
    assert found["machine"] == {
        "memory_bytes": 16 * GIB, "free_disk_bytes": 2048 * GIB, "problem": "a build of 5x5k4 keeps at least 51.6GB of memory"
    }  # fmt: skip
    refused = invoke("build", "--variant", "5x5k4", "--json", "--db", "/nonexistent/5x5k4.sqlite")
    assert refused.exit_code == 2 and json.loads(refused.stdout) == found  # a refusal's plan in JSON too


def test_a_build_this_machine_cannot_hold_is_refused_writing_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(cost_model, "machine_memory", lambda: 16 * GIB)  # 5x5k4 needs 52 GB, whatever the machine
    monkeypatch.setattr(plans, "machine_memory", lambda: 16 * GIB)
    target = tmp_path / "out" / "5x5k4.sqlite"
    result = invoke("build", "--variant", "5x5k4", "--db", str(target))
    assert result.exit_code == 2
    assert result.stderr == (
        "Error: cannot build 5x5k4 on this machine alone: a build of 5x5k4 keeps at least 51.6GB of memory;"
        " build it on a cluster with: ttt-lookup build --variant 5x5k4 --engine dask [--address ADDRESS]\n"
    )
    assert result.stdout.startswith("plan for 5x5k4") and "this machine: 16GB of memory" in result.stdout
    assert list(tmp_path.iterdir()) == []  # not even the target's folder


def test_the_plan_says_when_the_disk_is_too_small(monkeypatch):
    monkeypatch.setattr(plans, "free_disk", lambda _folder: 1 * GIB)  # 3x7k4 writes about 30 GB
    found = plans.make_plan(Variant.parse("3x7k4"), ".")
    assert found.free_disk == 1 * GIB
    assert re.fullmatch(r"a build of 3x7k4 writes about [0-9.]+GB to the disk", found.problem() or "")
    assert found.lines()[-1].endswith(f"cannot build it alone ({found.problem()})")


def test_a_missing_database_names_the_engine_where_this_machine_cannot_build_it(monkeypatch):
    monkeypatch.setattr(cost_model, "machine_memory", lambda: 16 * GIB)
    assert "build it with: ttt-lookup build --variant 5x5k4 --engine dask (" in str(
        missing_database.missing_default(Variant.parse("5x5k4"), "5x5k4.sqlite")
    )
    assert "build it with: ttt-lookup build --variant 3x7k4 (" in str(
        missing_database.missing_default(Variant.parse("3x7k4"), "3x7k4.sqlite")
    )
    with pytest.raises(MachineTooSmallError) as raised:
        build(None, Variant.parse("5x5k4"))  # the default target, refused writing nothing
    assert isinstance(raised.value.plan, plans.Plan)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--workers", "2"], "Error: --workers needs --engine\n"),
        (["--address", "tcp://127.0.0.1:1"], "Error: --address needs --engine\n"),
        (
            ["--engine", "dask", "--workers", "2", "--address", "tcp://127.0.0.1:1"],
            "Error: --workers starts a local cluster, --address uses a running one: give one of them\n",
        ),
    ],
)
def test_engine_options_that_do_not_go_together_are_one_error_line(tmp_path, args, message):
    result = invoke("build", "--variant", "3x3", "--db", str(tmp_path / "x.sqlite"), *args)
    assert (result.exit_code, result.stderr) == (2, message)
    assert list(tmp_path.iterdir()) == []


def test_engine_dask_without_the_extra_names_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ttt_solver.engine.engine_dask", None)  # as if dask were not installed
    result = invoke("build", "--variant", "3x3", "--db", str(tmp_path / "x.sqlite"), "--engine", "dask")
    assert result.exit_code == 2
    assert result.stderr == (
        "Error: --engine dask needs the [dask] extra: pip install 'dask[distributed]'"
        " (or, in a source checkout, pip install -e '.[dask]')\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_the_plan_is_no_build(tmp_path: Path):
    result = invoke("build", "--variant", "4x4", "--db", str(tmp_path / "4x4.sqlite"), "--plan")
    assert result.exit_code == 0 and "this machine:" in result.stdout
    assert list(tmp_path.iterdir()) == []
