"""MaskablePPO (sb3-contrib) against the database, with a learning curve of draws against perfect play.

Nobody beats the perfect player, so drawing every game against it is the ceiling. The learner
trains against ``perfect:P`` (perfect with probability P, else a random move: it can be
beaten, so wins teach too) in Stable-Baselines3's ``make_vec_env`` over
``ttt_solver/TicTacToe-v0``, with illegal moves masked out (``env.action_masks()``) and the
board given as one vector (``observation="flat"``: SB3 takes the default ``(3, 3, 2)`` planes for
an image and warns that they are not one; its MLP policy takes the vector as it is). At each
checkpoint its greedy policy plays ``--eval-games`` games against ``perfect`` (the side drawn
per game) and the draw rate goes on the curve. Needs the [sb3] extra (sb3-contrib,
stable-baselines3, CPU torch); the chart needs the [plot] extra too.

    python examples/maskable_ppo.py                          # 200,000 steps, the curve as text (under 2 minutes)
    python examples/maskable_ppo.py --plot ppo.png           # and as a PNG
    python examples/maskable_ppo.py --opponent perfect:0.8 --steps 100000 --seed 2
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from ttt_solver.errors import install_hint

OBSERVATION = "flat"  # the board as one vector of 18 (learner's mark, opponent's mark) per cell


def evaluate(model: Any, games: int, seed: int) -> tuple[float, float, float]:
    """Greedy play against ``perfect``: (win, draw, loss) rates."""
    from ttt_solver.envs import TicTacToeEnv

    env = TicTacToeEnv("perfect", observation=OBSERVATION)
    results = []
    for game in range(games):
        obs, _ = env.reset(seed=seed + game)
        over = False
        while not over:
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
            obs, reward, over, _, _ = env.step(int(action))
        results.append(reward)
    return tuple(results.count(value) / games for value in (1.0, 0.0, -1.0))  # type: ignore[return-value]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200_000, help="training steps over all envs (default 200,000)")
    parser.add_argument("--checkpoints", type=int, default=10, help="evaluations along the way (default 10)")
    parser.add_argument("--eval-games", type=int, default=200, help="greedy games per evaluation (default 200)")
    parser.add_argument("--opponent", default="perfect:0.5", help="training opponent (default perfect:0.5)")
    parser.add_argument("--envs", type=int, default=8, help="environments stepped together (default 8)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plot", metavar="PNG", help="also draw the curve (needs the [plot] extra)")
    args = parser.parse_args(argv)
    try:
        import torch
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.env_util import make_vec_env
    except ImportError:
        print(f"Error: this example needs the [sb3] extra: {install_hint('sb3', 'sb3-contrib torch')}", file=sys.stderr)
        return 1
    if args.plot and pyplot() is None:  # say so now, not after the training
        print(
            f"Error: --plot needs matplotlib, from the [plot] extra: {install_hint('plot', 'matplotlib')}",
            file=sys.stderr,
        )
        return 1
    import ttt_solver.envs  # noqa: F401 (registers ttt_solver/TicTacToe-v0)

    torch.set_num_threads(1)  # a tiny network: threads cost more than they give
    envs = make_vec_env(
        "ttt_solver/TicTacToe-v0",
        n_envs=args.envs,
        seed=args.seed,
        env_kwargs={"opponent": args.opponent, "observation": OBSERVATION},
    )
    per_env = max(8, args.steps // (args.envs * args.checkpoints))  # steps per env between checkpoints
    rollout = per_env // -(-per_env // 256)  # whole rollouts of at most 256 steps fill a checkpoint
    model = MaskablePPO(
        "MlpPolicy",
        envs,
        n_steps=rollout,
        batch_size=max(1, rollout * args.envs // 8),  # eight minibatches per rollout
        ent_coef=0.01,
        seed=args.seed,
        device="cpu",
        verbose=0,
    )
    start = time.perf_counter()
    curve = [(0, *evaluate(model, args.eval_games, args.seed + 10_000), 0.0)]
    print(f"MaskablePPO against {args.opponent}: greedy results over {args.eval_games:,} games against perfect")
    print(f"{'steps':>8}  {'draws':>6}  {'losses':>6}  {'wins':>6}  {'seconds':>7}")

    def report(point: tuple[int, float, float, float, float]) -> None:
        steps, wins, draws, losses, seconds = point
        print(f"{steps:>8,}  {draws:>6.1%}  {losses:>6.1%}  {wins:>6.1%}  {seconds:>7.1f}  {'#' * round(draws * 40)}")

    report(curve[0])
    for checkpoint in range(1, args.checkpoints + 1):
        target = args.steps * checkpoint // args.checkpoints
        if target > model.num_timesteps:
            model.learn(target - model.num_timesteps, reset_num_timesteps=False)
        curve.append(
            (model.num_timesteps, *evaluate(model, args.eval_games, args.seed + 10_000), time.perf_counter() - start)
        )
        report(curve[-1])
    if args.plot:
        plot(curve, args.plot, args.opponent, args.eval_games)
        print(f"curve written to {args.plot}")
    return 0


def pyplot():  # type: ignore[no-untyped-def]
    """matplotlib's pyplot with a file-only backend, or None without the [plot] extra."""
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot(curve: list[tuple[int, float, float, float, float]], path: str, opponent: str, games: int) -> None:
    from matplotlib.ticker import PercentFormatter

    plt = pyplot()
    steps, _, draws, losses, _ = zip(*curve)
    figure, axes = plt.subplots(figsize=(7, 4))
    axes.plot(steps, draws, marker="o", color="#0072B2", label="draws (the best possible: 100%)")
    axes.plot(steps, losses, marker="s", color="#D55E00", label="losses")
    axes.set(
        xlabel="training steps",
        ylabel=f"share of {games} greedy games",
        ylim=(0, 1.02),
        title=f"MaskablePPO trained against {opponent}, evaluated against perfect",
    )
    axes.yaxis.set_major_formatter(PercentFormatter(1.0))
    axes.xaxis.set_major_formatter(lambda v, _: f"{v:,.0f}")
    axes.grid(alpha=0.3)
    axes.legend(loc="center right", frameon=False)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


if __name__ == "__main__":
    sys.exit(main())
