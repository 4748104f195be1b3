"""The round robin and accuracy against the database."""

from __future__ import annotations

import pytest

from ttt_solver.errors import InvalidAgentError, NotEnumerableError
from ttt_solver.game import rules
from ttt_solver.game.variant import STANDARD
from ttt_solver.lookup.oracle import Oracle
from ttt_solver.players.agents import make_agent
from ttt_solver.players.tournament import DEFAULT_AGENTS, accuracy, round_robin, run, unfinished_boards
from ttt_solver.solver.reference import solve

# Unfinished legal positions by side to move and value (for the side to move).
GROUPS = {("X", 1): 1830, ("X", 0): 441, ("X", -1): 152, ("O", 1): 1006, ("O", 0): 611, ("O", -1): 480}


@pytest.fixture(scope="session")
def oracle() -> Oracle:
    return Oracle.from_solutions(solve())


@pytest.fixture(scope="session")
def exact_tournament(oracle):
    return run([make_agent(spec, oracle) for spec in DEFAULT_AGENTS], oracle, exact=True)


def test_there_are_4520_unfinished_positions():
    assert len(unfinished_boards(STANDARD)) == 4520


def test_perfect_keeps_every_value(oracle):
    score = accuracy(make_agent("perfect", oracle), oracle)
    assert score.positions == 4520 and score.keep == 1.0 and score.blundering == 0 and score.blunders == ()
    assert {(g.side, g.value): g.positions for g in score.groups} == GROUPS
    assert score.samples is None


def test_random_accuracy_is_the_share_of_value_keeping_moves(oracle):
    score = accuracy(make_agent("random"), oracle)
    shares = [len(oracle.best_moves(b)) / len(rules.legal_moves(b)) for b in unfinished_boards(STANDARD)]
    assert score.keep == pytest.approx(sum(shares) / len(shares))
    lost = [g for g in score.groups if g.value == -1]
    assert all(g.keep == 1.0 for g in lost)  # nothing is left to throw away in a lost position


def test_blunders_are_the_largest_expected_drops(oracle):
    score = accuracy(make_agent("think3"), oracle, blunders=10)
    drops = [b.drop for b in score.blunders]
    assert drops == sorted(drops, reverse=True) and len(drops) == 10
    # . . .      X to move and winning. Book moves 2, 5, 7 and 9 each make one three-ply win;
    # O . .      the seed's max(set(w3), key=w3.count) takes the first of the set, and CPython
    # . X .      iterates {2, 5, 7, 9} from 9 (9 % 8 = 1): think3 plays 8 and O's reply wins.
    worst = score.blunders[0]
    assert (worst.board, worst.value, worst.keep, worst.drop) == ("...O...X.", 1, 0.0, 2.0)
    assert worst.moves == ((8, 1.0, -1),)
    assert oracle.value(rules.play(worst.board, 8)) == 1  # the reply wins for O


def test_accuracy_orders_the_agents_as_expected(exact_tournament):
    keep = {a.agent: a.keep for a in exact_tournament.accuracy}
    assert keep["perfect"] == 1.0
    assert keep["random"] < keep["perfect:0.5"] < keep["think1"] < keep["think2"] < keep["think3"] < keep["minimax:3"]
    assert keep["think2"] == pytest.approx(keep["onestep"])  # same rules, different tie-breaking
    assert keep["random"] == pytest.approx(0.5797, abs=1e-4)


def test_exact_round_robin(exact_tournament):
    n = len(DEFAULT_AGENTS)
    assert len(exact_tournament.pairs) == n * (n - 1) // 2
    standings = exact_tournament.standings()
    assert standings[0].agent == "perfect" and standings[0].losses == 0.0
    assert standings[-1].agent == "random"
    for row in standings:
        assert row.wins + row.draws + row.losses == pytest.approx(1.0)
    won, drawn, lost = exact_tournament.shares("think1", "random")
    assert (round(1000 * won, 1), round(1000 * drawn, 1), round(1000 * lost, 1)) == (667.6, 74.6, 257.8)
    assert exact_tournament.shares("random", "think1") == (lost, drawn, won)


def test_tournament_json(exact_tournament):
    data = exact_tournament.to_dict()
    assert list(data) == ["agents", "exact", "games", "standings", "pairs", "accuracy"]
    assert data["exact"] is True and data["games"] is None
    first = data["accuracy"][0]
    assert set(first) == {
        "agent",
        "positions",
        "positions_sampled",
        "keep",
        "blundering",
        "samples",
        "groups",
        "blunders",
    }
    assert first["positions_sampled"] is False
    assert first["blunders"][0]["moves"][0].keys() == {"cell", "probability", "value"}


def test_sampled_round_robin_is_reproducible(oracle):
    agents = [make_agent(s) for s in ("random", "think1", "mc:20")]
    first = round_robin(agents, 40, seed=9)
    assert round_robin(agents, 40, seed=9) == first
    assert [(p.a, p.b) for p in first] == [("random", "think1"), ("random", "mc:20"), ("think1", "mc:20")]
    assert all(p.games == 40 and not p.exact for p in first)


def test_sampled_accuracy_for_monte_carlo(oracle):
    score = accuracy(make_agent("mc:20"), oracle, samples=1, seed=1)
    assert score.samples == 1 and score.positions == 4520
    assert 0.8 < score.keep < 1.0


def test_exact_round_robin_refuses_a_sampling_agent_before_any_work(oracle):
    with pytest.raises(NotEnumerableError, match="'mc:10' cannot be enumerated"):
        round_robin([make_agent("nstep:9"), make_agent("mc:10")], exact=True)


@pytest.mark.parametrize(
    "specs, message", [(["random"], "at least two agents"), (["random", "think1", "random"], "repeated: random")]
)
def test_round_robin_needs_distinct_agents(specs, message):
    with pytest.raises(InvalidAgentError, match=message):
        round_robin([make_agent(s) for s in specs], exact=True)


def test_accuracy_checks_its_arguments(oracle):
    with pytest.raises(ValueError, match="samples must be a positive integer"):
        accuracy(make_agent("mc:5"), oracle, samples=0)


@pytest.mark.parametrize("positions", [None, 100])
def test_accuracy_progress_counts_every_agent_at_every_position(oracle, positions):
    seen: list[tuple[int, int]] = []
    agents = [make_agent(spec, oracle) for spec in ("random", "think1", "mc:5")]
    run(
        agents, oracle, games=2, seed=1, positions=positions, accuracy_progress=lambda n, total: seen.append((n, total))
    )
    total = 3 * (positions or 4520)
    assert {t for _, t in seen} == {total} and sum(n for n, _ in seen) == total and len(seen) > 3
