"""Issue 17's goals for a 20-cell variant, measured: the build, a build killed at random
moments and resumed, verify, a proved lookup, and the batch lookups.

    python benchmarks/bench_twenty.py --variant 4x5k4 --folder /big/disk [--kills 3] [--skip-build] [--skip-verify]

Each build and verify runs as its own process; CPU time is the child's user + system time,
peak memory its maximum resident set (``ru_maxrss``), the scratch folder's size is sampled
every half second. The killed build is stopped with SIGKILL at random moments (seeded), run
again each time, and its CPU summed over every run; the ratio is against the uninterrupted
build of the same run. Goals (issue 17): build and verify <= 15 min CPU, <= 8 GB; file <= 10 GB;
scratch <= 16 GB; killed and resumed <= 1.2x the CPU; the lookup <= 1.5x ``import click``
(``benchmarks/bench_cli.py`` measures that: its command is printed); value_batch >= 5 and
best_move_batch >= 2 M boards/s.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

GIB = 1 << 30


def du(path: Path) -> int:
    total = 0
    for folder, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(folder, name))
            except OSError:
                pass
    return total


def run(command: list[str], scratch: Path | None = None, kill_after: float | None = None) -> dict[str, Any]:
    """CPU seconds, peak RSS (bytes), wall seconds and exit status of one run of ``command``
    (by GNU time, which waits for that process alone), and the scratch folder's peak size."""
    timed = ["/usr/bin/time", "-f", "TIMED %e %U %S %M", *command]
    process = subprocess.Popen(timed, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    peak = [0]
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            if scratch is not None and scratch.exists():
                peak[0] = max(peak[0], du(scratch))
            done.wait(0.5)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        try:
            err = process.communicate(timeout=kill_after)[1]
        except subprocess.TimeoutExpired:
            for child in subprocess.run(
                ["pgrep", "-P", str(process.pid)], capture_output=True, text=True, check=False
            ).stdout.split():
                os.kill(int(child), signal.SIGKILL)  # the build, not GNU time
            err = process.communicate()[1]
    finally:
        done.set()
        watcher.join()
    line = next(line for line in reversed(err.splitlines()) if line.startswith("TIMED "))
    wall, user, system, rss = (float(x) for x in line.split()[1:])
    status = 0 if "Command terminated by signal" not in err and "exited with non-zero status" not in err else 1
    return {"cpu": user + system, "rss": rss * 1024, "wall": wall, "scratch": peak[0], "status": status, "stderr": err}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="4x5k4")
    parser.add_argument("--folder", required=True, help="where the databases go (needs about 25 GB free)")
    parser.add_argument("--kills", type=int, default=3, help="SIGKILLs of the resumed build (0: skip it)")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--skip-build", action="store_true", help="measure an existing FOLDER/VARIANT.sqlite")
    parser.add_argument("--skip-verify", action="store_true", help="leave out verify (minutes)")
    args = parser.parse_args()
    folder = Path(args.folder)
    folder.mkdir(parents=True, exist_ok=True)
    lookup = [sys.executable, "-m", "ttt_solver.cli"]
    target = folder / f"{args.variant}.sqlite"
    scratch = folder / f".{target.name}.solving"
    rows: list[tuple[str, str, str]] = []

    if not args.skip_build:
        target.unlink(missing_ok=True)
        shutil.rmtree(scratch, ignore_errors=True)
        built = run([*lookup, "build", "--variant", args.variant, "--db", str(target), "--quiet"], scratch)
        assert built["status"] == 0, built["stderr"]
        rows.append(("build", f"{built['cpu'] / 60:.1f} min CPU, {built['wall'] / 60:.1f} min wall",
                     (f"peak RSS {built['rss'] / GIB:.2f} GB, scratch {built['scratch'] / GIB:.2f} GB,"
                      f" file {target.stat().st_size / GIB:.2f} GB")))  # fmt: skip
        if args.kills:
            other = folder / f"killed-{args.variant}.sqlite"
            other.unlink(missing_ok=True)
            rng = random.Random(args.seed)
            total, runs = 0.0, 0
            for _ in range(args.kills):
                moment = rng.uniform(0.05, 0.95) * built["wall"]
                killed = run([*lookup, "build", "--variant", args.variant, "--db", str(other), "--quiet"], None, moment)
                total += killed["cpu"]
                runs += 1
                if killed["status"] == 0:
                    break
            if not other.exists():
                finished = run([*lookup, "build", "--variant", args.variant, "--db", str(other), "--quiet"])
                assert finished["status"] == 0, finished["stderr"]
                total += finished["cpu"]
                runs += 1
            same = subprocess.run(
                [*lookup, "query", "--db", str(other), "--list"], capture_output=True, check=False
            )  # the file opens as a database
            rows.append(("killed and resumed", f"{total / 60:.1f} min CPU in {runs} runs",
                         f"{total / built['cpu']:.2f}x the uninterrupted build (opens: {same.returncode == 0})"))  # fmt: skip
            other.unlink(missing_ok=True)

    if not args.skip_verify:
        verified = run([*lookup, "verify", "--variant", args.variant, "--db", str(target), "--quiet"])
        assert verified["status"] == 0, verified["stderr"]
        rows.append(("verify", f"{verified['cpu'] / 60:.1f} min CPU, {verified['wall'] / 60:.1f} min wall",
                     f"peak RSS {verified['rss'] / GIB:.2f} GB"))  # fmt: skip

    from ttt_solver import Oracle

    with Oracle.load(target, args.variant) as oracle:
        started = time.process_time()
        oracle.batch_tables()
        made = time.process_time() - started
        import numpy as np

        from ttt_solver.game import array_rules

        arrays = oracle.arrays()
        rng_np = np.random.default_rng(args.seed)
        picks = rng_np.integers(0, len(arrays.code), 200_000)
        images = array_rules.image_codes(np.asarray(arrays.code[picks]), oracle.variant)
        chosen = images[rng_np.integers(0, len(images), len(picks)), np.arange(len(picks))]
        distinct = (array_rules.digits(chosen, oracle.variant).astype(np.int8) - 1).astype(np.int8)
        batch = distinct[rng_np.integers(0, len(distinct), 1_000_000)]
        for name in ("value_batch", "best_move_batch"):
            times = []
            for _ in range(7):
                started = time.perf_counter()
                getattr(oracle, name)(batch)
                times.append(time.perf_counter() - started)
            rows.append((name, f"{1 / float(np.median(times)):.1f} M boards/s (median of 7)",
                         "1,000,000 rows drawn from 200,000 random legal boards"))  # fmt: skip
        rows.append(("batch tables, first use", f"{made:.0f} s CPU", "cached by content digest afterwards"))
    width = max(len(row[0]) for row in rows)
    print(f"{args.variant} in {folder}:")
    for what, figure, note in rows:
        print(f"  {what:<{width}}  {figure}; {note}")
    board = "." * 20
    print(f"lookup: python benchmarks/bench_cli.py --db {target} --variant {args.variant} --board {board} --goal 1.5")


if __name__ == "__main__":
    main()
