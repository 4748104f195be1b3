"""The build against compiled code: ``ttt-lookup build`` against a memoised negamax in C.

The benchmark compiles ``benchmarks/negamax.c`` (gcc -O2, into a temporary folder): a
negamax that knows nothing of symmetry, one byte of memo a code (a table of 3^cells bytes), so it
visits 4 to 8 times the positions the builder solves. Then, per variant, interleaved pairs: the
negamax, then ``ttt-lookup build --variant V --db TMP --force``, each a process of its own. Each
side's CPU is user + sys of its process and every child it waited for (``RUSAGE_CHILDREN``
deltas around it); its peak memory is the largest resident set of that process or of a child
(the rusage that ``wait4`` gives back; Linux counts in it the pages of this process that the child
was forked from, so the benchmark prints that floor too). It prints the CPU medians, the peaks, the ratio build /
negamax, the digest of the builds (all runs must agree) and checks that the negamax's value and
remoteness of the empty board are the database's (``ttt-lookup analyze --json``).

    python benchmarks/bench_negamax.py                       # 3x6k4 and 4x5k4, 3 pairs each
    python benchmarks/bench_negamax.py 3x4k3 4x4 --runs 1    # a quick check
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

from ttt_solver.game.variant import Variant

SOURCE = Path(__file__).resolve().parent / "negamax.c"
LOOKUP = [sys.executable, "-m", "ttt_solver"]


class Cost(NamedTuple):
    cpu: float  # seconds, user + sys of the process and its children
    peak_mb: float  # the largest resident set of the process or of one of its children
    output: str


def compile_negamax(folder: Path) -> Path:
    """``negamax.c`` compiled with ``gcc -O2`` into ``folder``; the program's path."""
    program = folder / "negamax"
    subprocess.run(["gcc", "-O2", "-o", str(program), str(SOURCE)], check=True)
    return program


def negamax_command(program: Path, variant: Variant, board: str = "") -> list[str]:
    """The command line of the compiled negamax for ``variant`` (from ``board``, default empty)."""
    shape = [str(variant.rows), str(variant.cols), str(variant.k), str(int(variant.misere))]
    return [str(program), *shape, *([board] if board else [])]


def negamax_root(program: Path, variant: Variant, board: str = "") -> tuple[int, int]:
    """The compiled negamax's (value, remoteness) of ``board`` (default: the empty board)."""
    done = subprocess.run(negamax_command(program, variant, board), check=True, capture_output=True, text=True)
    value, remoteness, _visited = done.stdout.split()
    return int(value), int(remoteness)


def run(command: list[str], folder: Path) -> Cost:
    """Run ``command`` to its end, stdout to a file; its CPU, peak memory and output."""
    output = folder / "stdout"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with output.open("w") as stdout:
        process = subprocess.Popen(command, stdout=stdout, stderr=subprocess.DEVNULL)
        _pid, status, usage = os.wait4(process.pid, 0)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed with status {os.waitstatus_to_exitcode(status)}")
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return Cost(cpu, usage.ru_maxrss / 1024, output.read_text())


def bench(variant: Variant, program: Path, runs: int, folder: Path) -> None:
    database = folder / f"{variant}.sqlite"
    build = [*LOOKUP, "build", "--variant", variant.name, "--db", str(database), "--force", "--quiet", "--json"]
    negamax, built = [], []
    for _ in range(runs):
        negamax.append(run(negamax_command(program, variant), folder))
        built.append(run(build, folder))
    digests = {json.loads(cost.output)["digest"] for cost in built}
    empty = "." * variant.cells
    analyzed = subprocess.run(
        [*LOOKUP, "analyze", empty, "--variant", variant.name, "--db", str(database), "--json"],
        check=True,
        capture_output=True,
        text=True,
    )
    answer = json.loads(analyzed.stdout)
    found = {tuple(int(number) for number in cost.output.split()[:2]) for cost in negamax}
    same = found == {(answer["value"], answer["remoteness"])}
    negamax_cpu = statistics.median(cost.cpu for cost in negamax)
    build_cpu = statistics.median(cost.cpu for cost in built)
    print(
        f"{variant}: CPU medians of {runs}: negamax {negamax_cpu:.2f} s, build {build_cpu:.2f} s,"
        f" ratio build / negamax {build_cpu / negamax_cpu:.2f};"
        f" peak memory: negamax {max(cost.peak_mb for cost in negamax):,.0f} MB,"
        f" build {max(cost.peak_mb for cost in built):,.0f} MB"
        f" ({max(cost.peak_mb for cost in built) / max(cost.peak_mb for cost in negamax):.2f}x)"
    )
    print(
        f"{variant}: empty board: negamax {sorted(found)}, database ({answer['value']}, {answer['remoteness']})"
        f" {'equal' if same else 'DIFFERENT'}; negamax visited {negamax[0].output.split()[2]} positions;"
        f" digest {' '.join(sorted(digests))}{'' if len(digests) == 1 else ' (builds DIFFER)'}"
    )
    if not same or len(digests) != 1:
        raise SystemExit(f"{variant}: the negamax and the build disagree")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="*", default=["3x6k4", "4x5k4"])
    parser.add_argument("--runs", type=int, default=3, help="interleaved pairs per variant (default 3)")
    args = parser.parse_args()
    if shutil.which("gcc") is None:
        raise SystemExit("gcc is not installed: the benchmark compiles its negamax with it")
    variants = [Variant.parse(name) for name in args.variants]
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        program = compile_negamax(folder)
        print(f"a child of this process starts at a peak of {run(['true'], folder).peak_mb:.0f} MB (the fork's pages)")
        for variant in variants:
            bench(variant, program, args.runs, folder)


if __name__ == "__main__":
    main()
