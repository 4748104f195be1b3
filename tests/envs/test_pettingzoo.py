"""PerfectPolicy in PettingZoo's tic-tac-toe: the cell numbering, and it never loses as either player."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from support.extra_markers import need

pytestmark = pytest.mark.rl
pettingzoo = need("rl", "pettingzoo")
need("rl", "pygame")

from ttt_solver import Oracle
from ttt_solver.envs import PZ_TO_CELL, PerfectPolicy, board_from_observation
from ttt_solver.errors import GameOverError, InvalidBoardError, InvalidVariantError
from ttt_solver.game import rules
from ttt_solver.players.agents import make_agent
from ttt_solver.solver.reference import solve

# PettingZoo's documented layout of its actions on the board, row by row.
PZ_LAYOUT = ((0, 3, 6), (1, 4, 7), (2, 5, 8))


@pytest.fixture(scope="module")
def oracle() -> Oracle:
    return Oracle.from_solutions(solve())


def make_env():
    """``pettingzoo.make("aec", "classic/tictactoe_v3")`` where available (1.25+), else the module."""
    if hasattr(pettingzoo, "make"):
        return pettingzoo.make("aec", "classic/tictactoe_v3")
    from pettingzoo.classic import tictactoe_v3

    return tictactoe_v3.env()


def to_pz_observation(board: str) -> dict[str, np.ndarray]:
    """Our text board -> the observation PettingZoo gives the player to move, built from its layout."""
    me = rules.to_move(board)
    observation = np.zeros((3, 3, 2), dtype=np.int8)
    mask = np.zeros(9, dtype=np.int8)
    for row in range(3):
        for col in range(3):
            action, mark = PZ_LAYOUT[row][col], board[3 * row + col]
            if mark != ".":
                observation[action // 3, action % 3, 0 if mark == me else 1] = 1
            elif rules.terminal_value(board) is None:
                mask[action] = 1
    return {"observation": observation, "action_mask": mask}


def test_the_numbering_matches_pettingzoo():
    cell_of_action = {
        action: 3 * row + col for row, actions in enumerate(PZ_LAYOUT) for col, action in enumerate(actions)
    }
    assert PZ_TO_CELL == tuple(cell_of_action[a] for a in range(9))
    assert all(PZ_TO_CELL[PZ_TO_CELL[a]] == a for a in range(9))
    env = make_env()
    env.reset(seed=0)
    env.step(6)  # player_1 (X) on PettingZoo's 6: top right
    observation = env.last()[0]["observation"]
    assert env.unwrapped.board.squares == [0, 0, 0, 0, 0, 0, 1, 0, 0]
    assert observation[2, 0, 1] == 1 and observation.sum() == 1  # square 6 is observation[6 // 3, 6 % 3]
    assert PZ_TO_CELL[6] == 2  # top right in row-major numbering


def test_our_picture_of_its_observations_is_right():
    """Random games in the real environment, our board tracked through PZ_LAYOUT alone."""
    cell_of_action = {
        action: 3 * row + col for row, actions in enumerate(PZ_LAYOUT) for col, action in enumerate(actions)
    }
    env = make_env()
    rng = np.random.default_rng(0)
    for game in range(30):
        env.reset(seed=game)
        board = "." * 9
        for _ in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            expected = to_pz_observation(board)
            assert (observation["observation"] == expected["observation"]).all(), board
            assert (observation["action_mask"] == expected["action_mask"]).all(), board
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            board = rules.play(board, cell_of_action[action])
            env.step(action)


@pytest.mark.parametrize(
    "board, action",
    [
        ("XX.OO....", 6),  # X wins on our cell 2, top right: PettingZoo's 6
        ("XO.XO....", 2),  # X wins on our cell 6, bottom left: PettingZoo's 2
        ("XX.OO.X..", 7),  # O wins on our cell 5, middle right: PettingZoo's 7
        ("X...O...X", 3),  # no win: perfect O plays an edge; lowest in our numbering is 1, PettingZoo's 3
    ],
)
def test_known_positions(oracle, board, action):
    assert PerfectPolicy(oracle)(**to_pz_observation(board)) == action


def test_board_from_observation_on_every_position():
    for board in rules.all_boards():
        if rules.terminal_value(board) is None:
            assert board_from_observation(to_pz_observation(board)) == board


def test_every_position_single_and_batch(oracle):
    policy = PerfectPolicy(oracle)
    playable = [b for b in rules.all_boards() if rules.terminal_value(b) is None]
    observations = [to_pz_observation(b) for b in playable]
    actions = [policy(o) for o in observations]  # the dict form, as env.last() gives it
    for board, action in zip(playable, actions):
        assert PZ_TO_CELL[action] == oracle.best_move(board), board
    batch = policy.batch(
        np.stack([o["observation"] for o in observations]), np.stack([o["action_mask"] for o in observations])
    )
    assert batch.tolist() == actions


def play(env, policies: dict[str, object], seed: int) -> dict[str, float]:
    """One AEC game; each player's total reward."""
    env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        totals[agent] += reward
        env.step(None if termination or truncation else policies[agent](observation))
    return totals


def random_player(rng):
    return lambda observation: int(rng.choice(np.flatnonzero(observation["action_mask"])))


def agent_player(spec, oracle, rng):
    agent = make_agent(spec, oracle=oracle)

    def choose(observation):
        return PZ_TO_CELL[agent.choose(board_from_observation(observation), rng)]

    return choose


@pytest.mark.parametrize("perfect_seat", ["player_1", "player_2"])
@pytest.mark.parametrize("opponent", ["random", "heuristic", "perfect:0.5", "perfect"])
def test_never_loses_as_either_player(oracle, perfect_seat, opponent):
    rng = np.random.default_rng(0)
    policy = PerfectPolicy(oracle, rng=1)
    other = random_player(rng) if opponent == "random" else agent_player(opponent, oracle, rng)
    env = make_env()
    results: Counter[float] = Counter()
    for game in range(150):
        seats = {seat: (policy if seat == perfect_seat else other) for seat in env.possible_agents}
        results[play(env, seats, game)[perfect_seat]] += 1
    assert -1.0 not in results, results
    if opponent == "perfect":
        assert results == {0.0: 150}
    if opponent == "random":
        assert results[1.0] > 100


def test_errors(oracle):
    policy = PerfectPolicy(oracle)
    finished = to_pz_observation("XXXOO....")
    with pytest.raises(GameOverError):
        policy(finished["observation"])
    with pytest.raises(GameOverError):
        policy.batch(finished["observation"][None])
    with pytest.raises(InvalidBoardError, match="disagree"):
        policy(to_pz_observation("XX.OO....")["observation"], np.zeros(9, dtype=np.int8))
    with pytest.raises(InvalidBoardError, match="shape"):
        policy(np.zeros((9, 2)))
    with pytest.raises(InvalidBoardError, match="shape"):
        policy.batch(np.zeros((3, 3, 2)))


def test_pettingzoo_is_3x3_only(variant_db):
    with pytest.raises(InvalidVariantError, match="PettingZoo's tic-tac-toe is 3x3, the oracle solves 3x3-misere"):
        PerfectPolicy(Oracle.load(variant_db("3x3-misere"), "3x3-misere"))
