"""In-process oracle benchmark: ``best_move`` per call and ``value_batch`` throughput.

Baselines are measured in the same run: a plain alpha-beta search per move (what a
program without the database does, like OpenSpiel's alpha-beta bot) and a Python loop of
``oracle.value`` over the same boards that ``value_batch`` gets.
Goals: best_move <= 1 microsecond per call on average over every unfinished legal board;
value_batch >= 100 million positions per second.

    python benchmarks/bench_oracle.py
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path

import numpy as np

from ttt_solver import Oracle
from ttt_solver.builder.build import build
from ttt_solver.game import board as rules


def alphabeta(text: str, alpha: int = -2, beta: int = 2) -> int:
    value = rules.terminal_value(text)
    if value is not None:
        return value
    for cell in rules.legal_moves(text):
        alpha = max(alpha, -alphabeta(rules.play(text, cell), -beta, -alpha))
        if alpha >= beta:
            break
    return alpha


def alphabeta_move(text: str) -> int:
    return max(rules.legal_moves(text), key=lambda cell: -alphabeta(rules.play(text, cell)))


def best_of(repeats: int, work) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        build(Path(tmp) / "ttt.sqlite")
        oracle = Oracle.load(Path(tmp) / "ttt.sqlite")
    boards = [text for text in rules.all_boards() if rules.terminal_value(text) is None]
    rng = random.Random(0)
    best_move = oracle.best_move

    def every_board() -> None:
        for text in boards:
            best_move(text, rng)

    per_call = best_of(7, every_board) / len(boards)
    sample = random.Random(1).sample(boards, 40)
    per_search = best_of(1, lambda: [alphabeta_move(text) for text in sample]) / len(sample)
    print(f"oracle.best_move: {per_call * 1e6:.3f} us per call over {len(boards):,} unfinished boards (goal <= 1 us)")
    print(f"plain alpha-beta search: {per_search * 1e3:.2f} ms per move; oracle speed-up x{per_search / per_call:,.0f}")

    legal = np.array([rules.to_array(t) for t in rules.all_boards()], dtype=np.int8)
    batch = legal[np.random.default_rng(0).integers(0, len(legal), 4_000_000)]
    oracle.value_batch(batch[:10])
    seconds = best_of(7, lambda: oracle.value_batch(batch))
    loop_rows = [row for row in batch[:20_000].tolist()]
    loop = best_of(1, lambda: [oracle.value(row) for row in loop_rows]) / len(loop_rows)
    rate = len(batch) / seconds
    print(f"oracle.value_batch: {rate / 1e6:.0f} million positions per second on int8 (N, 9) (goal >= 100 million)")
    print(
        f"python loop of oracle.value over lists: {1 / loop / 1e6:.2f} million per second; batch speed-up x{rate * loop:,.0f}"
    )


if __name__ == "__main__":
    main()
