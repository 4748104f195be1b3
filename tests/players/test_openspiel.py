"""PerfectBot against OpenSpiel's own games: its states, its terminal flags, its returns.

The reference here is a plain negamax over OpenSpiel states (its ``legal_actions``,
``apply_action``, ``is_terminal`` and ``returns``), written from OpenSpiel's rules alone: no
ttt-solver code and not OpenSpiel's ``value_iteration`` (which imports cvxpy).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from support.extra_markers import need

from ttt_solver import Oracle
from ttt_solver.game import rules
from ttt_solver.game.variant import Variant

pytestmark = pytest.mark.openspiel
pyspiel = need("openspiel", "pyspiel")

from ttt_solver.players.openspiel_bot import PerfectBot, board_of, variant_of_game


class Negamax:
    """Value for the player to move (+1 / 0 / -1) and the value-keeping actions, memoised by state string."""

    def __init__(self) -> None:
        self.memo: dict[str, int] = {}

    def of_state(self, state: Any) -> int:
        key = str(state)  # the marks on the board: who moves follows from their count
        if key not in self.memo:
            if state.is_terminal():
                self.memo[key] = round(state.returns()[len(state.history()) % 2])  # for the side that would move
            else:
                self.memo[key] = max(-self.of_state(state.child(a)) for a in state.legal_actions())
        return self.memo[key]

    def keeping(self, state: Any) -> set[int]:
        best = self.of_state(state)
        return {a for a in state.legal_actions() if -self.of_state(state.child(a)) == best}


def all_states(game: Any) -> dict[str, Any]:
    """Every state reachable from the start, keyed by OpenSpiel's own state string."""
    found: dict[str, Any] = {}
    stack = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        key = str(state)
        if key in found:
            continue
        found[key] = state
        if not state.is_terminal():
            for action in state.legal_actions():
                stack.append(state.child(action))
    return found


@pytest.fixture(scope="module")
def tic_tac_toe_states() -> dict[str, Any]:
    return all_states(pyspiel.load_game("tic_tac_toe"))


def test_openspiel_has_5478_tic_tac_toe_states(tic_tac_toe_states):
    assert len(tic_tac_toe_states) == 5478


def test_every_tic_tac_toe_state_agrees_with_the_database(tic_tac_toe_states, db_path):
    oracle = Oracle.load(db_path)
    reference = Negamax()
    bot = PerfectBot(pyspiel.load_game("tic_tac_toe"), 0, oracle=oracle)
    checked = 0
    for text, state in tic_tac_toe_states.items():
        board = rules.parse(text)  # OpenSpiel's own string: x / o / ., rows on lines
        assert board == board_of(state, bot.variant), text
        terminal = rules.terminal_value(board)
        assert state.is_terminal() == (terminal is not None), text
        value = reference.of_state(state)
        assert oracle.value(board) == value, text
        if state.is_terminal():
            continue
        optimal = reference.keeping(state)
        assert set(oracle.best_moves(board)) == optimal, text
        bot.player_id = state.current_player()
        policy, action = bot.step_with_policy(state)
        assert {a for a, _ in policy} <= optimal and action in optimal, text
        assert abs(sum(p for _, p in policy) - 1) < 1e-9
        checked += 1
    assert checked == 4520


def mnk_sample(game: Any, count: int, max_empty: int, seed: int) -> list[Any]:
    """Unfinished states from random playouts, with at most ``max_empty`` empty cells (cheap to solve)."""
    rng = random.Random(seed)
    sample: dict[str, Any] = {}
    cells = game.num_distinct_actions()
    while len(sample) < count:
        state = game.new_initial_state()
        while not state.is_terminal():
            if cells - len(state.history()) <= max_empty:
                sample.setdefault(str(state), state.clone())
            state.apply_action(rng.choice(state.legal_actions()))
    return list(sample.values())


# OpenSpiel game -> our variant: mnk(m, n, k) has n rows of m columns.
MNK = [
    ("mnk(m=4,n=3,k=3)", "3x4k3"),
    ("mnk(m=3,n=4,k=3)", "4x3k3"),
    ("misere(game=tic_tac_toe())", "3x3-misere"),
    ("misere(game=mnk(m=4,n=3,k=3))", "3x4k3-misere"),
]


@pytest.mark.parametrize(("spec", "variant"), MNK)
def test_mnk_samples_agree_with_the_database(spec, variant, variant_db):
    game = pyspiel.load_game(spec)
    assert variant_of_game(game) == Variant.parse(variant)
    check_sample(game, Oracle.load(variant_db(variant), variant=variant, eager=False), count=100)


def test_4x4_mnk_sample_agrees_with_the_database(eager_4x4):
    game = pyspiel.load_game("mnk(m=4,n=4,k=4)")
    assert variant_of_game(game) == Variant.parse("4x4")
    check_sample(game, eager_4x4, count=60)


def check_sample(game: Any, oracle: Oracle, count: int) -> None:
    reference = Negamax()
    bot = PerfectBot(game, 0, oracle=oracle, seed=0)
    for state in mnk_sample(game, count, max_empty=6, seed=1):
        board = rules.parse(str(state).replace("\n", "/"), oracle.variant)
        assert board == board_of(state, oracle.variant)
        assert oracle.value(board) == reference.of_state(state), str(state)
        optimal = reference.keeping(state)
        assert set(oracle.best_moves(board)) == optimal, str(state)
        bot.player_id = state.current_player()
        assert bot.step(state) in optimal


def test_the_bots_play_in_evaluate_bots(db_path):
    from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

    game = pyspiel.load_game("tic_tac_toe")
    oracle = Oracle.load(db_path)
    perfect = [PerfectBot(game, p, oracle=oracle, seed=p) for p in (0, 1)]
    for seed in range(20):  # perfect against perfect: always a draw
        assert pyspiel.evaluate_bots(game.new_initial_state(), perfect, seed) == [0.0, 0.0]
    weak = PerfectBot(game, 1, "perfect:0", oracle=oracle, seed=3)  # uniformly random
    results = [evaluate_bots(game.new_initial_state(), [perfect[0], weak], None)[0] for _ in range(50)]
    assert min(results) >= 0.0 and max(results) == 1.0  # never loses, wins some


def test_the_policy_of_perfect_p_mixes_in_every_legal_move(db_path):
    game = pyspiel.load_game("tic_tac_toe")
    state = game.new_initial_state()
    for action in (0, 4, 8):  # x . .  / . o . / . . x: o to move, only the edges hold the draw
        state.apply_action(action)
    bot = PerfectBot(game, 1, "perfect:0.5", oracle=Oracle.load(db_path))
    assert bot.provides_policy()
    policy = dict(bot.step_with_policy(state)[0])
    assert set(policy) == {1, 2, 3, 5, 6, 7}
    assert policy[1] == pytest.approx(0.5 / 6 + 0.5 / 4) and policy[2] == pytest.approx(0.5 / 6)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("connect_four", "PerfectBot cannot play connect_four(): it plays tic_tac_toe, mnk,"),
        ("mnk", "PerfectBot cannot play mnk(): the database holds boards of up to 25 cells, not 225"),
        ("mnk(m=3,n=3,k=4)", "invalid variant '3x3k4': on a 3x3 board k must be 3, not 4"),
    ],
)
def test_games_it_cannot_play_are_one_clear_error(spec, message):
    with pytest.raises(ValueError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        PerfectBot(pyspiel.load_game(spec), 0)


def test_bad_arguments_and_wrong_turns_are_one_clear_error(db_path):
    game = pyspiel.load_game("tic_tac_toe")
    oracle = Oracle.load(db_path)
    with pytest.raises(ValueError, match=r"^invalid spec 'random': expected 'perfect' or 'perfect:P'"):
        PerfectBot(game, 0, "random", oracle=oracle)
    with pytest.raises(ValueError, match=r"^invalid player_id 2: expected 0 \(x\) or 1 \(o\)"):
        PerfectBot(game, 2, oracle=oracle)
    with pytest.raises(ValueError, match=r"^player 1's bot asked to move for player 0"):
        PerfectBot(game, 1, oracle=oracle).step(game.new_initial_state())
    over = game.new_initial_state()
    for action in (0, 3, 1, 4, 2):  # x wins on the top row
        over.apply_action(action)
    with pytest.raises(ValueError, match=r"^no move on 'XXXOO\.\.\.\.': the game is over$"):
        PerfectBot(game, 1, oracle=oracle).step(over)
