"""Batch lookups on a realistic batch, against another install of ttt-solver in the same run.

    python benchmarks/bench_batch.py [--variant 4x4] [--rounds 7] [--python /path/to/other/python]

The batch is 1,000,000 rows drawn from 200,000 distinct random legal boards (random games
from the empty board, stopped at a random ply; 3x3 has fewer: every one it reaches), so that it does not sit in the CPU cache as a
repeated handful of boards would; the figure is the median over rounds of boards per second
(wall time: the batch lookups run on a thread per core, a 16-cell variant's values by the
compiled loop on one), and of boards per CPU-second of the process (its threads' CPU added up). With ``--python`` the same
measurement runs alternately under that interpreter (an earlier release installed in another
virtual environment) and the ratios are printed. Only the public API is used (``Oracle``,
``ttt-lookup build``), so any release can be the baseline. Goals: 4x4 ``value_batch`` >= 100 M
boards/s (issue 17) and >= 200 M boards a CPU-second (issue 40); 3x3 no slower than the release
before.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

CHILD = r"""
import json, random, sys, time
import numpy as np
from ttt_solver import Oracle
db, variant, rounds, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
oracle = Oracle.load(db, variant)
cells = oracle.variant.cells
rng = random.Random(seed)
through = oracle.variant.lines_through
seen = {}
for _game in range(1_000_000):  # 200,000 distinct boards, or every one a small variant reaches
    if len(seen) >= 200_000:
        break
    board = ["."] * cells
    for ply in range(rng.randrange(cells)):
        mark = "X" if ply % 2 == 0 else "O"
        cell = rng.choice([c for c, v in enumerate(board) if v == "."])
        board[cell] = mark
        if any(all(board[c] == mark for c in line) for line in through[cell]):
            break  # a finished game: the board as it ends
    seen.setdefault("".join(board), None)
distinct = np.array([[{"X": 1, "O": -1, ".": 0}[c] for c in text] for text in seen], dtype=np.int8)
batch = distinct[np.random.default_rng(seed).integers(0, len(distinct), 1_000_000)]
found = {}
for name in ("value_batch", "best_move_batch"):
    getattr(oracle, name)(batch)  # the tables are built (and loops compiled) on first use: not timed
    times, cpu = [], []
    for _ in range(rounds):
        started, started_cpu = time.perf_counter(), time.process_time()
        getattr(oracle, name)(batch)
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    found[name] = len(batch) / sorted(times)[len(times) // 2]
    found[name + " cpu"] = len(batch) / sorted(cpu)[len(cpu) // 2]
print(json.dumps(found))
"""


def measure(python: str, db: str, variant: str, rounds: int, seed: int) -> dict[str, float]:
    done = subprocess.run(
        [python, "-c", CHILD, db, variant, str(rounds), str(seed)], capture_output=True, text=True, check=True
    )
    found: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def build(python: str, folder: str, variant: str) -> str:
    path = os.path.join(folder, f"{variant}-{abs(hash(python))}.sqlite")
    subprocess.run(
        [python, "-m", "ttt_solver.cli", "build", "--variant", variant, "--db", path, "--quiet"],
        check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="4x4")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--alternations", type=int, default=3)
    parser.add_argument("--python", help="another install's interpreter, measured alternately")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        pythons = [sys.executable] + ([args.python] if args.python else [])
        dbs = {python: build(python, folder, args.variant) for python in pythons}
        results: dict[str, list[dict[str, float]]] = {python: [] for python in pythons}
        for turn in range(args.alternations):
            for python in pythons:
                results[python].append(measure(python, dbs[python], args.variant, args.rounds, turn))
    for name in ("value_batch", "best_move_batch"):
        medians = {python: statistics.median(r[name] for r in results[python]) for python in pythons}
        cpu = statistics.median(r[name + " cpu"] for r in results[sys.executable])
        line = f"{args.variant} {name}: {medians[sys.executable] / 1e6:.1f} M boards/s, {cpu / 1e6:.1f} M a CPU-second"
        if args.python:
            other = medians[args.python]
            line += f"; other install {other / 1e6:.1f} M boards/s; ratio {medians[sys.executable] / other:.2f}"
        print(line + f" (median of {args.alternations} runs of {args.rounds} rounds)")


if __name__ == "__main__":
    main()
