"""How long one ``ttt-lookup analyze`` takes, against the floor of ``python -c "import click"``.

Goal (issue 22): the median CPU time of the lookup (the child process's user + system time) is
at most 1.5x the median of importing click, both measured here in the same run, alternating, so that
machine noise hits both alike. Wall-clock medians are printed too. Run it after a plain
``pip install .`` (``--script``) as well as in an editable checkout.

    python benchmarks/bench_cli.py [--runs 15] [--db PATH] [--script]
    python benchmarks/bench_cli.py --script --variant 3x6k4 --db /tmp/3x6k4.sqlite
    python benchmarks/bench_cli.py --script --variant 4x5k4 --db data/4x5k4.sqlite

``--script`` times the installed ``ttt-lookup`` console script instead of
``python -m ttt_solver.cli``. Without ``--db`` a database of a variant of at most 16 cells is
built in a temporary directory; a bigger one must be given. The board is X in the first cell and
O in the fifth, the rest empty (``X...O....`` on 3x3), unless ``--board`` says otherwise.
A 20-cell lookup (issue 17's goal: 1.5x) reads and proves a few hundred rows for each of the
up to 20 positions of its perfect line.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ttt_solver.game.variant import Variant

GOAL = 1.5
BUILT_HERE = 16  # most cells of a variant this benchmark builds itself (4x4: seconds)


def default_board(cells: int) -> str:
    """X in the first cell, O in the fifth: ``X...O....`` on 3x3."""
    return "X...O" + "." * (cells - 5)


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``command``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=31)
    parser.add_argument("--db", help="database to look up in (default: build one in a temporary directory)")
    parser.add_argument("--script", action="store_true", help="time the installed ttt-lookup script")
    parser.add_argument("--variant", default="3x3")
    parser.add_argument("--board", help="the board to look up (default: X...O and the rest empty)")
    parser.add_argument("--goal", type=float, default=GOAL)
    args = parser.parse_args()

    variant = Variant.parse(args.variant)
    if args.db is None and variant.cells > BUILT_HERE:
        sys.exit(f"Error: {variant.name} has {variant.cells} cells; build it once and give --db")
    board = args.board or default_board(variant.cells)

    with tempfile.TemporaryDirectory() as tmp:
        db = args.db
        if db is None:
            from ttt_solver.builder.build import build

            db = str(Path(tmp) / "ttt.sqlite")
            build(db, variant)
        if args.script:
            script = shutil.which("ttt-lookup")
            if script is None:
                sys.exit("Error: no ttt-lookup on PATH; install the package first")
            lookup, label = [script], "ttt-lookup"
        else:
            lookup, label = [sys.executable, "-m", "ttt_solver.cli"], "python -m ttt_solver.cli"
        lookup += ["analyze", board, "--json", "--variant", variant.name, "--db", db]
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

    for name, index in (("wall", 0), ("CPU", 1)):
        lookup_ms = statistics.median(run[index] for run in lookups) * 1000
        floor_ms = statistics.median(run[index] for run in floors) * 1000
        print(
            f"{name:>4}: {label} analyze {board} --json: median {lookup_ms:.1f} ms;"
            f" python -c 'import click': median {floor_ms:.1f} ms; ratio {lookup_ms / floor_ms:.2f}"
        )
    ratio = statistics.median(run[1] for run in lookups) / statistics.median(run[1] for run in floors)
    print(
        f"CPU ratio {ratio:.2f} over {args.runs} runs (goal: at most {args.goal})"
        f" -> {'met' if ratio <= args.goal else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
