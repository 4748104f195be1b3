"""The arena: exact outcome probabilities against the books' published tables, perfect play
never losing, sampled games agreeing with exact ones, and the result contract."""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pytest

from ttt_solver.errors import InvalidBoardError, NotEnumerableError
from ttt_solver.game import rules
from ttt_solver.game.variant import STANDARD, Variant
from ttt_solver.lookup.oracle import Oracle
from ttt_solver.players.agents import make_agent
from ttt_solver.players.agents.base import Policy, PolicyAgent
from ttt_solver.players.arena import (
    Comparison,
    Outcomes,
    compare_exact,
    compare_sampled,
    outcome_probabilities,
    play_game,
)
from ttt_solver.players.tournament import unfinished_boards
from ttt_solver.solver.reference import solve

ENUMERABLE = [
    "random",
    "think1",
    "think2",
    "think3",
    "heuristic",
    "onestep",
    "nstep:1",
    "nstep:2",
    "nstep:3",
    "nstep:4",
    "minimax:1",
    "minimax:2",
    "minimax:3",
    "perfect:0",
    "perfect:0.5",
    "perfect:0.9",
]


@pytest.fixture(scope="session")
def oracle() -> Oracle:
    return Oracle.from_solutions(solve())


def binomial_pmf(n: int, p: float) -> np.ndarray:
    k = np.arange(n + 1)
    if p <= 0.0 or p >= 1.0:
        pmf = np.zeros(n + 1)
        pmf[0 if p <= 0.0 else n] = 1.0
        return pmf
    logs = [math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) for i in k]
    return np.exp(np.array(logs) + k * math.log(p) + (n - k) * math.log1p(-p))


def interval_99(p_first: float, p_second: float, games: int = 1000) -> tuple[int, int]:
    """The central 99% interval of a count over ``games`` games, half with each seat's probability."""
    pmf = np.convolve(binomial_pmf(games // 2, p_first), binomial_pmf(games - games // 2, p_second))
    cdf = np.cumsum(pmf)
    return int(np.searchsorted(cdf, 0.005)), int(np.searchsorted(cdf, 0.995))


# Chapter 2 of the book (seed 001): 1,000 games, seats alternated, from the first agent's side.
BOOK_TABLES = [
    ("think1", "random", 653, 75, 272),
    ("think2", "think1", 773, 137, 90),
    ("think3", "think2", 323, 375, 302),
]


@pytest.mark.parametrize("a, b, won, tied, lost", BOOK_TABLES)
def test_the_books_tables_fall_inside_our_exact_99_percent_intervals(a, b, won, tied, lost):
    result = compare_exact(make_agent(a), make_agent(b))
    x, o = result.a_as_x, result.a_as_o
    assert won + tied + lost == 1000
    for published, first, second in ((won, x.x_wins, o.o_wins), (tied, x.draws, o.draws), (lost, x.o_wins, o.x_wins)):
        low, high = interval_99(first, second)
        assert low <= published <= high, (a, b, published, low, high)


def test_exact_book_numbers_pinned():
    expected = {  # per 1,000 games over both seats: wins, draws, losses of the first agent
        ("think1", "random"): (667.6, 74.6, 257.8),
        ("think2", "think1"): (770.9, 145.3, 83.8),
        ("think3", "think2"): (305.6, 375.8, 318.7),
    }
    for (a, b), numbers in expected.items():
        total = compare_exact(make_agent(a), make_agent(b)).total
        assert tuple(round(1000 * v, 1) for v in (total.a_wins, total.draws, total.b_wins)) == numbers


def test_random_against_random_is_the_known_fraction():
    # Uniformly random play: X wins 737/1260, O wins 121/420, draws 8/63 (a classic count)
    result = outcome_probabilities(make_agent("random"), make_agent("random"))
    assert result.x_wins == pytest.approx(737 / 1260)
    assert result.o_wins == pytest.approx(121 / 420)
    assert result.draws == pytest.approx(8 / 63)


@pytest.mark.parametrize("spec", ENUMERABLE)
def test_perfect_never_loses_exactly(spec, oracle):
    result = compare_exact(make_agent("perfect", oracle), make_agent(spec, oracle))
    assert result.total.b_wins == 0.0
    assert result.a_as_x.o_wins == 0.0 and result.a_as_o.x_wins == 0.0
    assert sum(result.a_as_x.to_dict().values()) == pytest.approx(1.0)


def test_perfect_holds_its_value_against_every_line_of_play(oracle):
    """From every position, whichever side perfect plays: no sequence of replies does better than its value.

    Perfect may pick any of its preferred moves, so the search takes the worst of them too.
    """
    perfect = make_agent("perfect", oracle)

    @cache
    def worst(board: str, side: str) -> int:  # the worst finished result for ``side`` (+1 win, 0, -1)
        if rules.terminal_value(board) is not None:
            won = rules.winner(board)
            return 0 if won is None else 1 if won == side else -1
        mover = rules.to_move(board)
        cells = perfect.policy(board) if mover == side else rules.legal_moves(board)
        return min(worst(rules.play(board, cell), side) for cell in cells)

    checked = 0
    for board in unfinished_boards(STANDARD):
        value = oracle.value(board)
        for side, own_value in ((rules.to_move(board), value), (_other(rules.to_move(board)), -value)):
            if own_value >= 0:  # perfect play is not losing here
                assert worst(board, side) >= own_value, (board, side)
                checked += 1
    assert checked > 4520


def _other(mark: str) -> str:
    return "O" if mark == "X" else "X"


def test_exact_and_sampled_agree():
    a, b = make_agent("think3"), make_agent("heuristic")
    exact = compare_exact(a, b)
    sampled = compare_sampled(a, b, 4000, seed=11)
    for seat_exact, seat_sampled in ((exact.a_as_x, sampled.a_as_x), (exact.a_as_o, sampled.a_as_o)):
        for p, count in zip(seat_exact.to_dict().values(), seat_sampled.to_dict().values()):
            assert abs(count - 2000 * p) <= 4 * math.sqrt(2000 * p * (1 - p)) + 1


def test_exact_and_sampled_agree_for_a_book_table_too():
    a, b = make_agent("think2"), make_agent("think1")
    exact = compare_exact(a, b).total
    sampled = compare_sampled(a, b, 1000, seed=5).total
    for p, count in ((exact.a_wins, sampled.a_wins), (exact.draws, sampled.draws), (exact.b_wins, sampled.b_wins)):
        assert abs(count - 1000 * p) <= 4 * math.sqrt(1000 * p * (1 - p)) + 1


def test_sampled_runs_are_reproducible_from_the_seed():
    a, b = make_agent("think1"), make_agent("random")
    first = compare_sampled(a, b, 300, seed=42)
    assert compare_sampled(make_agent("think1"), make_agent("random"), 300, seed=42) == first
    assert compare_sampled(a, b, 300, seed=43) != first


def test_seats_alternate_like_the_seeds():
    result = compare_sampled(make_agent("random"), make_agent("random"), 7, seed=0)
    assert sum(result.a_as_x.to_dict().values()) == 4  # games 0, 2, 4, 6
    assert sum(result.a_as_o.to_dict().values()) == 3


def test_progress_reports_every_game():
    seen: list[int] = []
    compare_sampled(make_agent("random"), make_agent("random"), 1001, seed=0, progress=seen.append)
    assert sum(seen) == 1001


def test_exact_progress_adds_up_to_the_bound_of_the_positions_walked():
    from ttt_solver.game.variant import position_bound

    seen: list[int] = []
    compare_exact(make_agent("think1"), make_agent("random"), progress=seen.append)
    assert sum(seen) == 2 * position_bound(9) and min(seen) >= 0 and len(seen) > 4


def test_monte_carlo_plays_sampled_but_not_exact():
    mc, think1 = make_agent("mc:50"), make_agent("think1")
    result = compare_sampled(mc, think1, 20, seed=3)
    assert result.total.a_wins + result.total.draws + result.total.b_wins == 20
    with pytest.raises(NotEnumerableError, match="'mc:50' cannot be enumerated"):
        compare_exact(think1, mc)


def test_monte_carlo_beats_random(oracle):
    total = compare_sampled(make_agent("mc:200"), make_agent("random"), 100, seed=1).total
    assert total.a_wins > 70 and total.b_wins < 10


def test_play_game_returns_the_winner():
    rng = np.random.default_rng(0)
    assert play_game(make_agent("think1"), make_agent("think1"), rng) in ("X", "O", None)


class Cheater(PolicyAgent):
    def __init__(self) -> None:
        super().__init__("cheater", STANDARD)

    def _policy(self, board: str) -> Policy:
        return {0: 1.0}  # cell 0, even when it is taken


def test_an_illegal_move_is_refused():
    with pytest.raises(InvalidBoardError, match="is taken"):
        play_game(make_agent("random"), Cheater(), np.random.default_rng(0))


def test_bad_arguments_are_refused():
    a = make_agent("random")
    with pytest.raises(ValueError, match="games must be a positive integer"):
        compare_sampled(a, a, 0)
    with pytest.raises(ValueError, match="different variants"):
        compare_exact(a, make_agent("random", variant=Variant.parse("4x4k3")))


def test_outcomes_from_a_position():
    # X X .      X to move: think1 wins at once
    # O O .
    # . . .
    result = outcome_probabilities(make_agent("think1"), make_agent("random"), "XX.OO....")
    assert result == Outcomes(1.0, 0.0, 0.0)


def test_json_contract():
    exact = compare_exact(make_agent("think1"), make_agent("random")).to_dict()
    assert list(exact) == ["a", "b", "exact", "games", "a_as_x", "a_as_o", "total"]
    assert exact["a"] == "think1" and exact["b"] == "random" and exact["exact"] is True and exact["games"] is None
    assert list(exact["a_as_x"]) == ["x_wins", "draws", "o_wins"]
    assert list(exact["total"]) == ["a_wins", "draws", "b_wins"]
    assert sum(exact["total"].values()) == pytest.approx(1.0)
    sampled = compare_sampled(make_agent("think1"), make_agent("random"), 10, seed=1).to_dict()
    assert sampled["exact"] is False and sampled["games"] == 10
    assert all(isinstance(v, int) for v in sampled["a_as_o"].values())
    assert sum(sampled["total"].values()) == 10


def test_comparison_totals_sum_seats():
    result = Comparison("a", "b", False, 10, Outcomes(3, 1, 1), Outcomes(2, 1, 2))
    assert result.total.to_dict() == {"a_wins": 5, "draws": 2, "b_wins": 3}
