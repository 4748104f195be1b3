"""RL environment benchmark: single ``TicTacToeEnv.step`` and ``VectorTicTacToe`` throughput.

The learner plays uniformly random legal moves (chosen outside the timed region); only
``step`` is timed, and each step includes the opponent's reply. Baselines are measured in
the same run: the single environment against a plain recursive minimax opponent (no
database: what the treelib article's learner had) and against the ``random`` agent (the
environment's own floor), and Gymnasium's ``SyncVectorEnv`` over single environments.
Goals: single step <= 1.5 microseconds against ``perfect``; the vector environment >= 10
million steps per second with 4,096 games (a next-step autoreset step counts as a step),
timed over 2,000 steps so that the mean includes the draw buffer's refills (each game reads
its generator 512 draws at a time and draws about 0.7 a step against ``perfect``).

    python benchmarks/bench_envs.py
"""

from __future__ import annotations

import random
import time

import gymnasium as gym
import numpy as np
from gymnasium.vector import SyncVectorEnv

from ttt_solver import Oracle
from ttt_solver.envs import ENV_ID, TicTacToeEnv, VectorTicTacToe
from ttt_solver.game import rules
from ttt_solver.solver.reference import solve

GAMES = 4096


class PlainMinimax:
    """An opponent without the database: full negamax from scratch on every move."""

    name = "plain minimax"
    variant = rules.STANDARD

    def choose(self, board: str, rng: object) -> int:
        return max(rules.legal_moves(board), key=lambda cell: -self._negamax(rules.play(board, cell)))

    def _negamax(self, board: str) -> int:
        value = rules.terminal_value(board)
        if value is not None:
            return value
        return max(-self._negamax(rules.play(board, cell)) for cell in rules.legal_moves(board))


def single_step_seconds(env: gym.Env, steps: int, repeats: int = 1) -> float:
    """Mean seconds per ``step`` over ``steps`` learner moves, best of ``repeats`` (resets not timed)."""
    learner = random.Random(0)
    step, clock = env.step, time.perf_counter
    env.reset(seed=0)
    rounds = []
    for _ in range(repeats):
        total = 0.0
        for _ in range(steps):
            action = learner.choice(rules.legal_moves(env.unwrapped.board))
            started = clock()
            terminated = step(action)[2]
            total += clock() - started
            if terminated:
                env.reset()
        rounds.append(total / steps)
    return min(rounds)


def vector_steps_per_second(env, steps: int) -> float:
    rng = np.random.default_rng(0)
    _, infos = env.reset(seed=0)
    total = 0.0
    for _ in range(steps):
        masks = infos["action_mask"]
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)
        started = time.perf_counter()
        infos = env.step(actions)[4]
        total += time.perf_counter() - started
    return env.num_envs * steps / total


def main() -> None:
    oracle = Oracle.from_solutions(solve())
    # The first visit of a board fills the agent's memo; the first round warms that up.
    perfect = single_step_seconds(TicTacToeEnv("perfect", "X", oracle=oracle), 100_000, repeats=4)
    floor = single_step_seconds(TicTacToeEnv("random", "X", oracle=oracle), 100_000, repeats=4)
    minimax = single_step_seconds(TicTacToeEnv(PlainMinimax(), "X", oracle=oracle), 20)
    print(f"TicTacToeEnv.step vs perfect: {perfect * 1e6:.2f} us per step (goal <= 1.5 us)")
    wrapped = single_step_seconds(gym.make(ENV_ID, opponent="perfect", side="X", oracle=oracle), 100_000, repeats=4)
    print(f"  through gymnasium.make (its default wrappers): {wrapped * 1e6:.2f} us per step")
    print(f"  against the random agent: {floor * 1e6:.2f} us per step (perfect / random = {perfect / floor:.2f})")
    print(
        f"  vs a plain recursive minimax: {minimax * 1e3:.1f} ms per step; the database is x{minimax / perfect:,.0f} faster"
    )

    vector = VectorTicTacToe(GAMES, "perfect", oracle=oracle)
    vector_steps_per_second(vector, 20)  # warm-up: caches, buffers
    rate = vector_steps_per_second(vector, 2000)
    print(f"VectorTicTacToe({GAMES}) vs perfect: {rate / 1e6:.2f} million steps per second (goal >= 10 million)")
    print(f"  vs the single env in a loop: x{rate * perfect:.0f}")
    sync = SyncVectorEnv([lambda: TicTacToeEnv("perfect", oracle=oracle) for _ in range(GAMES)])
    sync_rate = vector_steps_per_second(sync, 10)
    print(
        f"  vs gymnasium SyncVectorEnv of {GAMES} TicTacToeEnv: {sync_rate / 1e6:.3f} million steps per second (x{rate / sync_rate:.0f})"
    )


if __name__ == "__main__":
    main()
