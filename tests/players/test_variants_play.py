"""Agents, comparisons and tournaments on other variants: who plays where, misère, exact where
feasible and sampled otherwise, and ``--variant`` on every command."""

from __future__ import annotations

import json
from collections import Counter
from math import sqrt

import click
import numpy as np
import pytest
from click.testing import CliRunner

from ttt_solver import Oracle
from ttt_solver.cli import cli
from ttt_solver.errors import InvalidAgentError, NotFeasibleError
from ttt_solver.game import rules
from ttt_solver.game.variant import Variant, position_bound
from ttt_solver.players.agents import make_agent
from ttt_solver.players.arena import (
    EXACT_LIMIT,
    compare_exact,
    compare_sampled,
    exact_feasible,
    outcome_probabilities,
)
from ttt_solver.players.tournament import (
    DEFAULT_POSITIONS,
    accuracy,
    default_agents,
    round_robin,
    run,
    sample_positions,
    unfinished_boards,
)

NAMED = ["3x3", "3x3-misere", "4x4", "4x4k3", "3x4k3", "4x3k3"]
SPECS = [
    "random",
    "think1",
    "think2",
    "think3",
    "heuristic",
    "onestep",
    "nstep:2",
    "minimax:2",
    "mc:30",
    "perfect",
    "perfect:0.5",
]
PLAY_MISERE = ("random", "nstep", "mc", "perfect")
INFEASIBLE = (
    "Error: --exact is not feasible for 4x4: up to 10,165,779 positions to walk (exact runs go up to"
    " 200,000); sample instead with --games N\n"
)


@pytest.fixture(scope="module")
def oracle_of(db_path, variant_db, eager_4x4):
    """``oracle_of(name)``: the variant's oracle (compact arrays for the big ones), loaded once."""
    loaded = {"3x3": Oracle.load(db_path, eager=False), "4x4": eager_4x4}

    def get(name: str) -> Oracle:
        if name not in loaded:
            loaded[name] = Oracle.load(variant_db(name), name, eager=name == "4x4k3")
        return loaded[name]

    return get


def run_cli(*args: str):
    return CliRunner().invoke(cli, list(args))


def agent(spec: str, name: str, oracle_of=None):
    oracle = oracle_of(name) if spec.startswith("perfect") else None
    return make_agent(spec, oracle, Variant.parse(name))


# -- who plays where -------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMED)
@pytest.mark.parametrize("spec", SPECS)
def test_every_agent_plays_legal_games_to_the_end_or_refuses_the_variant(spec, name, oracle_of):
    variant = Variant.parse(name)
    if variant.misere and not spec.startswith(PLAY_MISERE):
        with pytest.raises(InvalidAgentError, match=f"^agent {spec!r} does not play {name}: "):
            agent(spec, name, oracle_of)
        return
    player = agent(spec, name, oracle_of)
    assert player.variant == variant
    result = compare_sampled(
        player, make_agent("random", variant=variant), games=4, seed=3
    )  # raises on an illegal move
    assert sum(result.total.to_dict().values()) == 4


def test_perfect_on_4x4_reads_the_compact_arrays_once_per_position(eager_4x4):
    perfect = make_agent("perfect", eager_4x4, eager_4x4.variant)
    board = "X...O..........."
    assert perfect.choose(board, np.random.default_rng(0)) in eager_4x4.probe(board).preferred_moves
    assert board in perfect._choices  # memoised: the next visit is one dictionary lookup


def test_default_agents_are_those_that_play_the_variant():
    assert default_agents(Variant.parse("3x3-misere")) == ("random", "nstep:3", "perfect:0.5", "perfect")
    assert len(default_agents(Variant.parse("4x4"))) == 10


# -- misère ------------------------------------------------------------------------------------
MISERE = Variant.parse("3x3-misere")

# X . O     X to move: 4 completes X's diagonal, a win in the normal game
# . . .     and a loss in misère; the other four moves are safe.
# O . X
DIAGONAL = "X.O...O.X"


def test_perfect_never_loses_misere_against_random_exactly(oracle_of):
    perfect, random = agent("perfect", "3x3-misere", oracle_of), make_agent("random", variant=MISERE)
    result = compare_exact(perfect, random)
    assert result.a_as_x.o_wins == 0.0 and result.a_as_o.x_wins == 0.0
    assert result.total.a_wins == pytest.approx(0.7893, abs=1e-4)
    assert sum(result.total.to_dict().values()) == pytest.approx(1.0)


def test_perfect_never_loses_misere_against_nstep_and_draws_itself(oracle_of):
    perfect = agent("perfect", "3x3-misere", oracle_of)
    assert compare_exact(perfect, make_agent("nstep:3", variant=MISERE)).total.b_wins == 0.0
    assert outcome_probabilities(perfect, perfect).draws == pytest.approx(1.0)  # misère 3x3 is a draw


def test_monte_carlo_avoids_completing_a_line_in_misere_and_takes_it_in_the_normal_game():
    misere, normal = make_agent("mc:100", variant=MISERE), make_agent("mc:100")
    assert all(misere.choose(DIAGONAL, np.random.default_rng(seed)) != 4 for seed in range(50))
    assert all(normal.choose(DIAGONAL, np.random.default_rng(seed)) == 4 for seed in range(50))


def test_nstep_scores_a_completed_line_as_a_loss_in_misere():
    assert 4 not in make_agent("nstep:1", variant=MISERE).policy(DIAGONAL)
    assert make_agent("nstep:1").policy(DIAGONAL) == {4: 1.0}


def test_a_rule_player_on_misere_is_one_error_line_from_the_command_line():
    result = run_cli("compare", "think1", "random", "--variant", "3x3-misere")
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: agent 'think1' does not play 3x3-misere: ")
    assert result.stderr.count("\n") == 1


def test_misere_exact_tournament_of_the_default_agents(variant_db):
    result = run_cli(
        "tournament", "--variant", "3x3-misere", "--exact", "--json", "--db", str(variant_db("3x3-misere"))
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["agents"] == ["random", "nstep:3", "perfect:0.5", "perfect"]
    perfect = {a["agent"]: a for a in data["accuracy"]}["perfect"]
    assert perfect["keep"] == 1.0 and perfect["positions"] == 4520 and perfect["positions_sampled"] is False
    assert {s["agent"]: s["losses"] for s in data["standings"]}["perfect"] == 0.0


# -- exact where feasible ------------------------------------------------------------------
def test_the_feasibility_rule():
    assert position_bound(9) == 6046 and position_bound(12) == 143_365 and position_bound(16) == 10_165_779
    assert [exact_feasible(Variant.parse(name)) for name in NAMED] == [True, True, False, False, True, True]
    assert position_bound(12) <= EXACT_LIMIT < position_bound(13)
    assert exact_feasible(Variant.parse("4x4"), "XOXOXOXOXO......")  # a late position is small enough


@pytest.mark.long
def test_exact_compare_on_3x4k3(oracle_of, variant_db):
    variant = Variant.parse("3x4k3")
    perfect, random = agent("perfect", "3x4k3", oracle_of), make_agent("random", variant=variant)
    assert oracle_of("3x4k3").value(rules.EMPTY * 12) == 1  # a first-player win
    assert compare_exact(perfect, random).a_as_x.x_wins == pytest.approx(1.0)
    result = run_cli(
        "compare", "think2", "random", "--variant", "3x4k3", "--exact", "--json", "--db", str(variant_db("3x4k3"))
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["exact"] is True and sum(data["total"].values()) == pytest.approx(1.0)


@pytest.mark.parametrize(
    "args", [("compare", "perfect", "random"), ("tournament",), ("tournament", "--agents", "random,think1")]
)
def test_exact_on_4x4_fails_at_once_before_reading_the_database(args, tmp_path):
    missing = tmp_path / "missing.sqlite"
    result = run_cli(*args, "--variant", "4x4", "--exact", "--db", str(missing))
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", INFEASIBLE)
    assert not missing.exists()


def test_exact_on_4x4_is_refused_by_the_library(eager_4x4):
    variant = eager_4x4.variant
    random, think1 = make_agent("random", variant=variant), make_agent("think1", variant=variant)
    with pytest.raises(NotFeasibleError, match="^exact play on 4x4 is not feasible: up to 10,165,779 positions"):
        compare_exact(random, think1)
    with pytest.raises(NotFeasibleError):
        round_robin([random, think1], exact=True)
    with pytest.raises(NotFeasibleError, match="accuracy over every position of 4x4 is not feasible"):
        accuracy(random, eager_4x4)
    late = "XOXOXOXO.X.O.O.X"  # eight empty cells: 1,000 positions at most
    assert sum(outcome_probabilities(random, think1, late).to_dict().values()) == pytest.approx(1.0)


# -- sampled otherwise -------------------------------------------------------------------------
def test_a_sampled_4x4_tournament_measures_accuracy_on_sampled_positions(db_4x4):
    def tournament(agents: str, games: int, positions: int, *json: str):
        options = ["--agents", agents, "--games", str(games), "--positions", str(positions), "--seed", "1"]
        return run_cli("tournament", "--variant", "4x4", "--db", str(db_4x4), *options, *json)

    result = tournament("random,think1,perfect", 4, 200, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["games"] == 4 and data["exact"] is False
    scores = {a["agent"]: a for a in data["accuracy"]}
    assert {(a["positions"], a["positions_sampled"]) for a in scores.values()} == {(200, True)}
    assert scores["perfect"]["keep"] == 1.0 and scores["random"]["keep"] < 1.0
    table = tournament("random,perfect", 2, 50)
    assert "over 50 unfinished positions drawn uniformly at random (seed 1)" in table.stdout


def test_run_samples_the_default_number_of_positions_where_all_are_too_many(eager_4x4):
    variant = eager_4x4.variant
    agents = [make_agent("random", variant=variant), make_agent("perfect", eager_4x4, variant)]
    result = run(agents, eager_4x4, games=2, seed=1)
    assert [(a.positions, a.positions_sampled) for a in result.accuracy] == [(DEFAULT_POSITIONS, True)] * 2
    assert result.accuracy[1].keep == 1.0


def test_sampled_positions_are_distinct_legal_unfinished_and_reproducible():
    variant = Variant.parse("4x4k3")
    boards = sample_positions(variant, 300, seed=5)
    assert len(set(boards)) == 300
    assert all(rules.legality_error(b, variant) is None and rules.terminal_value(b, variant) is None for b in boards)
    assert [rules.ply(b) for b in boards] == sorted(rules.ply(b) for b in boards)
    assert sample_positions(variant, 300, seed=5) == boards != sample_positions(variant, 300, seed=6)
    with pytest.raises(NotFeasibleError, match="too big"):
        sample_positions(variant, 10**6, seed=1)


def test_sampled_positions_are_uniform_over_unfinished_positions():
    every = unfinished_boards(Variant.parse("3x3"))
    expected = Counter(rules.ply(b) for b in every)
    drawn = Counter(rules.ply(b) for seed in range(20) for b in sample_positions(Variant.parse("3x3"), 300, seed))
    n = 20 * 300
    for ply, count in expected.items():
        p = count / len(every)
        assert abs(drawn[ply] - n * p) < 5 * sqrt(n * p * (1 - p)), (ply, drawn[ply], n * p)
    assert sample_positions(Variant.parse("3x3"), 5000) == every  # more than there are: all of them


# -- the command line --------------------------------------------------------------------------
def test_every_command_takes_variant():
    ctx = click.Context(cli)
    commands = cli.list_commands(ctx)
    assert {"analyze", "best", "play", "stats", "query", "compare", "tournament"} <= set(commands)
    for name in commands:
        if name not in ("help", "cache"):  # help shows the help of the others; the cache spans every variant
            assert "variant" in {param.name for param in cli.get_command(ctx, name).params}, name


def test_positions_is_a_sampling_option():
    result = run_cli("tournament", "--exact", "--positions", "10")
    assert (result.exit_code, result.stderr) == (
        2,
        "Error: --positions only applies to sampled runs; drop it or --exact\n",
    )
