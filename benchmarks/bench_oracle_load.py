"""CPU of an eager ``Oracle.load`` and of making perfect players, against another checkout in the same run.

    python benchmarks/bench_oracle_load.py [--variants 3x3 3x4k3 4x4] [--runs 5] [--baseline /path/to/checkout]

For each variant, in a fresh process per measurement:

- ``load``: CPU seconds of an eager ``Oracle.load(db, variant)`` (numpy and the package imported
  first, so that the figure is the load and not the imports), the median over ``--runs`` fresh
  processes. Goal (issue 25, item 9): at most 0.3 s for every variant up to 4x4.
- ``players``: CPU seconds to make two ``perfect`` agents with no oracle given and have each
  choose a move, as an environment or a bot does (the first loads the default database; the
  second should reuse that load).

``--baseline`` runs the same measurements with another source checkout first on the path (for
example ``git archive`` of an earlier commit unpacked into a folder), alternately with this one, and prints the ratios. Only the public API
is used (``Oracle``, ``make_agent``, the paths module's ``data_folder`` pointed at a temporary
folder of default databases), so any release can be the baseline. The databases are built
once by this checkout's ``ttt-lookup build``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r"""
import json, sys, time
import numpy as np
try:
    import ttt_solver.store.paths as paths
except ImportError:  # the layout before the store held the paths
    import ttt_solver.paths as paths
from ttt_solver import Oracle
from ttt_solver.game.variant import Variant
from ttt_solver.players.agents import make_agent
folder, variant, what = sys.argv[1], sys.argv[2], sys.argv[3]
paths.data_folder = lambda: folder
db = paths.database_file(Variant.parse(variant))
if what == "load":
    started = time.process_time()
    Oracle.load(db, variant)
    print(json.dumps(time.process_time() - started))
else:
    empty = "." * Variant.parse(variant).cells
    rng = np.random.default_rng(0)
    started = time.process_time()
    make_agent("perfect", variant=Variant.parse(variant)).choose(empty, rng)
    first = time.process_time()
    make_agent("perfect", variant=Variant.parse(variant)).choose(empty, rng)
    print(json.dumps([first - started, time.process_time() - first]))
"""


def measure(checkout: str, folder: str, variant: str, what: str) -> object:
    env = {**os.environ, "PYTHONPATH": checkout}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, folder, variant, what],
        capture_output=True, text=True, env=env, cwd=folder, check=False,  # cwd: not a checkout
    )  # fmt: skip
    if done.returncode:
        raise SystemExit(f"the measurement failed under {checkout}:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def build(folder: str, variant: str) -> None:
    name = "ttt" if variant == "3x3" else variant
    subprocess.run(
        [sys.executable, "-m", "ttt_solver.cli", "build", "--variant", variant, "--quiet",
         "--db", os.path.join(folder, f"{name}.sqlite")],
        check=True, stdout=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": ROOT},
    )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", nargs="+", default=["3x3", "3x4k3", "4x4"])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", help="another source checkout, measured alternately")
    args = parser.parse_args()
    checkouts = [ROOT] + ([os.path.abspath(args.baseline)] if args.baseline else [])
    with tempfile.TemporaryDirectory() as folder:
        for variant in args.variants:
            build(folder, variant)
            loads: dict[str, list[float]] = {c: [] for c in checkouts}
            players: dict[str, list[list[float]]] = {c: [] for c in checkouts}
            for _ in range(args.runs):
                for checkout in checkouts:
                    loads[checkout].append(measure(checkout, folder, variant, "load"))  # type: ignore[arg-type]
                    players[checkout].append(measure(checkout, folder, variant, "players"))  # type: ignore[arg-type]
            report(variant, checkouts, loads, players)


def report(
    variant: str, checkouts: list[str], loads: dict[str, list[float]], players: dict[str, list[list[float]]]
) -> None:
    def figures(checkout: str) -> tuple[float, float, float]:
        load = statistics.median(loads[checkout])
        first = statistics.median(p[0] for p in players[checkout])
        second = statistics.median(p[1] for p in players[checkout])
        return load, first, second

    load, first, second = figures(checkouts[0])
    line = f"{variant}: eager load {load:.3f} s CPU; two perfect players {first:.3f} s + {second:.3f} s"
    if len(checkouts) > 1:
        old_load, old_first, old_second = figures(checkouts[1])
        line += (
            f" | baseline: load {old_load:.3f} s, players {old_first:.3f} s + {old_second:.3f} s"
            f" | ratio load {load / old_load:.2f}, second player {second / max(old_second, 1e-9):.3f}"
        )
    print(line + f" (medians of {len(loads[checkouts[0]])} fresh processes)", flush=True)


if __name__ == "__main__":
    main()
