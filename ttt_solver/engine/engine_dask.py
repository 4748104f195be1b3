"""The Dask engine: the tasks of the tier pipeline (:mod:`ttt_solver.engine.pipeline`), of the
shards and of the whole-table proof run on a Dask cluster's worker processes; the driver (this
process) only hands them out and records what they made.

A task's arguments are small (names, ranges, paths); its files are in the work's storage
(:mod:`ttt_solver.engine.storage`: the work's own folder, which every worker reaches by the
same path, by default; or ``--storage``, another shared folder or an fsspec URL). Every file
there has one writer and is read only once its writer has made it whole (closed, or uploaded:
:meth:`.storage.Storage.create`), so that a file system shared by several machines is safe too.

``--storage`` is checked before anything runs: the driver, then every worker, writes, reads
back and removes a file there (:meth:`.storage.Storage.check`).

This module imports Dask: it is imported only when a build asks for it (``--engine dask``).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any, Self, TypeVar

import dask
from dask.distributed import Client, LocalCluster, as_completed, get_worker

from ..errors import EngineError
from ..game.variant import Variant
from ..solver import smallest_task_memory
from ..system.engine_places import check_places
from .cluster_faults import CLIENT, WORKER_LOGGING, closed, quiet_loggers, result_of, started
from .engines import Calls, Done
from .scheduler_probe import check_scheduler
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
SPAWNED = {**MALLOC, **WORKER_LOGGING}  # the variables each worker process starts with


def local_cluster(workers: int) -> LocalCluster:
    """The local cluster a build or a verify without ``--address`` starts: ``workers`` processes
    of one thread each, with the allocator settings of :data:`MALLOC` and the event loops'
    checks of :data:`TICK`; started again where a worker dies while it starts (:func:`.cluster_faults.started`)."""
    environment = {f"distributed.nanny.pre-spawn-environ.{k}": v for k, v in SPAWNED.items()}
    saved = _environment()
    try:
        with dask.config.set({**environment, **TICK}):
            return started(
                lambda: LocalCluster(
                    n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=LOCAL_PORT
                ),
                workers,
            )
    finally:
        _restore(saved)


def _environment() -> dict[str, str | None]:
    """This process's values of the variables a nanny sets for its workers (:data:`SPAWNED`)."""
    return {key: os.environ.get(key) for key in SPAWNED}


def _restore(saved: dict[str, str | None]) -> None:
    """Put back what :func:`_environment` saved: a nanny sets its workers' variables in this
    process's own environment as it starts one, where every later child of this process (and a
    Dask cluster at --address a test starts) would inherit the workers' quiet logging."""
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


class DaskEngine:
    """Solve on a Dask cluster: the one at ``address``, or a local cluster of ``workers``
    processes (one thread each) that starts with :meth:`__enter__` and stops with
    :meth:`__exit__`. ``client``: a client already connected (kept open on exit)."""

    record_aside = True

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
        self._quiet = ExitStack()  # the client's logger quiet while the engine is open (.cluster_faults.CLIENT)
        self._quiet.callback(_restore, _environment())  # a worker started again sets them again

    def __enter__(self) -> Self:
        check_places(self.address, self.storage_root)
        if self.storage_root is not None:
            _check_storage(self.storage_root)  # here first: no cluster starts for a storage out of reach
        if self.client is None:
            if self.address is None:
                cluster = local_cluster(self.workers or 1)
                self._owned.append(cluster)
                self.client = Client(cluster)
            else:
                check_scheduler(self.address)  # within seconds: the client may wait for ever
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
                self.client.run(_check_storage, self.storage_root)  # then on every worker
            except BaseException:
                self.__exit__()
                raise
        self._quiet.enter_context(quiet_loggers(CLIENT))
        return self

    def __exit__(self, *_exc: object) -> None:
        closed(*(owned.close for owned in self._owned))
        self._owned.clear()
        self._quiet.close()

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
            results[futures[future]] = result_of(future, self.address)
            if done:
                done(futures[future])
        return [results[index] for index in range(len(calls))]

    def slots(self) -> int:
        assert self.client is not None, "DaskEngine used outside its with block"
        return int(sum(self.client.nthreads().values()))

    @property
    def fields(self) -> dict[str, Any]:
        """What the tasks run on, for a build's report: the workers, their threads and the
        address of the dashboard (Dask's ``dashboard_link``; its pages need bokeh)."""
        assert self.client is not None, "DaskEngine used outside its with block"
        threads = self.client.nthreads()
        workers, dashboard = len(threads), self.client.dashboard_link
        return {"engine": "dask", "workers": workers, "threads": int(sum(threads.values())), "dashboard": dashboard}

    @property
    def lines(self) -> list[str]:
        """That Dask runs the tasks: on how many workers and threads, and where its dashboard is."""
        ran = self.fields
        return [f"on Dask, {ran['workers']} workers, {ran['threads']} threads; dashboard {ran['dashboard']}"]

    @property
    def budget_note(self) -> str:
        return " (each worker's)"

    @property
    def processes(self) -> int:
        """This process (the driver builds the tier tables too) and the workers."""
        return 1 + int(self.fields["workers"])

    def smallest_memory(self, variant: Variant) -> int:
        """A worker maps the tiers' result bytes from their files: its least is the smallest chunk."""
        return smallest_task_memory()

    def check_alone(self, check: Callable[[], None]) -> None:
        return None  # the workers hold the tiers, each within its budget


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
