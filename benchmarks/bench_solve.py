"""Benchmark the vectorised solver (ttt_solver.solver.solve) against the recursive one.

``python benchmarks/bench_solve.py [VARIANT ...]`` (default: 3x3 4x4). Each measurement
runs in its own subprocess so that peak RSS (``ru_maxrss``) is that run's alone. Times
exclude interpreter start-up and imports; "cold" is the first call in the process (it
includes building the per-variant lookup tables), "best" the fastest of the repeats.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPEATS = {"3x3": 20, "3x3-misere": 20}  # other variants: 2 runs


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux


def measure(solver: str, name: str) -> dict[str, float]:
    """Run in the child: time one solver on one variant."""
    sys.path.insert(0, str(ROOT))
    from ttt_solver.game.variant import Variant
    from ttt_solver.solver.reference import solve
    from ttt_solver.solver.solve import solve_tables

    variant = Variant.parse(name)
    run = (lambda: solve_tables(variant)) if solver == "backward" else (lambda: solve(variant))
    before = peak_rss_mb()
    times = []
    for _ in range(REPEATS.get(name, 2)):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return {"cold": times[0], "best": min(times), "rss_before": before, "rss_peak": peak_rss_mb()}


def in_subprocess(solver: str, name: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", solver, name], check=True, capture_output=True, text=True
    ).stdout
    return json.loads(out.splitlines()[-1])


def main(names: list[str]) -> None:
    print(f"{'solver':<10} {'variant':<12} {'cold s':>9} {'best s':>9} {'RSS before MB':>14} {'peak RSS MB':>12}")
    results = {}
    jobs = [("backward", name) for name in names] + [("recursive", "3x3")]
    for solver, name in jobs:
        r = results[solver, name] = in_subprocess(solver, name)
        print(
            f"{solver:<10} {name:<12} {r['cold']:>9.4f} {r['best']:>9.4f}"
            f" {r['rss_before']:>14.1f} {r['rss_peak']:>12.1f}"
        )
    if ("backward", "3x3") in results:
        fast, slow = results["backward", "3x3"], results["recursive", "3x3"]
        print(
            f"3x3 backward / recursive time: cold {fast['cold'] / slow['cold']:.3f},"
            f" best {fast['best'] / slow['best']:.3f}"
        )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        print(json.dumps(measure(sys.argv[2], sys.argv[3])))
    else:
        main(sys.argv[1:] or ["3x3", "4x4"])
