"""The vectorised environment: the vector API, autoreset, and move-for-move agreement with the single env."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from support.extra_markers import need
from support.stubs import only_raising

pytestmark = pytest.mark.rl
gym = need("rl", "gymnasium")

from gymnasium.vector import AutoresetMode

from ttt_solver import Oracle
from ttt_solver import envs as envs_package
from ttt_solver.envs import TicTacToeEnv, VectorTicTacToe
from ttt_solver.envs.observation import board_tables
from ttt_solver.envs.opponent import CellMoves, Draws, LoopCells, PerfectMoves, PolicyCells, batch_moves
from ttt_solver.errors import GameOverError, InvalidBoardError, InvalidVariantError
from ttt_solver.game.variant import Variant
from ttt_solver.players.agents import PolicyAgent, make_agent
from ttt_solver.players.agents.base import empty_cells
from ttt_solver.solver.reference import solve


class Lopsided(PolicyAgent):
    """An enumerable agent with unequal shares, to exercise the weighted sampling path."""

    def __init__(self) -> None:
        from ttt_solver.game.variant import STANDARD

        super().__init__("lopsided", STANDARD)

    def _policy(self, board):
        cells = empty_cells(board)
        weights = [i + 1 for i in range(len(cells))]
        return {cell: w / sum(weights) for cell, w in zip(cells, weights)}


@pytest.fixture(scope="module")
def oracle() -> Oracle:
    return Oracle.from_solutions(solve())


def legal_actions(masks: np.ndarray, rng: np.random.Generator, illegal: float = 0.0) -> np.ndarray:
    """A random allowed cell per row; with probability ``illegal`` any cell at all."""
    weights = rng.random(masks.shape) * np.maximum(masks, rng.random(masks.shape) < illegal)
    return weights.argmax(axis=1)


def assert_agree(opponent, oracle, n=12, steps=50, seed=7, illegal_rate=0.05, **kwargs):
    """Game i of the vector env against a single env reset with seed + i, step by step."""
    variant = Variant.parse(kwargs.get("variant", "3x3"))
    agent = make_agent(opponent, oracle=oracle, variant=variant) if isinstance(opponent, str) else opponent
    vector = VectorTicTacToe(n, agent, oracle=oracle, **kwargs)
    singles = [TicTacToeEnv(agent, oracle=oracle, **kwargs) for _ in range(n)]
    obs, infos = vector.reset(seed=seed)
    for i, env in enumerate(singles):
        single_obs, info = env.reset(seed=seed + i)
        assert (obs[i] == single_obs).all() and (infos["action_mask"][i] == info["action_mask"]).all()
    rng = np.random.default_rng(1)
    finished = np.zeros(n, dtype=bool)
    for step in range(steps):
        actions = legal_actions(infos["action_mask"], rng, illegal_rate)
        obs, rewards, terminated, truncated, infos = vector.step(actions)
        assert not truncated.any()
        for i, env in enumerate(singles):
            if finished[i]:  # next-step autoreset: the action is ignored, a new game starts
                single_obs, info = env.reset()
                reward, over = 0.0, False
            else:
                single_obs, reward, over, _, info = env.step(int(actions[i]))
            where = f"{opponent} step {step} game {i}"
            assert (obs[i] == single_obs).all(), where
            assert (rewards[i], terminated[i]) == (reward, over), where
            expected = np.ones(variant.cells, dtype=np.int8) if over else info["action_mask"]
            assert (infos["action_mask"][i] == expected).all(), where
        finished = terminated


OPPONENTS = [
    "perfect",
    "perfect:0.6",
    "perfect:0",
    "random",
    "think1",
    "think2",
    "think3",
    "heuristic",
    "onestep",
    "nstep:2",
    "minimax:2",
    "mc:10",
]


@pytest.mark.parametrize("opponent", OPPONENTS)
def test_agrees_with_the_single_env_move_for_move(oracle, opponent):
    assert_agree(opponent, oracle)


@pytest.mark.parametrize("opponent", ["perfect", "perfect:0.8"])
@pytest.mark.parametrize("kwargs", [{"side": "X"}, {"side": "O"}, {"illegal": "penalize", "illegal_reward": -0.5}])
def test_agrees_with_every_side_and_illegal_mode(oracle, opponent, kwargs):
    assert_agree(opponent, oracle, **kwargs)


def test_agrees_with_a_weighted_policy_and_a_long_run(oracle):
    assert_agree(Lopsided(), oracle, n=8, steps=400, illegal_rate=0.0)


def test_each_agent_gets_its_fastest_replay(oracle):
    tables = board_tables()
    assert isinstance(batch_moves(make_agent("perfect:0.5", oracle=oracle), tables), PerfectMoves)
    policy, loop = batch_moves(make_agent("heuristic"), tables), batch_moves(make_agent("mc:5"), tables)
    assert isinstance(policy, CellMoves) and isinstance(policy.picker, PolicyCells) and policy.buffered
    assert isinstance(loop, CellMoves) and isinstance(loop.picker, LoopCells) and not loop.buffered


def test_no_replay_has_a_method_that_only_raises():
    # A base class that forces a method on its subclasses shows as a stub raising
    # NotImplementedError (as the cell replays' cells once was): the replay takes its picker instead.
    assert only_raising(envs_package) == []


def test_block_reads_keep_each_generator_stream():
    generators = [np.random.default_rng(s) for s in range(3)]
    draws = Draws(generators, block=4)
    taken: list[list[float]] = [[], [], []]
    rng = np.random.default_rng(0)
    for _ in range(40):
        draws.prepare(2)
        active = rng.random(3) < 0.7
        drawn = draws.take(active)
        for game in np.flatnonzero(active).tolist():
            taken[game].append(float(drawn[game]))
    for seed, seen in enumerate(taken):
        assert seen == np.random.default_rng(seed).random(len(seen)).tolist()


@pytest.mark.parametrize(
    "block, most",  # a block holds at least one step's draws
    [(block, most) for block in (2, 3, 4, 5, 17, None) for most in (1, 2, 3) if block is None or most <= block],
)
def test_refills_keep_each_generator_stream_whatever_the_block(block, most):
    generators = [np.random.default_rng(s) for s in range(5)]
    draws = Draws(generators, block=block)
    taken: list[list[float]] = [[] for _ in generators]
    rng = np.random.default_rng(most)
    for _ in range(1500 if block is None else 150):
        draws.prepare(most)
        for _ in range(rng.integers(0, most + 1)):  # each game draws at most ``most`` times
            if rng.random() < 0.5:
                active = rng.random(5) < 0.8
                drawn = draws.take(active)
                for game in np.flatnonzero(active).tolist():
                    taken[game].append(float(drawn[game]))
            else:
                games = np.flatnonzero(rng.random(5) < 0.8)
                for game, value in zip(games.tolist(), draws.take_games(games).tolist()):
                    taken[game].append(value)
    for seed, seen in enumerate(taken):
        assert seen == np.random.default_rng(seed).random(len(seen)).tolist()


def test_vector_api(oracle):
    vector = VectorTicTacToe(5, oracle=oracle)
    assert vector.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert vector.single_observation_space == gym.spaces.Box(0, 1, (3, 3, 2), np.int8)
    assert vector.observation_space.shape == (5, 3, 3, 2) and vector.action_space.shape == (5,)
    obs, infos = vector.reset(seed=0)
    assert obs.dtype == np.int8 and obs.shape == (5, 3, 3, 2) and obs in vector.observation_space
    assert infos["action_mask"].shape == (5, 9) and infos["action_mask"].dtype == np.int8
    assert infos["_action_mask"].all()
    assert (vector.action_masks() == infos["action_mask"].astype(bool)).all()
    obs, rewards, terminated, truncated, infos = vector.step(
        legal_actions(infos["action_mask"], np.random.default_rng(0))
    )
    assert rewards.shape == terminated.shape == truncated.shape == (5,)
    assert rewards.dtype == np.float64 and terminated.dtype == truncated.dtype == bool


def test_autoreset_is_next_step(oracle):
    vector = VectorTicTacToe(1, "perfect", "X", oracle=oracle)
    obs, infos = vector.reset(seed=0)
    obs, rewards, terminated, _, infos = vector.step(np.array([0]))
    taken = int(np.flatnonzero(obs[0, :, :, 1].reshape(-1))[0])
    obs, rewards, terminated, _, infos = vector.step(np.array([taken]))  # illegal: ends the game
    assert rewards[0] == -1.0 and terminated[0] and infos["action_mask"][0].all()
    obs, rewards, terminated, _, infos = vector.step(np.array([taken]))  # ignored: a new game
    assert rewards[0] == 0.0 and not terminated[0] and not obs.any() and infos["action_mask"][0].all()


def test_the_perfect_opponent_never_loses_and_perfect_play_always_draws(oracle):
    vector = VectorTicTacToe(256, oracle=oracle)
    _, infos = vector.reset(seed=0)
    rng = np.random.default_rng(0)
    results: Counter[float] = Counter()
    for _ in range(60):
        _, rewards, terminated, _, infos = vector.step(legal_actions(infos["action_mask"], rng))
        results.update(rewards[terminated].tolist())
    assert set(results) == {0.0, -1.0} and sum(results.values()) > 2000
    tables = board_tables()
    vector.reset(seed=1)
    draws: Counter[float] = Counter()
    for _ in range(40):
        boards = np.array([[{"X": 1, "O": -1, ".": 0}[m] for m in tables.texts[i]] for i in vector._index.tolist()])
        cells = oracle.best_move_batch(boards, rng).astype(np.intp)
        cells[cells < 0] = 0  # a finished game: the action is ignored
        _, rewards, terminated, _, infos = vector.step(cells)
        draws.update(rewards[terminated].tolist())
    assert set(draws) == {0.0} and sum(draws.values()) > 500


def test_seeds(oracle):
    vector = VectorTicTacToe(3, "perfect:0.5", oracle=oracle)
    first = vector.reset(seed=[4, 5, 6])[0]
    again = vector.reset(seed=4)[0]
    assert (first == again).all()
    vector.reset()  # no seed: the generators go on
    with pytest.raises(ValueError, match="expected 3 seeds"):
        vector.reset(seed=[1, 2])
    with pytest.raises(ValueError, match="takes none"):
        vector.reset(options={"board": "........."})


def test_bad_calls(oracle):
    with pytest.raises(ValueError, match="num_envs"):
        VectorTicTacToe(0, oracle=oracle)
    vector = VectorTicTacToe(2, oracle=oracle, side="X", illegal="raise")
    with pytest.raises(GameOverError, match="reset"):
        vector.step(np.array([0, 0]))
    vector.reset(seed=0)
    for actions in (np.array([0]), np.array([0.0, 1.0]), np.array([0, 9]), np.array([-1, 0])):
        with pytest.raises(InvalidBoardError, match="invalid action"):
            vector.step(actions)
    vector.step(np.array([4, 4]))
    taken = vector._tables.texts[int(vector._index[1])].index("X")
    with pytest.raises(InvalidBoardError, match="illegal action .* in game 1"):
        vector.step(np.array([vector._tables.texts[int(vector._index[0])].index("."), taken]))


def test_render(oracle):
    vector = VectorTicTacToe(2, "heuristic", "X", oracle=oracle, render_mode="ansi")
    vector.reset(seed=0)
    assert vector.render() == ("...\n...\n...", "...\n...\n...")
    assert VectorTicTacToe(1, oracle=oracle).render() is None


# -- other variants --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name, opponent",
    [
        ("3x3-misere", "perfect:0.7"),
        ("3x3-misere", "perfect"),
        ("3x4k3", "perfect"),
        ("3x3-misere", "nstep:2"),
        ("3x3-misere", "mc:5"),
        ("3x4k3", "perfect:0.7"),
        ("4x3k3", "think2"),
    ],
)
def test_agrees_with_the_single_env_on_other_variants(variant_db, name, opponent):
    oracle = Oracle.load(variant_db(name), name) if opponent.startswith("perfect") else None
    assert_agree(opponent, oracle, n=6, steps=40, variant=name)


def test_boards_too_big_for_dense_tables_are_refused():
    with pytest.raises(InvalidVariantError, match="^VectorTicTacToe covers boards of up to 12 cells, not 4x4 "):
        VectorTicTacToe(2, "random", variant="4x4")
    vector = VectorTicTacToe(3, "random", variant="3x4k3")
    obs, infos = vector.reset(seed=0)
    assert obs.shape == (3, 3, 4, 2) and infos["action_mask"].shape == (3, 12)


@pytest.mark.parametrize("dtype", [np.intp, np.int64, np.int32, np.uint8])
def test_step_leaves_the_callers_actions_as_they_were(oracle, dtype):
    vector = VectorTicTacToe(4, oracle=oracle)
    vector.reset(seed=0)
    actions = np.array([0, 1, 2, 3], dtype=dtype)
    vector.step(actions)  # step works on the cell numbers in place: on its own copy
    assert actions.tolist() == [0, 1, 2, 3] and actions.dtype == dtype
