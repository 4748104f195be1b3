"""Agents: names, the defining behaviour of each on hand-made positions, the books' own games,
and every rule player against a literal port of its seed's code (with the documented fixes).

Boards are drawn next to their text; book cells 1-9 are our cells 0-8.
"""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest
from support.stubs import only_raising

import ttt_solver.players.agents as agents_package
from ttt_solver.errors import (
    GameOverError,
    InvalidAgentError,
    InvalidBoardError,
    InvalidVariantError,
)
from ttt_solver.game import rules
from ttt_solver.game.variant import Variant
from ttt_solver.lookup.oracle import Oracle
from ttt_solver.players.agents import AGENT_NAMES, Agent, PolicyAgent, make_agent
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
    "nstep:3",
    "minimax:1",
    "minimax:3",
    "perfect",
    "perfect:0.5",
    "perfect:0",
]
BOOK_LINES = [(1, 2, 3), (4, 5, 6), (7, 8, 9), (1, 4, 7), (2, 5, 8), (3, 6, 9), (1, 5, 9), (3, 5, 7)]


@pytest.fixture(scope="session")
def oracle() -> Oracle:
    return Oracle.from_solutions(solve())


def agent(spec: str, oracle: Oracle | None = None) -> Agent:
    return make_agent(spec, oracle)


def sample(boards, n: int, seed: int = 0) -> list[str]:
    return random.Random(seed).sample(list(boards), n)


def support(policy: dict[int, float]) -> set[int]:
    return {cell for cell, p in policy.items() if p > 0}


# -- names ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "spec, name",
    [
        ("random", "random"),
        ("Think1", "think1"),
        ("think3", "think3"),
        ("heuristic", "heuristic"),
        ("onestep", "onestep"),
        ("nstep", "nstep:3"),
        ("nstep:5", "nstep:5"),
        ("minimax:2", "minimax:2"),
        ("mc", "mc:1000"),
        ("mc:50", "mc:50"),
        ("perfect", "perfect"),
        ("perfect:1", "perfect"),
        ("perfect:0.50", "perfect:0.5"),
        (" perfect:0 ", "perfect:0"),
    ],
)
def test_specs_give_canonical_names(spec, name):
    made = make_agent(spec)
    assert made.name == name
    assert repr(made) == f"make_agent({name!r})"


@pytest.mark.parametrize(
    "spec, reason",
    [
        ("foo", "unknown agent"),
        ("think4", "unknown agent"),
        ("random:2", "'random' takes no argument"),
        ("nstep:0", "nstep depth must be a positive integer, got 0"),
        ("nstep:x", "got 'x'"),
        ("minimax:-1", "minimax depth must be a positive integer"),
        ("mc:0", "mc trials must be an integer from 1 to"),
        ("perfect:1.5", "perfect probability must be from 0 to 1"),
        ("perfect:nan", "perfect probability"),
        ("perfect:lots", "must be a number from 0 to 1"),
        ("", "unknown agent"),
        (3, "expected a name"),
    ],
)
def test_bad_specs_name_the_spec_and_list_the_agents(spec, reason):
    with pytest.raises(InvalidAgentError) as caught:
        make_agent(spec)
    message = str(caught.value)
    assert message.startswith(f"invalid agent {spec!r}: ")
    assert reason in message
    assert message.endswith("valid agents: " + ", ".join(AGENT_NAMES))
    assert isinstance(caught.value, ValueError)


def test_rule_players_refuse_misere_but_random_nstep_mc_and_perfect_play_it():
    misere = Variant.parse("3x3-misere")
    with pytest.raises(InvalidAgentError, match="^agent 'think1' does not play 3x3-misere: .* loses there"):
        make_agent("think1", variant=misere)
    for spec in ("random", "nstep:2", "mc:10", "perfect", "perfect:0.5"):
        assert make_agent(spec, variant=misere).variant == misere


def test_an_agent_takes_its_variant_by_name_too_and_a_bad_one_with_its_error():
    assert make_agent("think2", variant="4x4k3").variant == Variant.parse("4x4k3")
    with pytest.raises(InvalidVariantError, match="^invalid variant 44: expected text such as 4x4k3$"):
        make_agent("random", variant=44)  # type: ignore[arg-type]


def test_perfect_refuses_an_oracle_of_another_variant(oracle):
    with pytest.raises(InvalidAgentError, match="solves 3x3"):
        make_agent("perfect", oracle, Variant.parse("4x4k3"))


# -- the protocol --------------------------------------------------------------------------
@pytest.mark.parametrize("spec", ENUMERABLE)
def test_policies_are_distributions_over_legal_moves(spec, oracle):
    player = agent(spec, oracle)
    assert player.enumerable
    for board in sample(unfinished_boards(player.variant), 300):
        policy = player.policy(board)
        assert set(policy) <= set(rules.legal_moves(board))
        assert all(p > 0 for p in policy.values())
        assert sum(policy.values()) == pytest.approx(1.0)


@pytest.mark.parametrize("spec", ENUMERABLE + ["mc:20"])
def test_boards_are_checked(spec, oracle):
    player = agent(spec, oracle)
    rng = np.random.default_rng(0)
    with pytest.raises(GameOverError):
        player.choose("XXXOO....", rng)
    with pytest.raises(InvalidBoardError):
        player.choose("XXXXO....", rng)
    with pytest.raises(InvalidBoardError):
        player.choose(["X"] * 9, rng)  # type: ignore[arg-type]


def test_policy_is_a_copy_of_the_memo():
    player = agent("random")
    player.policy(".........")[4] = 1.0
    assert player.policy(".........")[4] == pytest.approx(1 / 9)


def test_monte_carlo_only_samples():
    # An agent that only samples has choose and no policy: it is not a PolicyAgent.
    player = agent("mc:10")
    assert not player.enumerable and not isinstance(player, PolicyAgent)
    assert not hasattr(player, "policy") and not hasattr(player, "_policy")
    assert player.choose(".........", np.random.default_rng(0)) in range(9)


def test_no_agent_has_a_method_that_only_raises():
    # A base class that forces a method on an agent that cannot have it shows as a stub raising
    # NotImplementedError (as mc:N's _policy once was); abstract methods have no body to run.
    assert only_raising(agents_package) == []


@pytest.mark.parametrize("spec", ["random", "think3", "perfect:0.5"])
def test_choose_samples_the_policy(spec, oracle):
    player = agent(spec, oracle)
    board = "X...O...."  # X . . / . O . / . . .
    rng = np.random.default_rng(1)
    draws = 6000
    counts: dict[int, int] = {}
    for _ in range(draws):
        cell = player.choose(board, rng)
        counts[cell] = counts.get(cell, 0) + 1
    for cell, p in player.policy(board).items():
        assert abs(counts.get(cell, 0) - draws * p) <= 5 * (draws * p * (1 - p)) ** 0.5 + 1
    assert set(counts) <= set(player.policy(board))


# -- defining behaviour on hand-made positions ----------------------------------------------
@pytest.mark.parametrize(
    "spec",
    ["think1", "think2", "think3", "heuristic", "onestep", "nstep:1", "nstep:3", "minimax:1", "minimax:3", "perfect"],
)
def test_takes_the_win(spec, oracle):
    # X X .      X to move wins at 2 (O threatens 5 too)
    # O O .
    # . . .
    assert agent(spec, oracle).policy("XX.OO....") == {2: 1.0}


@pytest.mark.parametrize(
    "spec", ["think2", "think3", "heuristic", "onestep", "nstep:2", "nstep:3", "minimax:2", "minimax:3", "perfect"]
)
def test_blocks_the_opponent(spec, oracle):
    # X X .      O to move must block 2
    # . O .
    # . . .
    assert agent(spec, oracle).policy("XX..O....") == {2: 1.0}


@pytest.mark.parametrize("spec", ["random", "think1", "nstep:1"])
def test_no_block_below_two_plies(spec):
    assert agent(spec).policy("XX..O....") == {cell: 1 / 6 for cell in (2, 3, 5, 6, 7, 8)}


def test_two_wins_onestep_uniform_the_scanners_take_the_first():
    # X X .      X to move wins at 2 (0-1-2) or 6 (0-3-6); O threatens 2 too
    # X O O
    # . . O
    board = "XX.XOO..O"
    assert agent("onestep").policy(board) == {2: 0.5, 6: 0.5}
    for spec in ("think1", "think3", "heuristic"):
        assert agent(spec).policy(board) == {2: 1.0}


def test_two_threats_each_player_blocks_its_own_way():
    # O . O      X to move, no win of its own; O threatens 1 (0-1-2), 4 (0-4-8) and 5 (2-5-8)
    # X . .
    # X X O
    board = "O.OX..XXO"
    assert agent("onestep").policy(board) == pytest.approx({1: 1 / 3, 4: 1 / 3, 5: 1 / 3})  # uniform
    assert agent("heuristic").policy(board) == {1: 1.0}  # the first threat in scan order
    assert agent("think2").policy(board) == {4: 1.0}  # the seed's (m1, m2) scan skips the first empty cell


def test_heuristic_prefers_middle_then_corners_then_sides():
    heuristic = agent("heuristic")
    assert heuristic.policy(".........") == {4: 1.0}
    assert heuristic.policy("....X....") == {0: 0.25, 2: 0.25, 6: 0.25, 8: 0.25}
    # every corner and the middle taken, no threat: a side
    boards = [
        b
        for b in unfinished_boards(heuristic.variant)
        if all(b[c] != "." for c in (0, 2, 4, 6, 8)) and not rules_threats(b)
    ]
    assert boards
    for board in boards:
        assert heuristic.policy(board) == {c: 1 / board.count(".") for c in (1, 3, 5, 7) if board[c] == "."}


def rules_threats(board: str) -> bool:
    from ttt_solver.players.agents.base import winning_cells

    return bool(winning_cells(board, "X", rules.STANDARD) or winning_cells(board, "O", rules.STANDARD))


def test_think3_makes_the_books_fork():
    # Chapter 2, 5.1: X to move plays cell 2 (our 1) and threatens 3 and 8 (our 2 and 7).
    # X . .      X has 1 and 5, O has 4 and 9 (book cells): no win, no threat to block
    # O X .
    # . . O
    board = "X..OX...O"
    think3 = agent("think3")
    assert think3.rule_move(board) == 1
    assert think3.policy(board) == {1: 1.0}
    after = rules.play(board, 1)
    from ttt_solver.players.agents.base import winning_cells

    assert winning_cells(after, "X", rules.STANDARD) == [2, 7]


def test_think3_breaks_ties_in_the_seeds_set_order():
    # After X at book 4 and O at book 2, four moves each make one three-ply win: book 1, 5, 6, 7.
    # max(set(w3), key=w3.count) returns book 1, as the book's game shows ("AI has chosen move 1").
    assert agent("think3").policy(".O.X.....") == {0: 1.0}
    # With book 8 and 9 among four tied moves CPython's set iterates 8 first: {1, 8, 9, 5} -> 8.
    assert max({1, 5, 8, 9}, key=lambda m: 1) == 8


def trace_probability(player: Agent, moves: list[int], side: str) -> float:
    """The probability that ``player`` on ``side`` makes its moves of a game (book cells)."""
    board, chance = rules.EMPTY * 9, 1.0
    for book in moves:
        if rules.to_move(board) == side:
            chance *= player.policy(board).get(book - 1, 0.0)
        board = rules.play(board, book - 1)
    return chance


@pytest.mark.parametrize(
    "spec, side, moves, forced",
    [
        ("think1", "O", [5, 4, 6, 1, 2, 7], [7]),  # 3.2: the AI (O) takes the winning move 7
        ("think2", "X", [8, 5, 4, 7, 3, 2, 1, 9, 6], [3]),  # 4.2: it blocks cell 3
        ("think3", "X", [4, 2, 1, 7, 5, 9, 6], [1, 5, 6]),  # 5.3: tie to 1, the fork at 5, the win at 6
        ("nstep:3", "X", [4, 5, 8, 2, 7, 1, 9], [7, 9]),  # seed 003, 4.2: the fork at 7, the win at 9
    ],
)
def test_the_books_games_are_possible_and_their_rule_moves_forced(spec, side, moves, forced):
    player = agent(spec)
    assert trace_probability(player, moves, side) > 0
    board = rules.EMPTY * 9
    for book in moves:
        if book in forced:
            assert player.policy(board) == {book - 1: 1.0}, (board, book)
        board = rules.play(board, book - 1)


def test_seed_003_test_game_is_a_possible_nstep_3_self_play():
    # test_n_step_ai (random.seed(42)): X1 O6 X3 O2 X5 O4 X9, both players n_step_ai with 3 steps
    player = agent("nstep:3")
    moves = [1, 6, 3, 2, 5, 4, 9]
    assert trace_probability(player, moves, "X") * trace_probability(player, moves, "O") > 0
    assert player.policy("X....O...") == player.policy("X....O...") and player.policy("X.X..O...") == {1: 1.0}


@pytest.mark.parametrize(
    "board, depth, scores",
    [
        ("OX..O..X.", 4, {3: -100, 4: -100, 6: -100, 7: -100, 9: -100}),  # "X cannot win this game"
        ("OO.XO.XX.", 3, {3: -100, 6: -100, 9: 100}),
    ],
)
def test_nstep_scores_match_the_seeds_printed_dicts(board, depth, scores):
    # (The seed's first example, X1 O5 X2 with X to move, is not a legal turn order: O moves there.)
    assert agent(f"nstep:{depth}").scores(board) == {cell - 1: s for cell, s in scores.items()}


def test_minimax_heuristic_weights():
    minimax = agent("minimax:1")
    # X X X      X: one complete line (+100,000), open twos: none left (the lines through
    # O O .      the empty cells 5,6,7,8 ...): 2-5-8? X . . no. O: 3-4-5 open two (-100)
    # . . .
    assert minimax.heuristic("XXXOO....", "X") == 100_000 - 100
    assert minimax.heuristic("XXXOO....", "O") == -1_000 + 1
    assert minimax.heuristic("X...O....", "X") == 0


def test_minimax_blocks_where_the_seeds_literal_code_does_not():
    # X X .      O to move. The seed's minimising branch never places X's reply and scores the
    # . O .      leaves for alternating sides, so its depth-2 search prefers 7 or 8 and lets
    # . . .      X win; with the replies made, minimax:2 blocks at 2.
    board = "XX..O...."
    assert agent("minimax:2").policy(board) == {2: 1.0}
    literal = seed_minimax_scores(board, 2, fixed=False)
    assert {cell for cell, score in literal.items() if score == max(literal.values())} == {7, 8}


def test_monte_carlo_takes_a_win_and_ignores_drawn_playouts():
    mc = agent("mc:300")
    rng = np.random.default_rng(0)
    assert mc.choose("XX.OO....", rng) == 2
    # X O X      O to move, two cells left: both finish in a draw (every playout is drawn), so
    # X O O      under the text every score is 0 (the seed's code scored draws as losses)
    # O X .      (here: one cell left; the last move draws)
    board = "XOXXOOOX."
    assert rules.to_move(board) == "X"
    assert list(mc.scores(board, rng)) == [0] * 9
    assert mc.choose(board, rng) == 8


def test_monte_carlo_scores_follow_the_seed():
    # X X .      X to move: every playout where X plays 2 first... X moves first in each playout
    # O O .      so half... check the sign convention: winning squares score high for X
    # . . .
    scores = agent("mc:2000").scores("XX.OO....", np.random.default_rng(3))
    assert scores[2] == max(scores[c] for c in (2, 5, 6, 7, 8))
    assert scores[0] > 0 and scores[3] < 0  # X's squares gain when X wins; O's lose MCOTHER


def test_monte_carlo_is_reproducible_from_the_generator():
    first = [agent("mc:100").choose(".........", np.random.default_rng(7)) for _ in range(3)]
    assert len(set(first)) == 1


def test_perfect_keeps_the_value_and_wins_fastest(oracle):
    perfect = agent("perfect", oracle)
    # X X .      X wins now at 2, or later via 6 (0-3-6 needs 3): fastest is 2
    # O . .
    # O . .
    board = "XX.O..O.."
    assert perfect.policy(board) == {2: 1.0}
    for board in sample(unfinished_boards(perfect.variant), 200):
        position = oracle.probe(board)
        assert set(perfect.policy(board)) == set(position.preferred_moves)


def test_perfect_with_probability_mixes_in_random(oracle):
    half = agent("perfect:0.5", oracle)
    board = "XX.OO...."
    assert half.policy(board) == pytest.approx({2: 0.6, 5: 0.1, 6: 0.1, 7: 0.1, 8: 0.1})
    assert agent("perfect:0", oracle).policy(board) == pytest.approx(agent("random").policy(board))


def test_perfect_loads_the_oracle_lazily(oracle):
    from ttt_solver.players.agents.perfect import PerfectAgent

    player = PerfectAgent()
    assert player._oracle is None  # nothing read until a move is asked for


# -- literal ports of the seeds' code ------------------------------------------------------
class BookEnv:
    """Seed 001's ``ttt`` environment without the turtle drawing, started from a board."""

    def __init__(self, board: str) -> None:
        self.turn = rules.to_move(board)
        self.rounds = rules.ply(board) + 1
        self.validinputs = [c + 1 for c, m in enumerate(board) if m == "."]
        self.occupied = {p: [c + 1 for c, m in enumerate(board) if m == p] for p in "XO"}
        self.done, self.reward = False, 0

    def step(self, inp):
        self.occupied[self.turn].append(inp)
        self.validinputs.remove(inp)
        if self.win_game() == True:
            self.done = True
            self.reward = 2 * (self.turn == "X") - 1
            self.validinputs = []
        elif self.rounds == 9:
            self.done = True
            self.reward = 0
            self.validinputs = []
        self.rounds += 1
        self.turn = "O" if self.turn == "X" else "X"
        return None, self.reward, self.done, ""

    def win_game(self):
        lst = self.occupied[self.turn]
        return any(all(c in lst for c in line) for line in BOOK_LINES)


def deepcopy(env: BookEnv) -> BookEnv:  # copy.deepcopy, only faster
    twin = copy.copy(env)
    twin.validinputs = list(env.validinputs)
    twin.occupied = {p: list(v) for p, v in env.occupied.items()}
    return twin


def AI_think1(env):
    for m in env.validinputs:
        env_copy = deepcopy(env)
        _new_state, reward, done, _info = env_copy.step(m)
        if done and abs(reward) == 1:
            return m
    return None


def AI_think2(env):
    winner = AI_think1(env)
    if winner is not None:
        return winner
    for m1 in env.validinputs:
        for m2 in env.validinputs:
            if m1 != m2:
                env_copy = deepcopy(env)
                s, r, done, _ = env_copy.step(m1)
                _s, r, done, _ = env_copy.step(m2)
                if done and r != 0:
                    return m2
    return None


def AI_think3(env):
    winner = AI_think1(env)
    if winner is not None:
        return winner
    loser = AI_think2(env)
    if loser is not None:
        return loser
    w3 = []
    for m1 in env.validinputs:
        for m2 in env.validinputs:
            for m3 in env.validinputs:
                if m1 != m2 and m1 != m3 and m2 != m3:
                    env_copy = deepcopy(env)
                    s, r, done, _ = env_copy.step(m1)
                    s, r, done, _ = env_copy.step(m2)
                    _s, r, done, _ = env_copy.step(m3)
                    if done and r != 0:
                        w3.append(m1)
    if len(w3) > 0:
        return max(set(w3), key=w3.count)
    return None


@pytest.mark.parametrize("level, seed_rule, count", [(1, AI_think1, None), (2, AI_think2, None), (3, AI_think3, 700)])
def test_think_players_match_the_seed_code(level, seed_rule, count):
    player = agent(f"think{level}")
    boards = unfinished_boards(player.variant)
    for board in boards if count is None else sample(boards, count, seed=level):
        book = seed_rule(BookEnv(board))
        expected = {book - 1: 1.0} if book is not None else {c: 1 / board.count(".") for c in rules.legal_moves(board)}
        assert player.policy(board) == pytest.approx(expected), board


def to_dict(board: str) -> dict[int, str]:
    return {i + 1: " " if m == "." else m for i, m in enumerate(board)}


WIN_PATTERNS = [[1, 2, 3], [4, 5, 6], [7, 8, 9], [1, 4, 7], [2, 5, 8], [3, 6, 9], [1, 5, 9], [7, 5, 3]]


def heuristic_ai(board, player_label, choice):
    """Seed 003's ``GameEngine.heuristic_ai`` (``self.board`` passed in, random.choice -> choice)."""
    opponent = ["X", "O"]
    opponent.remove(player_label)
    opponent = opponent[0]
    avail_moves = [i for i in board if board[i] == " "]
    temp_board = board.copy()
    middle, corner, side = 5, [1, 3, 7, 9], [2, 4, 6, 8]
    move_found = False
    for move in avail_moves:
        temp_board[move] = player_label
        for pattern in WIN_PATTERNS:
            if [temp_board[i] for i in pattern] == [player_label] * 3:
                move_found = True
                break
        if move_found:
            break
        temp_board[move] = " "
    if move_found is False:
        for move in avail_moves:
            temp_board[move] = opponent
            for pattern in WIN_PATTERNS:
                if [temp_board[i] for i in pattern] == [opponent] * 3:
                    move_found = True
                    break
            if move_found:
                break
            temp_board[move] = " "
    if move_found is False and middle in avail_moves:
        move_found, move = True, middle
    if move_found is False:
        move_corner = [val for val in avail_moves if val in corner]
        if len(move_corner) > 0:
            move, move_found = choice(move_corner), True
    if move_found is False:
        move_side = [val for val in avail_moves if val in side]
        if len(move_side) > 0:
            move, move_found = choice(move_side), True
    return move


def one_step_ai(board, win_patterns, player_label, choice):
    opponent = ["X", "O"]
    opponent.remove(player_label)
    opponent = opponent[0]
    avail_moves = {i: 1 for i in board if board[i] == " "}
    temp_board = board.copy()
    for move in avail_moves:
        temp_board[move] = opponent
        for pattern in win_patterns:
            if [temp_board[i] for i in pattern] == [opponent] * 3:
                avail_moves[move] = 10
        temp_board[move] = " "
    for move in avail_moves:
        temp_board[move] = player_label
        for pattern in win_patterns:
            if [temp_board[i] for i in pattern] == [player_label] * 3:
                avail_moves[move] = 100
        temp_board[move] = " "
    max_score = max(avail_moves.values())
    return choice([key for key, value in avail_moves.items() if value == max_score])


def n_step_scores(board, player_label, n_steps):
    """Seed 003's ``n_step_ai_temp``, with ``check_stalemate`` fixed to see a full drawn board."""

    def check_winning(board):
        return any([board[i] for i in p] in (["X"] * 3, ["O"] * 3) for p in WIN_PATTERNS)

    def check_stalemate(board):  # the seed: check_winning(...) == '' (never true)
        return " " not in board.values() and not check_winning(board)

    def get_score(board):
        opponent = "O" if player_label == "X" else "X"
        score = 0
        for pattern in WIN_PATTERNS:
            values = [board[i] for i in pattern]
            if values == [opponent] * 3:
                score = -100
            elif values == [player_label] * 3:
                score = 100
        return score

    def minimax(depth, board, maximizing_player):
        opponent = "O" if player_label == "X" else "X"
        avail_moves = [i for i in board if board[i] == " "]
        if check_winning(board) or check_stalemate(board) or depth == 0:
            return get_score(board)
        if maximizing_player:
            score = -np.inf
            for move in avail_moves:
                new_board = board.copy()
                new_board[move] = player_label
                score = max(score, minimax(depth - 1, new_board, False))
            return score
        score = np.inf
        for move in avail_moves:
            new_board = board.copy()
            new_board[move] = opponent
            score = min(score, minimax(depth - 1, new_board, True))
        return score

    scores = {}
    for move in [i for i in board if board[i] == " "]:
        temp_board = board.copy()
        temp_board[move] = player_label
        scores[move] = minimax(n_steps - 1, temp_board, False)
    return scores


def _as_policy(result) -> dict[int, float]:
    options = result if isinstance(result, tuple) else (result,)
    return {book - 1: 1 / len(options) for book in options}


def test_heuristic_and_onestep_match_the_seed_code():
    heuristic, onestep = agent("heuristic"), agent("onestep")
    for board in unfinished_boards(heuristic.variant):
        me = rules.to_move(board)
        assert heuristic.policy(board) == pytest.approx(_as_policy(heuristic_ai(to_dict(board), me, tuple))), board
        assert onestep.policy(board) == pytest.approx(_as_policy(one_step_ai(to_dict(board), WIN_PATTERNS, me, tuple)))


@pytest.mark.parametrize("depth, count", [(1, 300), (2, 300), (3, 200), (4, 60)])
def test_nstep_matches_the_seed_code(depth, count):
    player = agent(f"nstep:{depth}")
    for board in sample(unfinished_boards(player.variant), count, seed=depth):
        expected = n_step_scores(to_dict(board), rules.to_move(board), depth)
        assert player.scores(board) == {book - 1: s for book, s in expected.items()}, board


def seed_minimax_scores(board: str, depth: int, fixed: bool = True) -> dict[int, int]:
    """Seed 000's ``score_move`` per cell: with both documented fixes, or (``fixed=False``) as published."""
    grid = np.array([{"X": 1, "O": 2, ".": 0}[m] for m in board], dtype=np.uint16).reshape(3, 3)
    player = 1 if rules.to_move(board) == "X" else 2

    def windows(g, num, piece):
        lines = [g[r, :] for r in range(3)] + [g[:, c] for c in range(3)]
        lines += [g[range(3), range(3)], g[range(3), range(2, -1, -1)]]
        return sum(list(w).count(piece) == num and list(w).count(0) == 3 - num for w in lines)

    def get_heuristic(g, p):
        return (
            100000 * windows(g, 3, p)
            + windows(g, 2, p)
            - 100 * windows(g, 2, p % 2 + 1)
            - 1000 * windows(g, 3, p % 2 + 1)
        )

    def finished(g):
        text = "".join(".XO"[v] for v in g.flatten())
        return rules.terminal_value(text) is not None

    def minimax(g, depth, maximising):  # fixed: the opponent moves; leaves scored for `player`
        if depth == 0 or finished(g):
            return get_heuristic(g, player)
        values = []
        for r, c in [(r, c) for r in range(3) for c in range(3) if g[r, c] == 0]:
            child = g.copy()
            child[r, c] = player if maximising else player % 2 + 1
            values.append(minimax(child, depth - 1, not maximising))
        return max(values) if maximising else min(values)

    def literal(grid, depth, player, maximising):  # the published code, line for line
        if depth == 0 or finished(grid):
            return get_heuristic(grid, player)
        ttt = grid.copy()
        moves = [(r, c) for r in range(3) for c in range(3) if grid[r, c] == 0]
        if maximising:
            value = -0b1 << 20
            for valid_move in moves:
                ttt[valid_move] = player
                value = max(value, literal(ttt, depth - 1, player % 2 + 1, False))
                ttt[valid_move] = 0
            return value
        value = 0b1 << 20
        for valid_move in moves:
            value = min(value, literal(ttt, depth - 1, player % 2 + 1, True))
            ttt[valid_move] = 0
        return value

    scores = {}
    for cell in rules.legal_moves(board):
        g = grid.copy()
        g[cell // 3, cell % 3] = player
        scores[cell] = minimax(g, depth - 1, False) if fixed else literal(g, depth - 1, player, False)
    return scores


@pytest.mark.parametrize("depth, count", [(1, 150), (2, 100), (3, 40)])
def test_minimax_matches_the_seed_code(depth, count):
    player = agent(f"minimax:{depth}")
    for board in sample(unfinished_boards(player.variant), count, seed=10 + depth):
        assert player.scores(board) == seed_minimax_scores(board, depth), board


# -- bigger boards -------------------------------------------------------------------------
@pytest.mark.parametrize("spec", ["random", "think3", "heuristic", "onestep", "nstep:2", "minimax:2", "mc:50"])
def test_agents_play_bigger_boards(spec):
    variant = Variant.parse("4x4k3")
    player = make_agent(spec, variant=variant)
    rng = np.random.default_rng(0)
    board = rules.EMPTY * 16
    while rules.terminal_value(board, variant) is None:
        board = rules.play(board, player.choose(board, rng), variant)
    # X X . .    a win on a 4x4 board with 3 in a row
    # O O . .
    win = "XX..OO.........."
    if spec not in ("random", "mc:50"):  # Monte-Carlo has no win rule: 50 playouts may miss it
        assert player.choose(win, rng) == 2
