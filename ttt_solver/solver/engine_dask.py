"""The tiers solved on Dask: each chunk's passes are a task on a worker process, the driver
(this process) only cuts the tiers into chunks and records them.

What a task needs comes by name and path, not through the scheduler: the variant's name (each
worker builds the tier tables once, :func:`ttt_solver.solver.tiers.tiers`), a range of ranks,
and the paths of two files in the scratch folder, which every worker can reach (one machine,
or a folder on a shared file system):

- the tier below's ``results.bin``, memory-mapped read-only: the children's result bytes,
  gathered by rank (:func:`ttt_solver.solver.passes.solve_chunk`, unchanged);
- the tier's own ``results.bin``, memory-mapped for writing: each task writes the result bytes
  of its positions' images (:func:`ttt_solver.solver.passes.spread`, unchanged). Every board
  is the image of one canonical position, solved by one task, so tasks write disjoint bytes.

Each task writes its rows into its own column files (a partition of the tier, by rank) and
returns their count; the driver appends the partitions in rank order into the tier's files,
which are then exactly the files one process writes (:func:`ttt_solver.solver.solve.solve_scratch`),
and records the tier as it does (:meth:`ttt_solver.solver.scratch.Scratch.finish`). The tasks'
files of a run sit in a folder of their own inside ``tier-PP.part/``: a task left running by a
killed driver writes into a folder the next run has removed, never into its files.

This module imports Dask: it is imported only when a build asks for it (``--engine dask``).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from typing import Any, Self, TypeVar

import dask
import numpy as np
from dask.distributed import Client, LocalCluster, as_completed

from ..errors import BuildError
from ..game.variant import Variant
from . import checksums
from .passes import COLUMNS, Solved, new_tier_file, solve_chunk, spread
from .scratch import Scratch, TierSink, sync
from .solve import Calls, Done, Note, Steps, results_file, task_boards, tier_solved, unsolved
from .tiers import tiers

CONNECT_SECONDS = 10  # how long a build waits for the scheduler at --address
# The local cluster's HTTP server (its dashboard, if bokeh is installed): any free port, on this machine only.
LOCAL_PORT = "127.0.0.1:0"
T = TypeVar("T")
# Dask starts its workers with MALLOC_TRIM_THRESHOLD_=65536, which also turns off glibc's dynamic
# mmap threshold: every array of a chunk is then a fresh mapping, page-faulted in and unmapped
# (a worker took twice the time of one process for the same proof tasks, 3x6k4's verify). These
# keep a chunk's arrays (up to 16 MB each) on the heap, reused from task to task. A cluster at
# --address has its operator's settings (docs/engine.md says which).
MALLOC = {"MALLOC_TRIM_THRESHOLD_": str(128 << 20), "MALLOC_MMAP_THRESHOLD_": str(32 << 20)}


class DaskEngine:
    """Solve on a Dask cluster: the one at ``address``, or a local cluster of ``workers``
    processes (one thread each) that starts with :meth:`__enter__` and stops with
    :meth:`__exit__`. ``client``: a client already connected (kept open on exit)."""

    def __init__(self, workers: int | None = None, address: str | None = None, client: Client | None = None) -> None:
        self.workers = workers
        self.address = address
        self.client = client
        self._owned: list[Any] = []  # what __exit__ closes

    def __enter__(self) -> Self:
        if self.client is None:
            if self.address is None:
                with dask.config.set({f"distributed.nanny.pre-spawn-environ.{k}": v for k, v in MALLOC.items()}):
                    cluster = LocalCluster(
                        n_workers=self.workers or 1, threads_per_worker=1, processes=True, dashboard_address=LOCAL_PORT
                    )
                self._owned.append(cluster)
                self.client = Client(cluster)
            else:
                try:
                    self.client = Client(self.address, timeout=CONNECT_SECONDS)
                except (OSError, ValueError) as error:  # unreachable, refused, or not an address Dask reads
                    raise BuildError(
                        f"cannot reach the Dask scheduler at {self.address!r} ({error}); start one with"
                        " 'dask scheduler' and its workers with 'dask worker ADDRESS', or leave out --address"
                        " for a local cluster"
                    ) from None
            self._owned.insert(0, self.client)
        return self

    def __exit__(self, *_exc: object) -> None:
        for owned in self._owned:
            owned.close()
        self._owned.clear()

    def solve(
        self, scratch: Scratch, memory: int, note: Note | None = None, steps: Steps | None = None, lowest: int = 0
    ) -> None:
        """Solve the tiers ``scratch`` lacks down to ply ``lowest`` (0: every tier), each chunk a
        task; ``memory`` is a worker's budget."""
        assert self.client is not None, "DaskEngine used outside its with block"
        variant = scratch.variant
        found = tiers(variant)
        chunk = task_boards(memory)
        for ply in unsolved(scratch, found, note, steps, lowest):
            below = results_file(scratch, found, ply + 1, chunk) if ply < variant.cells else None
            self._solve_tier(scratch, ply, found.size(ply), chunk, below, steps, int(found.sizes.sum()))
            if note:
                note(tier_solved(variant, ply, scratch.check_tiers()[ply]["rows"]))

    def run(self, function: Callable[..., T], calls: Calls, name: str, done: Done | None = None) -> list[T]:
        """``function(*call)`` for each call, each a task (its arguments small: names, ranges,
        paths); the results in the calls' order. ``done(index)`` hears of each call as it
        finishes; a task's error is raised here, in the driver."""
        assert self.client is not None, "DaskEngine used outside its with block"
        run = uuid.uuid4().hex[:8]
        futures = {
            self.client.submit(function, *call, key=f"ttt-{name}-{index}-{run}", pure=False): index
            for index, call in enumerate(calls)
        }
        results: dict[int, T] = {}
        for future in as_completed(futures):
            results[futures[future]] = future.result()
            if done:
                done(futures[future])
        return [results[index] for index in range(len(calls))]

    def _solve_tier(
        self, scratch: Scratch, ply: int, size: int, chunk: int, below: str | None, steps: Steps | None, total: int
    ) -> None:
        assert self.client is not None
        run = os.path.join(scratch.part(ply), f"run-{uuid.uuid4().hex}")
        os.makedirs(run)
        results = os.path.join(run, "results.bin")
        new_tier_file(tiers(scratch.variant), ply, results)
        starts = list(range(0, size, chunk))
        calls = [(scratch.variant.name, ply, start, min(size, start + chunk), below, results, run) for start in starts]

        def done(index: int) -> None:
            if steps:
                steps("solving", calls[index][3] - calls[index][2], total)

        self.run(solve_partition, calls, f"{scratch.variant.name}-{ply}", done)
        part = os.path.dirname(run)
        sink = TierSink(part)
        for start in starts:
            sink.append(_read_partition(run, start))
        handle = os.open(results, os.O_RDONLY)
        try:
            os.fsync(handle)  # the tasks' writes, on the disk before the tier is recorded
        finally:
            os.close(handle)
        running = checksums.read_prefix(results, size + 1)
        assert running is not None, f"{results} is shorter than its tier"
        os.replace(results, os.path.join(part, "results.bin"))
        for name in os.listdir(run):
            os.remove(os.path.join(run, name))
        os.rmdir(run)
        sync(part)
        scratch.finish(ply, sink, running.entry())


def solve_partition(name: str, ply: int, start: int, stop: int, below: str | None, results: str, folder: str) -> int:
    """A task: solve ranks ``start`` to ``stop`` of tier ``ply`` of variant ``name``, write the
    result bytes of the positions' images into ``results`` and the rows into ``folder``
    (``START.NAME.bin`` per column); the count of rows."""
    found = tiers(Variant.parse(name))
    below_bytes = np.memmap(below, dtype=np.uint8, mode="r") if below is not None else None
    solved = solve_chunk(found, ply, start, stop, below_bytes)
    out = np.memmap(results, dtype=np.uint8, mode="r+")
    spread(found, ply, solved, out)
    out.flush()
    del out
    for column, (column_name, dtype) in zip(solved, COLUMNS):
        with open(os.path.join(folder, f"{start:015d}.{column_name}.bin"), "wb") as file:
            column.astype(dtype, copy=False).tofile(file)
    return len(solved)


def _read_partition(folder: str, start: int) -> Solved:
    return Solved(
        *(np.fromfile(os.path.join(folder, f"{start:015d}.{name}.bin"), dtype=dtype) for name, dtype in COLUMNS)
    )
