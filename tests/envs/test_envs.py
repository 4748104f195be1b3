"""The Gymnasium environment: the checker, seeds, masks on every position, rewards, illegal moves."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

import numpy as np
import pytest
from support.boards import legal_boards
from support.extra_markers import need

pytestmark = pytest.mark.rl
gym = need("rl", "gymnasium")

from gymnasium.utils.env_checker import check_env

from ttt_solver import Oracle
from ttt_solver.envs import ENV_ID, TicTacToeEnv, VectorTicTacToe
from ttt_solver.envs.observation import PLAYING, LazyBoardTables, board_tables
from ttt_solver.errors import GameOverError, InvalidAgentError, InvalidBoardError, InvalidVariantError
from ttt_solver.game import rules
from ttt_solver.game.variant import Variant
from ttt_solver.players.agents import make_agent
from ttt_solver.players.agents.perfect import PerfectAgent
from ttt_solver.solver.reference import solve

LEGAL = legal_boards()
PLAYABLE = [b for b in LEGAL if rules.terminal_value(b) is None]


@pytest.fixture(scope="module")
def oracle() -> Oracle:
    return Oracle.from_solutions(solve())


def play_out(env: TicTacToeEnv, choose, seed: int | None = None) -> tuple[float, list[int]]:
    """One episode with the learner's ``choose(env, info)``; (final reward, actions)."""
    _, info = env.reset(seed=seed)
    actions = []
    while True:
        action = choose(env, info)
        actions.append(action)
        _, reward, terminated, truncated, info = env.step(action)
        assert not truncated
        if terminated:
            return reward, actions


def random_legal(rng):
    return lambda env, info: int(rng.choice(np.flatnonzero(info["action_mask"])))


def test_importing_the_package_does_not_import_gymnasium():
    code = "import ttt_solver, sys; ttt_solver.Board('X...O....'); print('gymnasium' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


@pytest.mark.parametrize("side", ["random", "X", "O"])
@pytest.mark.parametrize("opponent", ["perfect", "perfect:0.5", "heuristic", "random"])
def test_check_env_passes(oracle, side, opponent):
    check_env(TicTacToeEnv(opponent, side, oracle=oracle), skip_render_check=True)


def test_check_env_passes_through_gymnasium_make_with_every_render_mode(oracle, capsys):
    for mode in (None, "ansi", "human", "rgb_array"):
        env = gym.make(ENV_ID, oracle=oracle, render_mode=mode)
        check_env(env.unwrapped)
    assert "learner:" in capsys.readouterr().out


def test_registered_for_make_and_make_vec(oracle):
    env = gym.make(ENV_ID, opponent="heuristic", side="O", oracle=oracle)
    assert isinstance(env.unwrapped, TicTacToeEnv) and env.unwrapped.opponent.name == "heuristic"
    vector = gym.make_vec(ENV_ID, num_envs=3, oracle=oracle)
    assert isinstance(vector.unwrapped, VectorTicTacToe) and vector.num_envs == 3


def test_spaces_and_first_observation(oracle):
    env = TicTacToeEnv(oracle=oracle, side="X")
    assert env.observation_space == gym.spaces.Box(0, 1, (3, 3, 2), np.int8)
    assert env.action_space == gym.spaces.Discrete(9)
    obs, info = env.reset(seed=0)
    assert obs.dtype == np.int8 and not obs.any()
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].tolist() == [1] * 9
    assert env.action_masks().dtype == bool and env.action_masks().all()


def test_seeded_runs_repeat_exactly(oracle):
    def trajectory(seed):
        env = TicTacToeEnv("perfect:0.7", oracle=oracle)
        learner = np.random.default_rng(99)
        env.reset(seed=seed)
        return [play_out(env, random_legal(learner)) + (env.board, env.side) for _ in range(30)]

    assert trajectory(5) == trajectory(5)
    assert trajectory(5) != trajectory(6)


def test_the_opponent_draws_from_the_env_generator(oracle):
    env = TicTacToeEnv("perfect", "O", oracle=oracle)
    env.reset(seed=3)
    state = env.np_random.bit_generator.state
    agent = make_agent("perfect", oracle=oracle)
    expected = agent.choose("." * 9, np.random.default_rng(3))
    assert env.board == rules.play("." * 9, expected)
    assert state == env.np_random.bit_generator.state


def test_random_side_is_drawn_per_episode(oracle):
    env = TicTacToeEnv("heuristic", oracle=oracle)
    env.reset(seed=0)
    sides = Counter()
    for _ in range(400):
        env.reset()
        sides[env.side] += 1
    assert 150 < sides["X"] < 250 and sides["X"] + sides["O"] == 400


def test_mask_and_observation_on_every_legal_position(oracle):
    env = TicTacToeEnv(oracle=oracle)
    for board in PLAYABLE:
        obs, info = env.reset(options={"board": board})
        me = rules.to_move(board)
        assert env.side == me and env.board == board
        assert np.flatnonzero(info["action_mask"]).tolist() == rules.legal_moves(board), board
        assert np.flatnonzero(env.action_masks()).tolist() == rules.legal_moves(board), board
        assert np.flatnonzero(obs[:, :, 0]).tolist() == [c for c in range(9) if board[c] == me], board
        assert np.flatnonzero(obs[:, :, 1]).tolist() == [c for c in range(9) if board[c] not in (me, ".")], board


def test_tables_on_every_legal_board():
    tables = board_tables()
    assert len(tables.texts) == len(LEGAL) == 5478
    for board in LEGAL:
        index = tables.index_of(board)
        assert tables.texts[index] == board
        value = rules.terminal_value(board)
        assert tables.final[index] == (PLAYING if value is None else value)
        assert np.flatnonzero(tables.masks[index]).tolist() == rules.legal_moves(board)
        x = [c for c in range(9) if board[c] == "X"]
        assert np.flatnonzero(tables.planes[index, 0, :, :, 0]).tolist() == x
        assert np.flatnonzero(tables.planes[index, 1, :, :, 1]).tolist() == x
    assert tables.index_array(np.array([rules.to_array(b) for b in LEGAL])).tolist() == [
        tables.index_of(b) for b in LEGAL
    ]


def test_the_perfect_opponent_never_loses(oracle):
    env = TicTacToeEnv(oracle=oracle)
    env.reset(seed=1)
    rewards = Counter(play_out(env, random_legal(np.random.default_rng(1)))[0] for _ in range(2000))
    assert set(rewards) <= {0.0, -1.0} and rewards[-1.0] > 1500


def test_perfect_against_perfect_always_draws(oracle):
    env = TicTacToeEnv(oracle=oracle)
    env.reset(seed=2)
    learner = np.random.default_rng(2)
    assert {play_out(env, lambda e, _: oracle.best_move(e.board, learner))[0] for _ in range(300)} == {0.0}


@pytest.mark.parametrize(
    "board, action, reward",
    [
        ("XX.OO....", 2, 1.0),  # X completes the top row
        ("XX.OO.X..", 5, 1.0),  # O completes the middle row
        ("XX.O.O...", 8, -1.0),  # X misses the win on 2; the perfect O completes 3-4-5
        ("XOXXOOOX.", 8, 0.0),  # X fills the board with no line
    ],
)
def test_rewards_at_the_end(oracle, board, action, reward):
    env = TicTacToeEnv("perfect", oracle=oracle)
    env.reset(seed=0, options={"board": board})
    _, got, terminated, truncated, info = env.step(action)
    assert (got, terminated, truncated) == (reward, True, False) and not info["action_mask"].any()


def test_a_taken_cell_ends_the_episode_with_minus_one(oracle):
    env = TicTacToeEnv(oracle=oracle, side="O")
    obs, _ = env.reset(seed=0)
    taken = int(np.flatnonzero(obs[:, :, 1].reshape(-1))[0])
    before = env.board
    obs2, reward, terminated, truncated, info = env.step(taken)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert env.board == before and (obs2 == obs).all() and not info["action_mask"].any()
    with pytest.raises(GameOverError, match="call reset"):
        env.step(0)


def test_step_before_reset_raises(oracle):
    with pytest.raises(GameOverError, match="call reset"):
        TicTacToeEnv(oracle=oracle).step(0)


def test_illegal_modes(oracle):
    env = TicTacToeEnv(oracle=oracle, side="O", illegal="penalize", illegal_reward=-0.25)
    obs, info = env.reset(seed=0)
    taken = int(np.argmin(info["action_mask"]))
    obs2, reward, terminated, _, info2 = env.step(taken)
    assert (
        (reward, terminated) == (-0.25, False)
        and (obs2 == obs).all()
        and (info2["action_mask"] == info["action_mask"]).all()
    )
    env.step(int(np.argmax(info2["action_mask"])))  # play goes on
    env = TicTacToeEnv(oracle=oracle, side="O", illegal="raise")
    env.reset(seed=0)
    before = env.board
    with pytest.raises(InvalidBoardError, match="is taken"):
        env.step(before.index("X"))
    assert env.board == before
    env.step(before.index("."))


@pytest.mark.parametrize("action", [-1, 9, 2.5, "4", None, True, np.array([1, 2])])
def test_actions_outside_the_space_raise(oracle, action):
    env = TicTacToeEnv(oracle=oracle)
    env.reset(seed=0)
    with pytest.raises(InvalidBoardError, match="invalid action"):
        env.step(action)


def test_numpy_actions_are_accepted(oracle):
    env = TicTacToeEnv(oracle=oracle, side="X", opponent="heuristic")
    env.reset(seed=0)
    env.step(np.int64(0))
    env.step(np.array(env.board.index(".")))


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"side": "Z"}, ValueError),
        ({"illegal": "ignore"}, ValueError),
        ({"render_mode": "rgb"}, ValueError),
        ({"opponent": "grandmaster"}, InvalidAgentError),
        ({"opponent": 42}, TypeError),
    ],
)
def test_bad_arguments(oracle, kwargs, error):
    with pytest.raises(error):
        TicTacToeEnv(oracle=oracle, **kwargs)


@pytest.mark.parametrize("variant", [33, None, ("3", "3")])
@pytest.mark.parametrize("env", [TicTacToeEnv, VectorTicTacToe])
def test_a_variant_that_is_neither_a_variant_nor_a_name_is_refused_with_its_error(env, variant):
    with pytest.raises(InvalidVariantError, match="^invalid variant .*: expected text such as 4x4k3$"):
        env(opponent="random", variant=variant)


def test_reset_options_errors(oracle):
    env = TicTacToeEnv(oracle=oracle)
    with pytest.raises(GameOverError):
        env.reset(options={"board": "XXXOO...."})
    with pytest.raises(InvalidBoardError):
        env.reset(options={"board": "XXXXX...."})
    env.reset(seed=0, options={"side": "O"})
    assert env.side == "O" and env.board.count("X") == 1


def test_an_agent_object_as_opponent(oracle):
    agent = make_agent("think2")
    env = TicTacToeEnv(agent, oracle=oracle)
    assert env.opponent is agent
    env.reset(seed=0)
    play_out(env, random_legal(np.random.default_rng(0)))


def test_render(oracle, capsys):
    env = TicTacToeEnv(oracle=oracle, side="X", render_mode="ansi")
    env.reset(seed=0, options={"board": "XX.OO...."})
    assert env.render() == "XX.\nOO.\n...\nlearner: X, to move\n"
    env.step(2)
    assert env.render().endswith("learner: X, won\n")
    human = TicTacToeEnv(oracle=oracle, side="X", render_mode="human")
    human.reset(seed=0)
    assert capsys.readouterr().out == "...\n...\n...\nlearner: X, to move\n\n"


# -- other variants --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def misere_oracle(variant_db) -> Oracle:
    return Oracle.load(variant_db("3x3-misere"), "3x3-misere")


@pytest.mark.parametrize("opponent", ["perfect", "perfect:0.5", "nstep:2", "mc:10", "random"])
def test_check_env_passes_on_misere(misere_oracle, opponent):
    check_env(TicTacToeEnv(opponent, oracle=misere_oracle, variant="3x3-misere"), skip_render_check=True)


@pytest.mark.parametrize(
    "board, action, reward, over",
    [
        ("X.O...O.X", 4, -1.0, True),  # X completes the diagonal 0-4-8: in misère the maker loses
        ("...OOXOXX", 1, 1.0, True),  # X is safe on 1; O is left with 0 and 2, each completing a line of O
        ("X.O...O.X", 1, 0.0, False),  # a safe move; the perfect O replies and play goes on
    ],
)
def test_misere_rewards(misere_oracle, board, action, reward, over):
    env = TicTacToeEnv("perfect", oracle=misere_oracle, variant="3x3-misere")
    env.reset(seed=0, options={"board": board})
    _, got, terminated, _, info = env.step(action)
    assert (got, terminated) == (reward, over)
    assert info["action_mask"].any() != over


def test_the_perfect_misere_opponent_never_loses(misere_oracle):
    env = TicTacToeEnv(oracle=misere_oracle, variant="3x3-misere")
    env.reset(seed=4)
    rewards = Counter(play_out(env, random_legal(np.random.default_rng(4)))[0] for _ in range(500))
    assert set(rewards) <= {0.0, -1.0}


def test_4x4_env_against_the_perfect_opponent(eager_4x4):
    env = TicTacToeEnv(oracle=eager_4x4, variant="4x4")
    assert env.observation_space == gym.spaces.Box(0, 1, (4, 4, 2), np.int8)
    assert env.action_space == gym.spaces.Discrete(16)
    check_env(env, skip_render_check=True)
    env.reset(seed=5)
    rewards = Counter(play_out(env, random_legal(np.random.default_rng(5)))[0] for _ in range(40))
    assert set(rewards) <= {0.0, -1.0}
    obs, info = env.reset(options={"board": "XX.OO..........."})
    assert np.flatnonzero(obs[:, :, 0]).tolist() == [0, 1] and np.flatnonzero(obs[:, :, 1]).tolist() == [3, 4]
    assert info["action_mask"].sum() == 12


def test_3x4_observations_are_rows_by_columns():
    env = TicTacToeEnv("think2", "X", variant="3x4k3")
    obs, info = env.reset(seed=0)
    assert obs.shape == (3, 4, 2) and info["action_mask"].shape == (12,)
    obs, *_ = env.step(7)  # row 1, column 3
    assert obs[1, 3, 0] == 1 and obs[:, :, 1].sum() == 1


def test_tables_of_a_12_cell_board_against_the_rules():
    variant = Variant.parse("4x3k3")
    tables = board_tables(variant)
    assert len(tables.texts) == 111_973 and (tables.final != -128).sum() == 111_973
    for board in list(tables.texts.values())[::97]:
        index = tables.index_of(board)
        value = rules.terminal_value(board, variant)
        assert tables.final[index] == (PLAYING if value is None else value)
        assert np.flatnonzero(tables.masks[index]).tolist() == rules.legal_moves(board, variant)
        assert np.flatnonzero(tables.planes[index, 1, :, :, 0]).tolist() == [c for c in range(12) if board[c] == "O"]


def test_lazy_tables_of_a_big_board_match_the_rules():
    variant = Variant.parse("4x4k3")
    tables = board_tables(variant)
    assert isinstance(tables, LazyBoardTables)
    board = "XX.OO.X........."
    index = tables.index_of(board)
    assert tables.texts[index] == board and tables.final_list[index] == PLAYING
    assert np.flatnonzero(tables.mask_rows[index]).tolist() == rules.legal_moves(board, variant)
    assert np.flatnonzero(tables.plane_rows[1][index][:, :, 1]).tolist() == [0, 1, 6]
    assert not tables.is_legal(tables.index_of("XXX............."))  # X moved three times, O never


# -- the fast path against ``perfect`` (ttt_solver.envs.replies) -------------------------------
class AskedPerfect(PerfectAgent):
    """The perfect rule, but not the exact type: the environment asks ``choose`` every step."""


def step_both(envs, action):
    results = [env.step(action) for env in envs]
    (obs, reward, over, truncated, info), (obs2, reward2, over2, truncated2, info2) = results
    assert (obs == obs2).all() and obs.dtype == obs2.dtype == np.int8 and obs.flags.writeable
    assert (reward, over, truncated) == (reward2, over2, truncated2) and type(reward) is float
    assert (info["action_mask"] == info2["action_mask"]).all() and info["action_mask"].dtype == np.int8
    assert envs[0].board == envs[1].board
    return results[0]


@pytest.mark.parametrize("variant", ["3x3", "3x3-misere"])
def test_the_fast_path_replays_the_perfect_agent(oracle, misere_oracle, variant):
    known = oracle if variant == "3x3" else misere_oracle
    envs = [
        TicTacToeEnv("perfect", oracle=known, variant=variant),
        TicTacToeEnv(AskedPerfect(oracle=known, variant=known.variant), oracle=known, variant=variant),
    ]
    rng = np.random.default_rng(5)
    for env in envs:
        env.reset(seed=21)
    for step in range(3000):
        mask = envs[0].action_masks()
        cell = int(rng.choice(np.flatnonzero(mask))) if rng.random() > 0.02 else int(np.argmin(mask))
        action = cell if step % 3 else np.int64(cell)
        _, _, over, _, info = step_both(envs, action)
        info["action_mask"][:] = 7  # the caller's own copy
        if over:
            with pytest.raises(GameOverError):
                envs[0].step(0)
            for env in envs:
                env.reset()
    assert envs[0].np_random.bit_generator.state == envs[1].np_random.bit_generator.state
    assert envs[0]._tree is not None and envs[0]._tree.nodes[0]  # the fast path was taken


def test_changing_the_opponent_mid_episode_takes_effect_at_once(oracle):
    agent = make_agent("perfect", oracle=oracle)
    envs = [TicTacToeEnv(agent, "X", oracle=oracle), TicTacToeEnv(AskedPerfect(oracle=oracle), "X", oracle=oracle)]
    for lap in range(3):  # from the second time round the moves are known to the fast path
        for env in envs:
            env.reset(seed=4)
        step_both(envs, 4)
        if lap == 2:
            for env in envs:
                env.opponent.probability = 0.0  # every reply uniformly random from now on
        step_both(envs, int(np.flatnonzero(envs[0].action_masks())[0]))
    assert envs[0].np_random.bit_generator.state == envs[1].np_random.bit_generator.state
    env = envs[0]
    env.opponent = make_agent("heuristic")
    before = env.board
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert env.board.count("O") == before.count("O") + 1 and env.opponent.name == "heuristic"
