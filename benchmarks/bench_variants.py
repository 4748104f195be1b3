"""Big-variant benchmark: the 4x4 build and a 4x4 command-line lookup, against 3x3 in the same run.

Builds run in subprocesses that report their own peak RSS (goal for 4x4: <= 30 s wall and
<= 1.5 GB). Lookups time ``python -m ttt_solver.cli analyze --variant V --db DB BOARD --json``
alternately for 4x4 and 3x3 and compare medians (goal: 4x4 <= 2x the 3x3 time).

    python benchmarks/bench_variants.py [--runs 15] [--builds 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOARDS = {"3x3": "X...O....", "4x4": "X...O..........."}


def build(variant: str, db: Path) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of ``build_db.py --variant V --db DB`` in a fresh process."""
    probe = (
        "import resource, runpy, sys\n"
        f"sys.argv = {[str(ROOT / 'build_db.py'), '--variant', variant, '--db', str(db), '--quiet']!r}\n"
        "try:\n    runpy.run_path(sys.argv[0], run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
    )
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True)
    return time.perf_counter() - started, int(done.stderr.strip().splitlines()[-1]) / 1024


def lookup_command(variant: str, db: Path) -> list[str]:
    cli = [sys.executable, "-m", "ttt_solver.cli", "analyze"]
    return [*cli, "--variant", variant, "--db", str(db), BOARDS[variant], "--json"]


def cli_usable(db: Path) -> bool:
    return subprocess.run(lookup_command("3x3", db), capture_output=True, cwd=ROOT, check=False).returncode == 0


def probe_command(variant: str, db: Path) -> list[str]:
    load = f"Oracle.load({str(db)!r}, {variant!r}, eager=False)"
    code = f"from ttt_solver import Oracle\nprint({load}.probe({BOARDS[variant]!r}))"
    return [sys.executable, "-c", code]


def wall(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="lookups of each variant")
    parser.add_argument("--builds", type=int, default=3, help="builds of each variant")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        dbs = {name: Path(tmp) / f"{name}.sqlite" for name in BOARDS}
        builds: dict[str, list[tuple[float, float]]] = {name: [] for name in BOARDS}
        for _ in range(args.builds):
            for name, db in dbs.items():
                builds[name].append(build(name, db))
        for name in BOARDS:
            seconds = statistics.median(s for s, _ in builds[name])
            peak = max(mb for _, mb in builds[name])
            print(
                f"build {name}: median {seconds:6.2f} s over {args.builds}, peak RSS {peak:7.1f} MB,"
                f" file {dbs[name].stat().st_size / 1e6:6.1f} MB"
            )
        ratio = statistics.median(s for s, _ in builds["4x4"]) / statistics.median(s for s, _ in builds["3x3"])
        print(f"4x4 build: goal <= 30 s and <= 1536 MB; 4x4 / 3x3 build time {ratio:.1f}")

        command, label = lookup_command, "python -m ttt_solver.cli analyze --json"
        if not cli_usable(dbs["3x3"]):
            command, label = probe_command, "python -c Oracle.load(eager=False).probe (the CLI is not usable)"
        for name, db in dbs.items():
            wall(command(name, db))  # warm the file cache
        times: dict[str, list[float]] = {name: [] for name in BOARDS}
        for _ in range(args.runs):
            for name, db in dbs.items():
                times[name].append(wall(command(name, db)))
    medians = {name: statistics.median(t) for name, t in times.items()}
    for name, seconds in medians.items():
        print(f"lookup {name}: {label}: median {seconds * 1000:6.1f} ms over {args.runs} runs")
    print(f"ratio lookup 4x4 / 3x3: {medians['4x4'] / medians['3x3']:.2f}  (goal <= 2)")


if __name__ == "__main__":
    main()
