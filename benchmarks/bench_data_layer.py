"""The data layer's speed goals (issue: one lookup path, instant and proven), each against a
floor measured in the same run. CPU times are process CPU (user + system), medians.

    python benchmarks/bench_data_layer.py [--runs 5] [--skip-4x4]

- 4x4 build (``build_db.py --variant 4x4`` in a fresh process): CPU, peak RSS, file size;
  floor: a plain SQLite insert of the same 1.2 million rows, one statement per row.
- eager ``Oracle.load(variant="4x4")`` (digest checked): CPU; floor: reading the packed
  blobs alone.
- 4x4 and 3x3 ``value_batch`` / ``best_move_batch`` on a realistic batch (1,000,000 rows drawn
  from 200,000 distinct random legal boards, ``bench_batch.py``'s), median of rounds; floor:
  one numpy gather of precomputed codes from a table of the same size.
- per-call ``best_move`` on 3x3 (normalised text, eager oracle).
- ``ttt-lookup verify``: the whole 3x3 process (wall and CPU), 4x4 CPU.
- ``ttt-lookup compare think1 random --games 100000 --seed 1``: CPU.

The command-line lookup has its own benchmark (``bench_cli.py``), and so do the environments
(``bench_envs.py``).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def child_cpu(command: list[str]) -> tuple[float, float, float]:
    """(wall, CPU, peak RSS in MB) of one run of ``command`` in a fresh process."""
    probe = (
        "import resource, subprocess, sys\n"
        f"done = subprocess.run({command!r}, stdout=subprocess.DEVNULL)\n"
        "usage = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(usage.ru_utime + usage.ru_stime, usage.ru_maxrss, done.returncode)\n"
    )
    started = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    wall = time.perf_counter() - started
    if out[2] != "0":
        raise SystemExit(f"failed: {' '.join(command)}")
    return wall, float(out[0]), int(out[1]) / 1024


def cpu_median(work: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.process_time()
        work()
        times.append(time.process_time() - started)
    return statistics.median(times)


def rate(work: Callable[[], object], count: int, runs: int) -> float:
    """Boards per second (median wall time of ``runs``)."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return count / statistics.median(times)


def realistic(variant_name: str) -> np.ndarray:
    """1,000,000 rows drawn from 200,000 distinct random legal boards (fewer for 3x3: every
    one random games reach), as an int8 array: a batch that does not sit in the CPU cache."""
    import random

    from ttt_solver.game.variant import Variant

    variant = Variant.parse(variant_name)
    rng = random.Random(1)
    seen: dict[str, None] = {}
    for _game in range(1_000_000):
        if len(seen) >= 200_000:
            break
        board = ["."] * variant.cells
        for ply in range(rng.randrange(variant.cells)):
            mark = "X" if ply % 2 == 0 else "O"
            cell = rng.choice([c for c, v in enumerate(board) if v == "."])
            board[cell] = mark
            if any(all(board[c] == mark for c in line) for line in variant.lines_through[cell]):
                break
        seen.setdefault("".join(board), None)
    distinct = np.array([[{"X": 1, "O": -1, ".": 0}[c] for c in text] for text in seen], dtype=np.int8)
    return distinct[np.random.default_rng(1).integers(0, len(distinct), 1_000_000)]


def plain_insert_cpu(rows: list[list[int]]) -> float:
    """CPU of inserting ``rows`` into a plain SQLite table, one statement per row (the floor)."""
    with tempfile.TemporaryDirectory() as tmp:
        conn = sqlite3.connect(Path(tmp) / "plain.sqlite")
        conn.execute("PRAGMA journal_mode = OFF")
        conn.execute("PRAGMA synchronous = OFF")
        width = len(rows[0])
        conn.execute(f"CREATE TABLE t ({', '.join(f'c{i}' for i in range(width))})")
        started = time.process_time()
        conn.executemany(f"INSERT INTO t VALUES ({', '.join('?' * width)})", rows)
        conn.commit()
        spent = time.process_time() - started
        conn.close()
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--skip-4x4", action="store_true")
    args = parser.parse_args()
    from ttt_solver import Oracle
    from ttt_solver.builder.build import build

    env_db = Path(tempfile.mkdtemp())
    db3 = env_db / "ttt.sqlite"
    build(db3)
    lookup = [sys.executable, "-m", "ttt_solver.cli"]

    if not args.skip_4x4:
        db4 = env_db / "4x4.sqlite"
        builds = [
            child_cpu(
                [sys.executable, str(ROOT / "build_db.py"), "--variant", "4x4", "--db", str(db4), "-q", "--force"]
            )
            for _ in range(max(1, args.runs // 2))
        ]
        from ttt_solver.game.variant import Variant
        from ttt_solver.solver.solve import solve_tables
        from ttt_solver.store.content import position_blocks

        rows = [row for block in position_blocks(solve_tables(Variant.parse("4x4")).solved) for row in block.tolist()]
        floor = plain_insert_cpu(rows)
        del rows
        cpu = statistics.median(b[1] for b in builds)
        print(
            f"4x4 build: CPU {cpu:.2f} s (median of {len(builds)}), peak RSS {max(b[2] for b in builds):.0f} MB,"
            f" file {db4.stat().st_size / 1e6:.1f} MB; floor (plain insert of the rows) {floor:.2f} s;"
            f" ratio {cpu / floor:.2f}  [goal: <= 4 s, <= 300 MB, <= 70 MB]"
        )

        load = cpu_median(lambda: Oracle.load(db4, "4x4"), args.runs)
        from ttt_solver.store import Target
        from ttt_solver.store.reader import Reader

        def blobs() -> None:
            with Reader(Target.parse(db4), "4x4") as reader:
                reader.packed()

        floor_load = cpu_median(blobs, args.runs)
        print(
            f"eager Oracle.load 4x4: CPU {load * 1000:.0f} ms (digest checked); floor (read the packed blobs)"
            f" {floor_load * 1000:.0f} ms  [goal: <= 300 ms]"
        )

        oracle4 = Oracle.load(db4, "4x4")
        started = time.process_time()
        oracle4.batch_tables()
        print(f"4x4 batch tables, built once with the whole-table proof: CPU {time.process_time() - started:.2f} s")
        boards4 = realistic("4x4")
        codes = np.random.default_rng(0).integers(0, 3**16, len(boards4))
        table = np.zeros(3**16, dtype=np.uint8)
        gather = rate(lambda: np.take(table, codes), len(boards4), args.runs)
        values = rate(lambda: oracle4.value_batch(boards4), len(boards4), args.runs)
        best = rate(lambda: oracle4.best_move_batch(boards4), len(boards4), args.runs)
        print(
            f"4x4 value_batch {values / 1e6:.0f} M boards/s, best_move_batch {best / 1e6:.0f} M/s; floor (numpy"
            f" gather of precomputed codes) {gather / 1e6:.0f} M/s  [goal: value_batch >= 100 M/s]"
        )
        wall, cpu4, _ = child_cpu([*lookup, "verify", "--variant", "4x4", "--db", str(db4)])
        print(f"ttt-lookup verify --variant 4x4: CPU {cpu4:.2f} s, wall {wall:.2f} s  [goal: <= 4 s CPU]")

    oracle3 = Oracle.load(db3)
    boards3 = realistic("3x3")
    codes3 = np.random.default_rng(0).integers(0, 3**9, len(boards3))
    table3 = np.zeros(3**9, dtype=np.uint8)
    gather3 = rate(lambda: np.take(table3, codes3), len(boards3), args.runs)
    values3 = rate(lambda: oracle3.value_batch(boards3), len(boards3), args.runs)
    best3 = rate(lambda: oracle3.best_move_batch(boards3), len(boards3), args.runs)
    calls = 200_000
    started = time.perf_counter()
    for _ in range(calls):
        oracle3.best_move("X...O....")
    per_call = (time.perf_counter() - started) / calls
    print(
        f"3x3 value_batch {values3 / 1e6:.0f} M boards/s, best_move_batch {best3 / 1e6:.0f} M/s (floor gather"
        f" {gather3 / 1e6:.0f} M/s); best_move per call {per_call * 1e6:.2f} us  [goal: no slower than the"
        " release before: bench_batch.py --python compares]"
    )

    runs3 = [child_cpu([*lookup, "verify", "--db", str(db3)]) for _ in range(args.runs)]
    print(
        f"ttt-lookup verify (3x3), whole process: wall {statistics.median(r[0] for r in runs3):.2f} s,"
        f" CPU {statistics.median(r[1] for r in runs3):.2f} s  [goal: <= 1 s]"
    )
    compare = [
        child_cpu([*lookup, "compare", "think1", "random", "--games", "100000", "--seed", "1", "--db", str(db3)])
        for _ in range(max(1, args.runs // 2))
    ]
    print(
        f"ttt-lookup compare think1 random --games 100000: CPU {statistics.median(r[1] for r in compare):.2f} s"
        "  [goal: <= 2.5 s]"
    )


if __name__ == "__main__":
    os.environ.pop("TTT_DB", None)
    main()
