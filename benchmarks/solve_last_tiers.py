"""Solve only the last tiers of a variant into a scratch folder, and measure their cost per
board: what the plan of a variant too big for one machine scales from (5x5k4's three last
tiers, plies 25 to 23, are 478,427,600 boards).

The folder is a build's scratch folder (:func:`ttt_solver.engine.scratch.open_scratch`) and is
kept: its tiers are checked against a brute-force search by ``tests/solver/test_last_tiers.py``
(``TTT_LAST_TIERS_DIR=FOLDER pytest -m last_tiers``). The tiers are solved by the build's own
engine (``--engine dask``: :class:`ttt_solver.engine.engine_dask.DaskEngine` on a local cluster
of ``--workers`` processes; ``--engine none``: this process,
:func:`ttt_solver.engine.solving.solve_tiers`). Before the clock starts, every process builds the
variant's tier tables (a fixed cost per process, printed apart). Printed: each tier's wall time,
then the CPU seconds of the driver and of the workers, per board and per board and cell, the
peak RSS of each process and the load average (the machine may be shared)::

    nice python benchmarks/solve_last_tiers.py 5x5k4 --tiers 3 --engine dask --workers 2 --folder /work/tmp-5x5
"""

from __future__ import annotations

import argparse
import os
import resource
import time

from ttt_solver.engine.engines import InProcess
from ttt_solver.engine.scratch import open_scratch
from ttt_solver.engine.solving import solve_tiers
from ttt_solver.game.variant import Variant
from ttt_solver.solver.solve import SOLVER_VERSION, default_memory
from ttt_solver.solver.tiers import tiers
from ttt_solver.system.files import locked


def warm(name: str) -> float:
    """Build the variant's tier tables in this process; the seconds of CPU it took."""
    start = time.process_time()
    tiers(Variant.parse(name))
    return time.process_time() - start


def peak_rss() -> int:
    """This process's peak resident memory, in bytes (Linux reports kilobytes)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variant")
    parser.add_argument("--tiers", type=int, default=3, help="how many of the last tiers to solve")
    parser.add_argument("--engine", choices=("dask", "none"), default="dask")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--folder", required=True, help="the scratch folder (kept)")
    parser.add_argument("--memory", type=int, default=None, help="bytes: a worker's (or this process's) budget")
    args = parser.parse_args()
    variant = Variant.parse(args.variant)
    lowest = variant.cells - args.tiers + 1
    memory = args.memory or default_memory()
    print(f"load average before: {os.getloadavg()[0]:.1f}", flush=True)
    print(f"tier tables in the driver: {warm(variant.name):.1f} s CPU", flush=True)
    found = tiers(variant)
    boards = int(found.sizes[lowest:].sum())
    print(f"{variant}: plies {variant.cells} to {lowest}: {boards:,} boards", flush=True)
    clock = time.perf_counter()

    def note(line: str) -> None:
        print(f"{time.perf_counter() - clock:8.1f} s  {line}  (load {os.getloadavg()[0]:.1f})", flush=True)

    with locked(args.folder):
        scratch = open_scratch(args.folder, variant, {"solver": SOLVER_VERSION, "last_tiers": args.tiers}, note)
        if args.engine == "none":
            cpu, clock = time.process_time(), time.perf_counter()
            solve_tiers(InProcess(), scratch, memory, note, lowest=lowest)
            wall, driver, workers = time.perf_counter() - clock, time.process_time() - cpu, {}
            rss = {}
        else:
            # Imported here: the dask extra is needed only for --engine dask.
            from ttt_solver.engine.engine_dask import DaskEngine

            with DaskEngine(workers=args.workers) as engine:
                assert engine.client is not None
                tables = engine.client.run(warm, variant.name)
                print(f"tier tables in the workers: {sum(tables.values()):.1f} s CPU", flush=True)
                before = engine.client.run(time.process_time)
                cpu, clock = time.process_time(), time.perf_counter()
                solve_tiers(engine, scratch, memory, note, lowest=lowest)
                wall, driver = time.perf_counter() - clock, time.process_time() - cpu
                after = engine.client.run(time.process_time)
                workers = {worker: after[worker] - before[worker] for worker in after}
                rss = engine.client.run(peak_rss)
    in_workers = sum(workers.values())
    per = variant.cells * boards
    print(f"wall: {wall:.1f} s; load average after: {os.getloadavg()[0]:.1f}")
    print(
        f"CPU: {driver:.1f} s in the driver + {in_workers:.1f} s in {len(workers)} workers"
        f" = {driver + in_workers:.1f} s"
    )
    for name, seconds in (("driver", driver), ("workers", in_workers), ("all", driver + in_workers)):
        print(f"  {name}: {seconds / boards * 1e9:.1f} ns per board, {seconds / per * 1e9:.2f} ns per board and cell")
    print(f"peak RSS: driver {peak_rss() / 1e9:.2f} GB" + "".join(f", worker {v / 1e9:.2f} GB" for v in rss.values()))
    print(f"scratch folder kept: {args.folder}")


if __name__ == "__main__":
    main()
