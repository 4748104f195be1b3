"""Tabular Q-learning against the perfect opponent, through the Gymnasium environment.

Nobody beats the perfect player, so the best a learner can do is draw every game. Start
from nothing (all Q-values 0) and watch the greedy policy's draw rate climb toward 100% as
it learns, from both sides (the side is drawn per episode). Needs the [rl] extra; the chart
needs the [plot] extra too.

    python examples/q_learning.py                    # the learning curve as text (~10 s)
    python examples/q_learning.py --plot curve.png   # and as a PNG
    python examples/q_learning.py --opponent perfect:0.5 --episodes 50000
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from typing import TYPE_CHECKING

import numpy as np

from ttt_solver.errors import install_hint

if TYPE_CHECKING:  # imported in main(): --help works without the [rl] extra
    from ttt_solver.envs import TicTacToeEnv


class QLearner:
    """Q-values per observation (its bytes), epsilon-greedy among the legal cells."""

    def __init__(self, alpha: float, gamma: float, seed: int) -> None:
        self.q: defaultdict[bytes, np.ndarray] = defaultdict(lambda: np.zeros(9))
        self.alpha, self.gamma = alpha, gamma
        self.rng = np.random.default_rng(seed)

    def act(self, obs: np.ndarray, mask: np.ndarray, epsilon: float) -> int:
        legal = np.flatnonzero(mask)
        if self.rng.random() < epsilon:
            return int(self.rng.choice(legal))
        values = self.q[obs.tobytes()][legal]
        return int(legal[self.rng.choice(np.flatnonzero(values == values.max()))])

    def learn(
        self, obs: np.ndarray, action: int, reward: float, after: np.ndarray, mask: np.ndarray, over: bool
    ) -> None:
        target = reward if over else reward + self.gamma * self.q[after.tobytes()][mask == 1].max()
        row = self.q[obs.tobytes()]
        row[action] += self.alpha * (target - row[action])


def episode(env: TicTacToeEnv, learner: QLearner, epsilon: float, train: bool) -> float:
    obs, info = env.reset()
    while True:
        action = learner.act(obs, info["action_mask"], epsilon)
        after, reward, over, _, info = env.step(action)
        if train:
            learner.learn(obs, action, float(reward), after, info["action_mask"], over)
        if over:
            return float(reward)
        obs = after


def evaluate(env: TicTacToeEnv, learner: QLearner, games: int) -> tuple[float, float, float]:
    """Greedy play: (win, draw, loss) rates."""
    results = [episode(env, learner, 0.0, train=False) for _ in range(games)]
    return tuple(results.count(value) / games for value in (1.0, 0.0, -1.0))  # type: ignore[return-value]


def bar(rate: float, width: int = 40) -> str:
    filled = round(rate * width)
    return "#" * filled + "." * (width - filled)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=30_000, help="training episodes (default 30,000)")
    parser.add_argument("--checkpoints", type=int, default=15, help="evaluations along the way (default 15)")
    parser.add_argument("--eval-games", type=int, default=1_000, help="greedy games per evaluation (default 1,000)")
    parser.add_argument("--opponent", default="perfect", help="any agent spec (default perfect)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plot", metavar="PNG", help="also draw the curve (needs the [plot] extra)")
    args = parser.parse_args(argv)
    if args.plot and pyplot() is None:  # say so now, not after the training
        print(
            f"Error: --plot needs matplotlib, from the [plot] extra: {install_hint('plot', 'matplotlib')}",
            file=sys.stderr,
        )
        return 1
    try:
        from ttt_solver.envs import TicTacToeEnv
    except ImportError:
        print(f"Error: this example needs the [rl] extra: {install_hint('rl', 'gymnasium')}", file=sys.stderr)
        return 1

    train_env = TicTacToeEnv(args.opponent)
    eval_env = TicTacToeEnv(args.opponent)
    train_env.reset(seed=args.seed)
    eval_env.reset(seed=args.seed + 1)
    learner = QLearner(alpha=0.5, gamma=1.0, seed=args.seed)
    curve = [(0, *evaluate(eval_env, learner, args.eval_games))]
    print(f"Q-learning against {args.opponent}: greedy draw rate over {args.eval_games:,} games (side drawn per game)")
    print(f"{'episodes':>9}  {'draws':>6}  {'losses':>6}  {'wins':>6}")

    def report(point: tuple[int, float, float, float]) -> None:
        done, wins, draws, losses = point
        print(f"{done:>9,}  {draws:>6.1%}  {losses:>6.1%}  {wins:>6.1%}  {bar(draws)}")

    report(curve[0])
    done = 0
    for checkpoint in range(1, args.checkpoints + 1):
        target = args.episodes * checkpoint // args.checkpoints
        while done < target:
            epsilon = max(0.05, 1.0 - done / (0.6 * args.episodes))  # explore a lot, then less
            episode(train_env, learner, epsilon, train=True)
            done += 1
        curve.append((done, *evaluate(eval_env, learner, args.eval_games)))
        report(curve[-1])
    print(f"{len(learner.q):,} observations seen")
    if args.plot:
        plot(curve, args.plot, args.opponent)
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


def plot(curve: list[tuple[int, float, float, float]], path: str, opponent: str) -> None:
    from matplotlib.ticker import PercentFormatter

    plt = pyplot()
    episodes, wins, draws, losses = zip(*curve)
    figure, axes = plt.subplots(figsize=(7, 4))
    axes.plot(episodes, draws, marker="o", color="tab:olive", label="draws")
    axes.plot(episodes, losses, marker="o", color="tab:red", label="losses")
    if any(wins):
        axes.plot(episodes, wins, marker="o", color="tab:green", label="wins")
    axes.set(
        xlabel="training episodes",
        ylabel="rate of greedy games",
        ylim=(0, 1.02),
        title=f"Tabular Q-learning against {opponent}",
    )
    axes.yaxis.set_major_formatter(PercentFormatter(1.0))
    axes.legend()
    axes.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    print(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(main())
