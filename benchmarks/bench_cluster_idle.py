"""What an idle local Dask cluster costs in CPU: the one ``--engine dask`` starts
(``local_cluster``: its event loops checked once a second) against the same cluster with Dask's
default check every 20 ms (the baseline), each left idle for ``--seconds`` once its workers are
up, in turns, ``--rounds`` times. CPU time of this process (the scheduler and the nannies run
in it) and its children (the workers); the medians, and their ratio.

    python benchmarks/bench_cluster_idle.py [--workers 2] [--seconds 20] [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

import dask
import psutil
from dask.distributed import Client, LocalCluster

from ttt_solver.engine.engine_dask import LOCAL_PORT, MALLOC, local_cluster


def baseline_cluster(workers: int) -> LocalCluster:
    """``local_cluster`` as it was before its tick setting: the allocator settings only."""
    with dask.config.set({f"distributed.nanny.pre-spawn-environ.{k}": v for k, v in MALLOC.items()}):
        return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=LOCAL_PORT)


def tree_cpu() -> float:
    """CPU seconds of this process and its children so far."""
    me = psutil.Process()
    total = 0.0
    for process in [me, *me.children(recursive=True)]:
        try:
            times = process.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += times.user + times.system
    return total


def idle_cost(cluster: LocalCluster, seconds: float) -> float:
    """CPU seconds a second of ``cluster`` left idle (closed after)."""
    with cluster, Client(cluster) as client:
        client.run(lambda: None)  # every worker up
        time.sleep(1)
        before, start = tree_cpu(), time.perf_counter()
        time.sleep(seconds)
        return (tree_cpu() - before) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    ours, baseline = [], []
    for _round in range(args.rounds):
        baseline.append(idle_cost(baseline_cluster(args.workers), args.seconds))
        ours.append(idle_cost(local_cluster(args.workers), args.seconds))
        print(f"CPU s/s idle: Dask's default tick {baseline[-1]:.3f}, local_cluster {ours[-1]:.3f}", flush=True)
    a, b = statistics.median(ours), statistics.median(baseline)
    print(f"medians: local_cluster {a:.3f} CPU s/s, the default {b:.3f}: ratio {a / b:.2f}")


if __name__ == "__main__":
    main()
