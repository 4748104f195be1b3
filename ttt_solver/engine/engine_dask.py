"""The tiers solved on Dask: each chunk's passes are a task on a worker process, the driver
(this process) only cuts the tiers into chunks and records them.

What a task needs comes by name, not through the scheduler: the variant's name (each worker
builds the tier tables once, :func:`ttt_solver.solver.tiers.tiers`), a range of ranks, and
names of files in the build's storage (:mod:`ttt_solver.engine.storage`: the scratch folder,
which every worker reaches by the same path, by default; or ``--storage``, another shared
folder or an fsspec URL). Every file there has one writer and is read only once its writer has
made it whole (closed, or uploaded: :meth:`.storage.Storage.create`), so that a file system
shared by several machines is safe too:

- the tier below's result bytes (joined by the driver), memory-mapped read-only: the
  children's result bytes, gathered by rank (:func:`ttt_solver.solver.passes.solve_chunk`);
- each solving task writes its rows (a partition of the tier, by rank) and then its positions'
  images, grouped by range of ranks, into a file of its own;
- then a task per range gathers its images from those files and writes the range's result
  bytes into a file of its own (:mod:`ttt_solver.engine.shuffle`).

The driver appends the partitions in rank order into the tier's files and the ranges into its
``results.bin``: exactly the files one process writes
(:func:`ttt_solver.solver.solve.solve_scratch`), and records the tier as it does
(:meth:`ttt_solver.engine.scratch.Scratch.finish`). The tasks' files of a run sit in a folder
of their own inside ``tier-PP.part/``: a task left running by a killed driver writes into a
folder the next run has removed, never into its files.

``--storage`` is checked before anything is solved: the driver, then every worker, writes,
reads back and removes a file there (:meth:`.storage.Storage.check`).

This module imports Dask: it is imported only when a build asks for it (``--engine dask``).
"""

from __future__ import annotations

import glob
import os
import uuid
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Self, TypeVar

import dask
import numpy as np
from dask.distributed import Client, LocalCluster, as_completed, get_worker

from ..errors import EngineError
from ..game.variant import Variant
from ..solver import checksums
from ..solver.passes import COLUMNS, ROW_BYTES, Solved, solve_chunk
from ..solver.solve import Calls, Done, Note, Steps, results_file, task_boards, tier_solved, unsolved
from ..solver.tiers import tiers
from .scratch import Scratch, TierSink, sync
from .shuffle import gather_range, join_ranges, range_bounds, write_images
from .storage import Storage, build_storage, drop_cached

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
# Dask checks the health of each event loop (the scheduler's and each nanny's, in the driver, and
# each worker's) every 20 ms by default. Idle, a local cluster of 2 workers took 0.13 s of CPU a
# second with that, 0.10 s with a check a second (medians, benchmarks/bench_cluster_idle.py),
# which still reports a loop blocked for longer than its limit of 3 s.
TICK = {"distributed.admin.tick.interval": "1s"}


def local_cluster(workers: int) -> LocalCluster:
    """The local cluster a build or a verify without ``--address`` starts: ``workers`` processes
    of one thread each, with the allocator settings of :data:`MALLOC` and the event loops'
    checks of :data:`TICK`."""
    environment = {f"distributed.nanny.pre-spawn-environ.{k}": v for k, v in MALLOC.items()}
    with dask.config.set({**environment, **TICK}):
        return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=LOCAL_PORT)


class DaskEngine:
    """Solve on a Dask cluster: the one at ``address``, or a local cluster of ``workers``
    processes (one thread each) that starts with :meth:`__enter__` and stops with
    :meth:`__exit__`. ``client``: a client already connected (kept open on exit)."""

    def __init__(
        self,
        workers: int | None = None,
        address: str | None = None,
        client: Client | None = None,
        storage: str | None = None,
    ) -> None:
        self.workers = workers
        self.address = address
        self.client = client
        self.storage_root = storage
        self._owned: list[Any] = []  # what __exit__ closes

    def __enter__(self) -> Self:
        if self.client is None:
            if self.address is None:
                cluster = local_cluster(self.workers or 1)
                self._owned.append(cluster)
                self.client = Client(cluster)
            else:
                try:
                    self.client = Client(self.address, timeout=CONNECT_SECONDS)
                except (OSError, ValueError) as error:  # unreachable, refused, or not an address Dask reads
                    raise EngineError(
                        f"cannot reach the Dask scheduler at {self.address!r} ({error}); start one with"
                        " 'dask scheduler' and its workers with 'dask worker ADDRESS', or leave out --address"
                        " for a local cluster"
                    ) from None
            self._owned.insert(0, self.client)
        if self.storage_root is not None:
            try:
                _check_storage(self.storage_root)  # here, then on every worker
                self.client.run(_check_storage, self.storage_root)
            except BaseException:
                self.__exit__()
                raise
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
        storage = self.storage(scratch.path, scratch.variant.name)
        variant = scratch.variant
        found = tiers(variant)
        # A tier's rows are appended into its files and the tier recorded in a thread of the
        # driver while the workers solve the next tier from its result bytes (joined first).
        joined: tuple[int, str] | None = None  # the last tier solved and the name of its result bytes
        for stale in glob.glob(scratch.file("results-*.bin")):  # a stopped run's
            os.unlink(stale)
        with ThreadPoolExecutor(1) as recorder:
            recording: Future[None] | None = None
            for ply in unsolved(scratch, found, note, steps, lowest):
                if joined is not None and joined[0] == ply + 1:  # the tier above, solved just now
                    below: str | None = joined[1]
                else:
                    if recording is not None:
                        recording.result()
                    if joined is not None:
                        _release(scratch, storage, joined[1])
                        joined = None
                    below = None
                    if ply < variant.cells:
                        below = os.path.relpath(
                            results_file(scratch, found, ply + 1, task_boards(memory)), scratch.path
                        )
                        storage.put(scratch.file(below), below)
                record, results = self._solve_tier(scratch, storage, ply, memory, below, steps, int(found.sizes.sum()))
                if recording is not None:
                    recording.result()  # the tier above recorded
                if below is not None and (joined is None or joined[1] != below):
                    _release(scratch, storage, below)
                if joined is not None:
                    _release(scratch, storage, joined[1])
                recording, joined = recorder.submit(_recorded, record, note, variant, ply, scratch), (ply, results)
            if recording is not None:
                recording.result()
        if joined is not None:
            _release(scratch, storage, joined[1])
        self.release(storage)  # the copies of the tiers' result bytes each machine downloaded

    def storage(self, folder: str, name: str) -> Storage:
        """Where this engine's tasks exchange the files of the work in the local ``folder``:
        that folder, or a prefix of its own in ``--storage`` (:func:`.storage.build_storage`)."""
        return build_storage(self.storage_root, folder, name)

    def release(self, storage: Storage) -> None:
        """The copies of ``storage``'s whole files that this machine and the workers' keep, dropped."""
        assert self.client is not None, "DaskEngine used outside its with block"
        if storage.is_url:
            self.client.run(drop_cached)
            drop_cached()

    def run(self, function: Callable[..., T], calls: Calls, name: str, done: Done | None = None) -> list[T]:
        """``function(*call)`` for each call, each a task (its arguments small: names, ranges,
        paths); the results in the calls' order. ``done(index)`` hears of each call as it
        finishes; a task's error is raised here, in the driver."""
        assert self.client is not None, "DaskEngine used outside its with block"
        run = uuid.uuid4().hex[:8]
        futures = {
            self.client.submit(on_worker, function, *call, key=f"ttt-{name}-{index}-{run}", pure=False): index
            for index, call in enumerate(calls)
        }
        results: dict[int, T] = {}
        for future in as_completed(futures):
            results[futures[future]] = future.result()
            if done:
                done(futures[future])
        return [results[index] for index in range(len(calls))]

    def slots(self) -> int:
        assert self.client is not None, "DaskEngine used outside its with block"
        return int(sum(self.client.nthreads().values()))

    def _solve_tier(
        self,
        scratch: Scratch,
        storage: Storage,
        ply: int,
        memory: int,
        below: str | None,
        steps: Steps | None,
        total: int,
    ) -> tuple[Callable[[], None], str]:
        """Solve tier ``ply`` from the result bytes ``below`` in ``storage``, and join its own
        into a file outside its folder, in the scratch folder and in the storage (the next
        tier's tasks read them there, whatever happens to the folder meanwhile); what appends
        its rows into its files and records it (a hard link of that file as its
        ``results.bin``, hashed and synced there: in the background, while the next tier is
        solved), and that file's name."""
        assert self.client is not None
        name, size, chunk = scratch.variant.name, tiers(scratch.variant).size(ply), task_boards(memory)
        part = scratch.part(ply)
        if not storage.is_folder(scratch.path):
            storage.remove(os.path.basename(part))  # what tasks of a stopped run left
        run = f"{os.path.basename(part)}/run-{uuid.uuid4().hex}"
        starts = list(range(0, size, chunk))
        bounds = range_bounds(size, memory, min(len(starts), self.slots()))
        calls = [(storage, name, ply, start, min(size, start + chunk), below, bounds, run) for start in starts]

        def done(index: int) -> None:
            if steps:
                steps("solving", calls[index][4] - calls[index][3], total)

        solved = self.run(solve_partition, calls, f"{name}-{ply}", done)
        ranges = [f"{run}/range-{first:015d}.bin" for first in bounds[:-1]]
        gathers = [
            (storage, [(_partition_file(run, start), group[r], group[r + 1]) for start, (_rows, group) in zip(starts, solved)],
             bounds[r + 1] - bounds[r], ranges[r])
            for r in range(len(ranges))
        ]  # fmt: skip
        self.run(gather_range, gathers, f"{name}-{ply}-ranges")
        joined = f"results-{ply:02d}-{os.path.basename(run)}.bin"
        join_ranges(storage, ranges, scratch.file(joined))
        storage.put(scratch.file(joined), joined)

        def record() -> None:
            sink = TierSink(part)
            for start, (rows, _group) in zip(starts, solved):
                sink.append(_read_partition(storage, _partition_file(run, start), rows))
            results = checksums.of_file(scratch.file(joined))
            sync(scratch.file(joined))
            os.link(scratch.file(joined), os.path.join(part, "results.bin"))
            storage.remove(run)
            sync(part)
            scratch.finish(ply, sink, results)

        return record, joined


def _recorded(record: Callable[[], None], note: Note | None, variant: Variant, ply: int, scratch: Scratch) -> None:
    record()
    if note:
        note(tier_solved(variant, ply, scratch.check_tiers()[ply]["rows"]))


def solve_partition(
    storage: Storage, name: str, ply: int, start: int, stop: int, below: str | None, bounds: list[int], run: str
) -> tuple[int, list[int]]:
    """A task: solve ranks ``start`` to ``stop`` of tier ``ply`` of variant ``name`` from the
    result bytes ``below`` of the tier below, and write into one file of the folder ``run``
    (``START.bin``, whole once it is written) its rows, column after column, then the
    positions' images grouped by the ranges of ranks starting at ``bounds``
    (:func:`.shuffle.write_images`), all in ``storage``; the rows' count, and where each
    group starts."""
    found = tiers(Variant.parse(name))
    below_bytes = storage.mapped(below, np.uint8) if below is not None else None
    solved = solve_chunk(found, ply, start, stop, below_bytes)
    with storage.create(_partition_file(run, start)) as file:
        for column, (_name, dtype) in zip(solved, COLUMNS):
            column.astype(dtype, copy=False).tofile(file)
        return len(solved), write_images(found, ply, solved, bounds, file)


def on_worker(function: Callable[..., T], *call: Any) -> T:
    """A task: ``function(*call)``. A refusal of the worker's file system (a storage this worker
    does not reach, a full disk) comes back to the driver as an :class:`EngineError` naming the
    worker and the file, not as the driver's own error about its own files."""
    try:
        return function(*call)
    except OSError as error:
        if error.filename and error.strerror:
            what = f"cannot use {error.filename!r}: {error.strerror}"
        else:
            what = f"failed: {type(error).__name__}: {error}"
        raise EngineError(f"a task on the Dask worker at {get_worker().address} {what}") from None


def _check_storage(root: str) -> None:
    """EngineError if this process cannot write, read and remove a file in the storage at ``root``."""
    Storage(root).check()


def _release(scratch: Scratch, storage: Storage, name: str) -> None:
    """The result bytes ``name`` are read no more: their copy in the storage is removed (where
    it is not the scratch folder), and a joined file in the scratch folder (its other name is
    the recorded tier's ``results.bin``)."""
    if not storage.is_folder(scratch.path):
        storage.remove(name)
    if name.startswith("results-"):
        os.unlink(scratch.file(name))


def _partition_file(run: str, start: int) -> str:
    return f"{run}/{start:015d}.bin"


def _read_partition(storage: Storage, name: str, rows: int) -> Solved:
    """The rows of a partition file, its columns read in one piece (one request at a URL)."""
    raw = storage.read(name, np.uint8, 0, rows * ROW_BYTES)
    columns, offset = [], 0
    for _name, dtype in COLUMNS:
        columns.append(raw[offset : offset + rows * np.dtype(dtype).itemsize].view(dtype))
        offset += rows * np.dtype(dtype).itemsize
    return Solved(*columns)
