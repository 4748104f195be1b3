"""``ttt-lookup compare`` and ``ttt-lookup tournament``: output, JSON contract, every error path."""

from __future__ import annotations

import json
import re
import sys

import pytest
from click.testing import CliRunner
from support.terminal import drawn_bars

from ttt_solver.cli import cli, contests

QUICK = "random,think1,perfect"


@pytest.fixture(scope="module")
def db(db_path) -> str:
    return str(db_path)


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_compare_sampled_json():
    result = run("compare", "think1", "random", "--games", "200", "--seed", "1", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert list(data) == ["a", "b", "exact", "games", "a_as_x", "a_as_o", "total", "seed"]
    assert (data["a"], data["b"], data["exact"], data["games"], data["seed"]) == ("think1", "random", False, 200, 1)
    assert sum(data["a_as_x"].values()) == 100 and sum(data["a_as_o"].values()) == 100
    total = data["total"]
    assert total["a_wins"] == data["a_as_x"]["x_wins"] + data["a_as_o"]["o_wins"]
    assert sum(total.values()) == 200


def test_compare_is_reproducible_from_the_seed():
    first = run("compare", "think2", "think1", "--games", "100", "--seed", "7", "--json")
    second = run("compare", "think2", "think1", "--games", "100", "--seed", "7", "--json")
    assert json.loads(first.stdout) == json.loads(second.stdout)


def test_compare_exact_json():
    result = run("compare", "think3", "think2", "--exact", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["exact"] is True and data["games"] is None
    assert round(1000 * data["total"]["a_wins"], 1) == 305.6
    assert sum(data["a_as_o"].values()) == pytest.approx(1.0)


def test_compare_table():
    result = run("compare", "think1", "random", "--exact")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "think1 vs random: exact outcome probabilities, think1 playing X in half of the games"
    assert lines[2].split() == ["seats", "X", "wins", "%", "draws", "%", "O", "wins", "%"]
    assert lines[4].split() == ["think1", "as", "X", "81.36", "6.61", "12.03"]
    assert lines[-1] == (
        "think1 wins 66.76%, draws 7.46%, loses 25.78% against random (per 1,000 games: 667.6 / 74.6 / 257.8)"
    )


def test_compare_sampled_table_and_progress_on_stderr(monkeypatch):
    result = run("compare", "think1", "random", "--games", "50", "--seed", "2")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("think1 vs random: 50 sampled games (seed 2)")
    assert "of 50 games against random" in result.stdout
    assert result.stderr == ""  # no terminal: no bar
    monkeypatch.setattr(contests, "bars", drawn_bars)
    drawn = run("compare", "think1", "random", "--games", "50", "--seed", "2").stderr
    assert re.search(r"\rthink1 vs random +\d+%\|", drawn)


def test_compare_with_perfect_reads_the_database(db):
    result = run("compare", "perfect", "think3", "--exact", "--json", "--db", db)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["total"]["b_wins"] == 0.0


@pytest.mark.parametrize(
    "args, message",
    [
        (["compare", "think1", "foo"], "Error: invalid agent 'foo': unknown agent; valid agents: random, think1,"),
        (["compare", "nstep:0", "random"], "Error: invalid agent 'nstep:0': nstep depth must be a positive integer"),
        (["compare", "mc:10", "random", "--exact"], "Error: agent 'mc:10' cannot be enumerated"),
        (["compare", "think1", "random", "--exact", "--games", "10"], "Error: --games only applies to sampled runs"),
        (["compare", "think1", "random", "--exact", "--seed", "1"], "Error: --seed only applies to sampled runs"),
        (["tournament", "--agents", "random,mc:10", "--exact"], "Error: agent 'mc:10' cannot be enumerated"),
        (["tournament", "--agents", "random,bogus"], "Error: invalid agent 'bogus'"),
        (["tournament", "--agents", "random,random", "--exact"], "Error: each agent may play once"),
        (["tournament", "--agents", "random", "--exact"], "Error: a round robin needs at least two agents"),
    ],
)
def test_bad_input_is_one_error_line_and_exit_2(args, message, db):
    result = run(*args, "--db", db)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith(message)
    assert len(result.stderr.strip().splitlines()) == 1


def test_bad_games_count_is_a_usage_error():
    result = run("compare", "think1", "random", "--games", "0")
    assert result.exit_code == 2
    assert result.stderr == "Error: invalid --games '0': expected a whole number from 1 to 10,000,000\n"


def test_tournament_exact_json(db):
    result = run("tournament", "--agents", QUICK, "--exact", "--json", "--db", db)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["agents"] == ["random", "think1", "perfect"] and data["exact"] is True and data["seed"] is None
    pairs = [(p["a"], p["b"]) for p in data["pairs"]]
    assert pairs == [("random", "think1"), ("random", "perfect"), ("think1", "perfect")]
    assert data["standings"][0]["agent"] == "perfect" and data["standings"][0]["losses"] == 0.0
    accuracy = {a["agent"]: a for a in data["accuracy"]}
    assert accuracy["perfect"]["keep"] == 1.0 and accuracy["perfect"]["positions"] == 4520
    assert accuracy["think1"]["blunders"][0]["board"] == ".....OXX."


def test_tournament_table(db):
    result = run("tournament", "--agents", QUICK, "--exact", "--db", db)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith("Round robin of 3 agents (exact; every pair plays both seats equally)")
    for heading in (
        "Score of the row against the column",
        "Accuracy: moves keeping the game-theoretic value over the 4,520 unfinished positions",
        "Worst blunders",
    ):
        assert heading in out
    assert "X win (1830) %" in out
    assert any(line.split()[:4] == ["think1", ".....OXX.", "O", "win"] for line in out.splitlines())


def test_tournament_sampled_with_monte_carlo(db):
    result = run("tournament", "--agents", "think1,mc:20", "--games", "20", "--seed", "3", "--json", "--db", db)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["games"] == 20 and data["seed"] == 3
    assert data["pairs"][0]["games"] == 20
    assert {a["agent"]: a["samples"] for a in data["accuracy"]} == {"think1": None, "mc:20": 1}


def test_plot_without_matplotlib_names_the_extra(db, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    result = run("tournament", "--agents", QUICK, "--exact", "--plot", "chart.png", "--db", db)
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: --plot: drawing a chart needs matplotlib, from the [plot] extra: pip install matplotlib"
        " (or, in a source checkout, pip install -e '.[plot]')\n"
    )


@pytest.mark.plot
def test_plot_writes_a_chart(db, tmp_path):
    chart = tmp_path / "chart.png"
    result = run("tournament", "--agents", QUICK, "--exact", "--json", "--plot", str(chart), "--db", db)
    assert result.exit_code == 0, result.output
    json.loads(result.stdout)  # stdout stays clean JSON
    assert chart.stat().st_size > 1000


@pytest.mark.parametrize("command", ["compare", "tournament"])
def test_commands_have_help_with_an_example(command):
    result = run(command, "--help")
    assert result.exit_code == 0
    assert "Example:" in result.stdout
