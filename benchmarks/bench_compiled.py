"""The solver's passes compiled (numba, the ``[fast]`` extra) against numpy's, and numba against C
on the first piece of the pass, which every board of a tier goes through: its canonical form
and orbit.

1. The whole solve of a variant's tiers in memory (every pass: ``solve_chunk`` and ``spread``),
   numpy then compiled, interleaved, CPU seconds per board and cell (medians).
2. The canonical-form piece alone over a tier's boards: numpy (``passes._canonical``), a numba
   loop over the same table lookups as :mod:`ttt_solver.solver.compiled`, and the same loop in C
   compiled here with ``gcc -O2`` (what a C extension built by setuptools runs), ns per board.
3. numba's first call in a fresh process: with an empty cache (the compile) and again with the
   cache the first run wrote, CPU seconds of the first ``solve_tables`` of 3x3 (imports apart).

With ``--tiers``, only the solve of a build instead: the variant's tiers solved into a scratch
folder on the in-process engine (what ``ttt-lookup build`` runs before it merges, and
``benchmarks/measure_build_costs.py`` times), numpy then compiled, interleaved.

    python benchmarks/bench_compiled.py --variant 4x4 --runs 3
    python benchmarks/bench_compiled.py --variant 3x6k4 --runs 3 --tiers
"""

from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numba
import numpy as np

from ttt_solver.engine import InProcess, open_scratch, solve_tiers
from ttt_solver.game.variant import Variant
from ttt_solver.solver import default_memory, passes, solve_tables, tiers
from ttt_solver.solver.compiled import _canonical_orbit
from ttt_solver.system.compiled_loops import VARIABLE as PASSES_VARIABLE

C_SOURCE = r"""
#include <stdint.h>
/* The canonical boards among (high[i], low[i]): orbit[i] > 0 for each, 0 for the others. */
void canonical(int64_t n, const int64_t *high, const int64_t *low, int64_t symmetries,
               const int64_t *image_high, int64_t high_size, const int64_t *image_low, int64_t low_size,
               int8_t *orbit) {
    for (int64_t i = 0; i < n; i++) {
        int64_t h = high[i], l = low[i], code = image_high[h] + image_low[l], fixed = 1;
        orbit[i] = 0;
        int64_t s = 1;
        for (; s < symmetries; s++) {
            int64_t image = image_high[s * high_size + h] + image_low[s * low_size + l];
            if (image < code) break;
            fixed += image == code;
        }
        if (s == symmetries) orbit[i] = (int8_t)(symmetries / fixed);
    }
}
"""


@numba.njit(cache=True)
def numba_canonical(high: np.ndarray, low: np.ndarray, image_high: np.ndarray, image_low: np.ndarray, orbit: np.ndarray) -> None:  # fmt: skip
    for i in range(len(high)):
        orbit[i] = _canonical_orbit(image_high[:, high[i]], low[i], image_low)


def c_canonical(folder: str) -> ctypes.CDLL:
    source, library = os.path.join(folder, "canonical.c"), os.path.join(folder, "canonical.so")
    Path(source).write_text(C_SOURCE)
    subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", library, source], check=True)
    return ctypes.CDLL(library)


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
    solve_tables(Variant())  # the kernels loaded (or compiled) first
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


def canonical_piece(variant: Variant, runs: int) -> None:
    found = tiers(variant)
    ply = int(np.argmax(found.sizes))  # the widest tier
    high, low = found.boards(ply, 0, found.size(ply))
    image_high, image_low = found.geometry.images
    orbit = np.zeros(len(high), dtype=np.int8)
    numba_canonical(high, low, image_high, image_low, orbit)
    with tempfile.TemporaryDirectory() as folder:
        library = c_canonical(folder)
        c_orbit = np.zeros(len(high), dtype=np.int8)

        def pointer(array: np.ndarray) -> ctypes.c_void_p:
            return ctypes.c_void_p(array.ctypes.data)

        def c_run() -> None:
            library.canonical(
                ctypes.c_int64(len(high)), pointer(high), pointer(low), ctypes.c_int64(len(image_high)),
                pointer(image_high), ctypes.c_int64(image_high.shape[1]), pointer(image_low),
                ctypes.c_int64(image_low.shape[1]), pointer(c_orbit),
            )  # fmt: skip

        runners = {
            "numpy": lambda: passes._canonical(found, high, low),
            "numba": lambda: numba_canonical(high, low, image_high, image_low, orbit),
            "C (gcc -O2)": c_run,
        }
        seconds: dict[str, list[float]] = {name: [] for name in runners}
        for _ in range(runs):
            for name, run in runners.items():
                seconds[name].append(cpu(run))
        assert np.array_equal(orbit, c_orbit)
        kept_high, _kept_low, kept_orbit = passes._canonical(found, high, low)
        assert np.array_equal(high[orbit > 0], kept_high) and np.array_equal(orbit[orbit > 0], kept_orbit)
    print(f"{variant}: canonical form and orbit of tier {ply}'s {len(high):,} boards, CPU medians of {runs}:")
    for name, values in seconds.items():
        print(f"  {name:<12} {statistics.median(values) / len(high) * 1e9:.2f} ns per board")


FIRST_CALL = """
import time
from ttt_solver.engine import InProcess, open_scratch, solve_tiers
from ttt_solver.game.variant import Variant
from ttt_solver.solver import solve_tables
import ttt_solver.solver.compiled
started = time.process_time()
solve_tables(Variant())
print(time.process_time() - started)
"""


def first_call() -> None:
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, PASSES_VARIABLE: "compiled"}
        times = []
        for _ in range(2):
            done = subprocess.run(
                [sys.executable, "-c", FIRST_CALL], env=env, capture_output=True, text=True, check=True
            )
            times.append(float(done.stdout.split()[-1]))
    print(f"first solve_tables(3x3) in a fresh process, CPU: {times[0]:.2f} s compiling (empty NUMBA_CACHE_DIR),")
    print(f"  {times[1]:.2f} s loading the kernels from the cache the first process wrote")


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
    canonical_piece(variant, args.runs)
    first_call()


if __name__ == "__main__":
    main()
