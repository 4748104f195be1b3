"""Charts: the tournament chart and ``stats --plot`` write images, with the numbers they claim."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ttt_solver import Oracle
from ttt_solver.charts.tournament_chart import title, wilson
from ttt_solver.cli import cli
from ttt_solver.players.agents import make_agent
from ttt_solver.players.tournament import run

PNG = b"\x89PNG\r\n\x1a\n"


def test_wilson_interval():
    low, high = wilson(0.5, 100)
    assert (round(low, 4), round(high, 4)) == (0.4038, 0.5962)
    assert wilson(0.0, 2500)[0] == 0.0 and 0 < wilson(0.0, 2500)[1] < 0.002
    assert wilson(0.3, 0) == (0.0, 1.0)


@pytest.fixture(scope="module")
def oracle(db_path) -> Oracle:
    return Oracle.load(db_path)


def test_the_title_gives_the_sample_and_the_seed(oracle):
    agents = [make_agent(spec, oracle) for spec in ("random", "think1", "perfect")]
    sampled = run(agents, oracle, games=50, seed=7)
    assert title(sampled, 7) == (
        "Round robin of 3 agents, 50 sampled games a pair (100 per agent), seed 7\n"
        "accuracy over 4,520 unfinished positions; whiskers: 95% intervals"
    )
    exact = run(agents, oracle, exact=True)
    assert title(exact, None) == "Exact round robin of 3 agents\naccuracy over 4,520 unfinished positions"


@pytest.mark.plot
def test_tournament_chart(db_path, tmp_path):
    chart = tmp_path / "t.png"
    args = ["tournament", "--agents", "random,think1,perfect", "--games", "40", "--seed", "3", "--plot", str(chart)]
    result = CliRunner().invoke(cli, [*args, "--json", "--db", str(db_path)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["seed"] == 3
    assert chart.read_bytes().startswith(PNG)


@pytest.mark.plot
def test_stats_plot(db_path, tmp_path):
    chart = tmp_path / "s.png"
    result = CliRunner().invoke(cli, ["stats", "--plot", str(chart), "--db", str(db_path)])
    assert result.exit_code == 0, result.output
    assert result.stdout.endswith(f"\nchart written to {chart}\n")
    assert chart.read_bytes().startswith(PNG)


def test_stats_plot_counts_every_board_by_ply_value_and_remoteness(db_path):
    from ttt_solver import Oracle
    from ttt_solver.charts.variant_chart import compact, count

    counts = count(Oracle.load(db_path).arrays())
    assert sum(counts.values()) == 5478
    assert counts[(0, 0, 9)] == 1  # the empty board: a draw, nine plies to the end
    assert sum(n for (ply, _, _), n in counts.items() if ply == 9) == 78
    assert [compact(n) for n in (999, 1234, 12_345, 2_345_678)] == ["999", "1.2k", "12k", "2.3M"]


def test_stats_plot_without_matplotlib_is_one_error_line(db_path, monkeypatch, tmp_path):
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    result = CliRunner().invoke(cli, ["stats", "--plot", str(tmp_path / "s.png"), "--db", str(db_path)])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == (
        "Error: --plot: drawing a chart needs matplotlib, from the [plot] extra: pip install matplotlib"
        " (or, in a source checkout, pip install -e '.[plot]')\n"
    )
