"""The solver's compiled passes (the C extension, ``ttt_solver/solver/kernels.c``) against numpy's.

1. The whole solve of a variant's tiers in memory (every pass: ``solve_chunk`` and ``spread``),
   numpy then compiled, interleaved, CPU seconds per board and cell (medians).
2. What the compiled loops cost a fresh process before its first pass: the CPU of importing the
   extension (nothing is compiled at run time).

With ``--tiers``, only the solve of a build instead: the variant's tiers solved into a scratch
folder on the in-process engine (what ``ttt-lookup build`` runs before it merges, and
``benchmarks/measure_build_costs.py`` times), numpy then compiled, interleaved.

    python benchmarks/bench_compiled.py --variant 4x4 --runs 3
    python benchmarks/bench_compiled.py --variant 3x6k4 --runs 3 --tiers
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

from ttt_solver.engine import InProcess, open_scratch, solve_tiers
from ttt_solver.game.variant import Variant
from ttt_solver.solver import default_memory, solve_tables, tiers
from ttt_solver.system.compiled_loops import VARIABLE as PASSES_VARIABLE


def cpu(run: Callable[[], object]) -> float:
    started = time.process_time()
    run()
    return time.process_time() - started


def solve_in_scratch(variant: Variant) -> None:
    with tempfile.TemporaryDirectory() as folder:
        scratch = open_scratch(os.path.join(folder, "scratch"), variant, {"bench": 1})
        solve_tiers(InProcess(), scratch, default_memory())


def whole_solve(variant: Variant, runs: int, in_scratch: bool) -> None:
    boards = int(tiers(variant).sizes.sum()) * variant.cells
    os.environ[PASSES_VARIABLE] = "compiled"
    solve_tables(Variant())  # every module the solve imports loaded first
    solve = solve_in_scratch if in_scratch else solve_tables
    seconds: dict[str, list[float]] = {"numpy": [], "compiled": []}
    for _ in range(runs):
        for name, values in seconds.items():
            os.environ[PASSES_VARIABLE] = name  # every tier, however small, the one way or the other
            values.append(cpu(lambda: solve(variant)))
            print(f"  ({name} {values[-1]:.2f} s)", flush=True)
    numpy_s, compiled_s = (statistics.median(seconds[name]) for name in ("numpy", "compiled"))
    where = "its tiers into a scratch folder (the engine in process)" if in_scratch else "in memory"
    print(f"{variant}: whole solve {where}, CPU medians of {runs}:")
    print(f"  numpy    {numpy_s:.3f} s = {numpy_s / boards * 1e9:.2f} ns per board and cell")
    print(f"  compiled {compiled_s:.3f} s = {compiled_s / boards * 1e9:.2f} ns per board and cell")
    print(f"  numpy / compiled: {numpy_s / compiled_s:.2f}")


# The extension's file loaded alone (its package, which imports numpy, left out of the time).
LOADING = """
import importlib.machinery, importlib.util, pathlib, time
import ttt_solver
folder = pathlib.Path(ttt_solver.__file__).parent / "solver"
(path,) = [folder / f"kernels{suffix}" for suffix in importlib.machinery.EXTENSION_SUFFIXES if (folder / f"kernels{suffix}").exists()]
started = time.process_time()
spec = importlib.util.spec_from_file_location("kernels", path)
spec.loader.exec_module(importlib.util.module_from_spec(spec))
print(time.process_time() - started)
"""


def loading(runs: int) -> None:
    seconds = []
    for _ in range(runs):
        done = subprocess.run([sys.executable, "-c", LOADING], capture_output=True, text=True, check=True)
        seconds.append(float(done.stdout.split()[-1]))
    print(
        f"a fresh process, CPU medians of {runs}: the compiled loops loaded in {statistics.median(seconds) * 1e3:.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="4x4")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tiers", action="store_true", help="only the solve of a build's tiers, numpy vs compiled")
    args = parser.parse_args()
    variant = Variant.parse(args.variant)
    whole_solve(variant, args.runs, args.tiers)
    if args.tiers:
        return
    loading(max(args.runs, 5))


if __name__ == "__main__":
    main()
