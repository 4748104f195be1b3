"""The distributed build against the single-process one, in the same session: wall and CPU
time of ``build`` of a variant in this process, then on a local Dask cluster of ``--workers``
processes (the one ``--engine dask`` starts, ``local_cluster``; started before the clock
starts), and the ratio of the walls (the issue's goal for 4x5k4 on 2 workers: at most 0.6).
Both databases must have the same digest.

CPU time: this process's (the driver's) plus, for the Dask build, each worker's, read on the
workers before and after. On a machine shared with other work the walls say little: the
load average is printed beside them.

    python benchmarks/bench_engine.py 4x5k4 --workers 2 [--rounds 3]

With ``--rounds N`` the pair is built N times, one after the other, and the median ratio
printed: the speed of a shared machine drifts between runs minutes apart. With ``--storage
FOLDER|URL`` the Dask build's tasks exchange their files there (``build --storage``), for
example ``file:///some/folder`` for what going through a URL costs without a network.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

from dask.distributed import Client

from ttt_solver.builder.build import build
from ttt_solver.engine.engine_dask import DaskEngine, local_cluster
from ttt_solver.game.variant import Variant


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variant", nargs="?", default="4x5k4")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1, help="pairs of builds, one process then Dask (default 1)")
    parser.add_argument("--storage", help="where the Dask build's tasks exchange files (default: its scratch folder)")
    args = parser.parse_args()
    variant = Variant.parse(args.variant)
    ratios = []
    for round_ in range(1, args.rounds + 1):
        if args.rounds > 1:
            print(f"round {round_}:")
        ratios.append(one_round(variant, args.workers, args.storage))
    if args.rounds > 1:
        print(f"wall ratios: {', '.join(f'{r:.2f}' for r in ratios)}; median {statistics.median(ratios):.2f}")


def one_round(variant: Variant, workers: int, storage: str | None) -> float:
    """Build ``variant`` in this process, then on a local cluster of ``workers`` (its files
    exchanged through ``storage``); the ratio of the walls (the digests checked equal)."""
    with tempfile.TemporaryDirectory(prefix="bench-engine-") as folder:
        print(f"load average before: {os.getloadavg()[0]:.1f}", flush=True)
        wall, cpu = time.perf_counter(), time.process_time()
        single = build(os.path.join(folder, "single.sqlite"), variant)
        single_wall, single_cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(
            f"single process: {single_wall:.1f} s wall, {single_cpu:.1f} s CPU; load {os.getloadavg()[0]:.1f}",
            flush=True,
        )
        with (
            local_cluster(workers) as cluster,  # the cluster `--engine dask` starts (its allocator settings)
            Client(cluster) as client,
            DaskEngine(client=client, storage=storage) as engine,
        ):
            before = client.run(time.process_time)
            wall, cpu = time.perf_counter(), time.process_time()
            distributed = build(os.path.join(folder, "dask.sqlite"), variant, engine=engine)
            dask_wall, driver_cpu = time.perf_counter() - wall, time.process_time() - cpu
            after = client.run(time.process_time)
        workers_cpu = sum(after[worker] - before[worker] for worker in after)
        print(
            f"dask, {workers} workers{f', storage {storage}' if storage else ''}: {dask_wall:.1f} s wall, {driver_cpu:.1f} s CPU in the driver"
            f" + {workers_cpu:.1f} s in the workers; load {os.getloadavg()[0]:.1f}"
        )
        print(f"wall ratio dask / single: {dask_wall / single_wall:.2f}", flush=True)
        assert distributed.digest == single.digest, "the two builds differ"
        print(f"same digest: {single.digest}")
    return dask_wall / single_wall


if __name__ == "__main__":
    main()
