"""How long one ``ttt-lookup analyze`` takes, against the floor of ``python -c "import click"``.

Goal: the median of the lookup is at most 1.6x the median of importing click, both measured
here in the same run, alternating, so that machine noise hits both alike.

    python benchmarks/bench_cli.py [--runs 15] [--db PATH] [--script]

``--script`` times the installed ``ttt-lookup`` console script instead of
``python -m ttt_solver.cli``. Without ``--db`` a database is built in a temporary directory.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GOAL = 1.6
BOARD = "X...O...."


def timed(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--db", help="database to look up in (default: build one in a temporary directory)")
    parser.add_argument("--script", action="store_true", help="time the installed ttt-lookup script")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        db = args.db
        if db is None:
            from ttt_solver.build import build

            db = str(Path(tmp) / "ttt.sqlite")
            build(db)
        if args.script:
            script = shutil.which("ttt-lookup")
            if script is None:
                sys.exit("Error: no ttt-lookup on PATH; install the package first")
            lookup, label = [script], "ttt-lookup"
        else:
            lookup, label = [sys.executable, "-m", "ttt_solver.cli"], "python -m ttt_solver.cli"
        lookup += ["analyze", BOARD, "--json", "--db", db]
        baseline = [sys.executable, "-c", "import click"]
        # Bytecode is written and reused, as after a normal install (pip compiles .pyc files);
        # without that every edited module would be compiled again on every run.
        env = {key: value for key, value in os.environ.items() if key not in ("TTT_DB", "PYTHONDONTWRITEBYTECODE")}
        for _ in range(2):  # warm the OS caches and write the bytecode
            timed(lookup, env), timed(baseline, env)
        lookups, floors = [], []
        for _ in range(args.runs):
            lookups.append(timed(lookup, env))
            floors.append(timed(baseline, env))

    lookup_ms, floor_ms = statistics.median(lookups) * 1000, statistics.median(floors) * 1000
    ratio = lookup_ms / floor_ms
    print(
        f"{label} analyze {BOARD} --json: median {lookup_ms:.1f} ms"
        f" (min {min(lookups) * 1000:.1f}) over {args.runs} runs"
    )
    print(f"python -c 'import click': median {floor_ms:.1f} ms (min {min(floors) * 1000:.1f}) over {args.runs} runs")
    print(f"ratio {ratio:.2f} (goal: at most {GOAL}) -> {'met' if ratio <= GOAL else 'NOT met'}")


if __name__ == "__main__":
    main()
