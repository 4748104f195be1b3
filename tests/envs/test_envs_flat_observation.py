"""``observation="flat"``: the board as one vector, which Stable-Baselines3 takes without warnings
(its ``check_env`` takes the default ``(rows, cols, 2)`` int8 planes for an image and warns
three times: dtype, bounds, size)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from support.extra_markers import need

pytestmark = pytest.mark.rl
gym = need("rl", "gymnasium")

from ttt_solver import Oracle
from ttt_solver.envs import ENV_ID, TicTacToeEnv, VectorTicTacToe
from ttt_solver.game.variant import Variant
from ttt_solver.solver.reference import solve


@pytest.fixture(scope="module")
def oracle() -> Oracle:
    return Oracle.from_solutions(solve())


def sb3_warnings(env: gym.Env) -> list[str]:
    env_checker = need("sb3", "stable_baselines3.common.env_checker")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env_checker.check_env(env)
    return [str(warning.message) for warning in caught]


@pytest.mark.sb3
@pytest.mark.parametrize("side", ["X", "O", "random"])
@pytest.mark.parametrize("opponent", ["perfect", "random"])
def test_stable_baselines3_check_env_gives_no_warning_with_the_flat_observation(oracle, side, opponent):
    assert sb3_warnings(TicTacToeEnv(opponent, side, oracle=oracle, observation="flat")) == []


@pytest.mark.sb3
@pytest.mark.parametrize("variant", ["3x3-misere", "3x4k3", "4x4"])
def test_no_warning_on_other_boards_either(variant):
    assert sb3_warnings(TicTacToeEnv("random", variant=variant, observation="flat")) == []


@pytest.mark.sb3
def test_the_default_planes_are_what_sb3_warned_about(oracle):
    """Why the flat layout exists: the planes stay the default, and SB3 still warns on them."""
    found = sb3_warnings(TicTacToeEnv("random", oracle=oracle))
    assert len(found) == 3 and all("image" in message or "resolution" in message for message in found)


@pytest.mark.parametrize("opponent", ["perfect", "perfect:0.5", "random"])  # perfect: the replies' fast path
def test_flat_is_the_planes_read_row_major_move_for_move(oracle, opponent):
    planes = TicTacToeEnv(opponent, oracle=oracle)
    flat = TicTacToeEnv(opponent, oracle=oracle, observation="flat")
    assert flat.observation_space == gym.spaces.Box(0, 1, (18,), np.int8)
    for seed in range(20):
        (a, _), (b, _) = planes.reset(seed=seed), flat.reset(seed=seed)
        over = False
        while not over:
            assert b.shape == (18,) and b.dtype == np.int8 and b in flat.observation_space
            assert np.array_equal(a.reshape(-1), b) and b.flags.writeable
            cell = int(np.flatnonzero(planes.action_masks())[seed % int(planes.action_masks().sum())])
            (a, r1, over, _, _), (b, r2, _, _, _) = planes.step(cell), flat.step(cell)
            assert r1 == r2
        assert np.array_equal(a.reshape(-1), b)


def test_the_vector_environment_and_gymnasium_make_take_the_layout_too(oracle):
    vector = VectorTicTacToe(4, "random", oracle=oracle, observation="flat")
    assert vector.single_observation_space == gym.spaces.Box(0, 1, (18,), np.int8)
    reference = VectorTicTacToe(4, "random", oracle=oracle)
    (obs, _), (planes, _) = vector.reset(seed=3), reference.reset(seed=3)
    for step in range(12):
        assert obs.shape == (4, 18) and np.array_equal(obs, planes.reshape(4, -1))
        actions = np.array([int(np.flatnonzero(mask)[0]) for mask in vector.action_masks()])
        (obs, *_), (planes, *_) = vector.step(actions), reference.step(actions)
    made = gym.make(ENV_ID, oracle=oracle, opponent="random", observation="flat")
    assert made.reset(seed=0)[0].shape == (18,)
    batched = gym.make_vec(ENV_ID, num_envs=2, oracle=oracle, opponent="random", observation="flat")
    assert batched.reset(seed=0)[0].shape == (2, 18)
    assert TicTacToeEnv("random", variant=Variant.parse("3x4k3"), observation="flat").reset()[0].shape == (24,)


def test_an_unknown_layout_is_refused():
    with pytest.raises(ValueError, match="invalid observation 'image': expected 'planes' or 'flat'"):
        TicTacToeEnv("random", observation="image")
