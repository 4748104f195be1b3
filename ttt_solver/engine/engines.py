"""What an engine is, and the engine of one process.

An engine runs tasks: functions of small arguments (names, ranges, paths) that read and write
their files in the engine's storage (:mod:`.storage`). The tier pipeline (:mod:`.pipeline`),
the shards of a database and the whole-table proof hand it their tasks and never ask which
engine it is: :class:`InProcess` runs them here, one after the other, its storage the work's
own folder; :class:`ttt_solver.engine.engine_dask.DaskEngine` runs them on a Dask cluster's
workers, as Dask's synchronous scheduler runs the very graph its distributed one runs.
Where a caller needs to know more (the build's report, the lines a command says, whether this
machine must hold the build), the engine tells it (:class:`Engine`'s ``fields``, ``lines``,
``budget_note``, :meth:`Engine.check_alone`), so nothing outside this package asks which it has.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, Self, TypeVar

from ..game.variant import Variant
from ..solver import smallest_memory
from .storage import Storage

T = TypeVar("T")
Done = Callable[[int], None]  # the index of a task that finished
Calls = Sequence[tuple[Any, ...]]  # each task's arguments (small: names, ranges, paths)
# What ran a build's tasks, for its report: "dask" and its workers, threads and dashboard; None: this process.
ALONE: dict[str, Any] = {"engine": None, "workers": 1, "threads": 1, "dashboard": None}


class Engine(Protocol):
    """What runs the tasks of a build or a verify: this process (:class:`InProcess`) or a
    cluster (:class:`ttt_solver.engine.engine_dask.DaskEngine`)."""

    # Whether the pipeline records a tier in a thread of the driver while the next tier's tasks
    # run elsewhere (in this process it records in turn: a thread would only add its own heap).
    record_aside: bool

    def __enter__(self) -> Self:
        """Start the engine (a local cluster, or a client of one); nothing for this process."""
        ...  # fmt: skip

    def __exit__(self, *_exc: object) -> None:
        """Stop what :meth:`__enter__` started."""
        ...  # fmt: skip

    def run(self, function: Callable[..., T], calls: Calls, name: str, done: Done | None = None) -> list[T]:
        """``function(*call)`` for each call as the engine's tasks; the results in the calls'
        order. ``done(index)`` hears of each call as it finishes."""
        ...  # fmt: skip

    def slots(self) -> int:
        """How many tasks the engine runs at once (its workers' threads)."""
        ...  # fmt: skip

    def storage(self, folder: str, name: str) -> Storage:
        """Where the tasks exchange the files of the work whose local folder is ``folder`` (a
        build's scratch folder, a verify's temporary folder) and which ``name`` names (the
        variant's name) (:mod:`.storage`)."""
        ...  # fmt: skip

    def release(self, storage: Storage) -> None:
        """The tasks read no more whole files from ``storage``: what the workers' machines keep
        of them is dropped (:func:`.storage.drop_cached`)."""
        ...  # fmt: skip

    def smallest_memory(self, variant: Variant) -> int:
        """The smallest budget (``--memory``) with which this engine's tasks solve ``variant``."""
        ...  # fmt: skip

    def check_alone(self, check: Callable[[], None]) -> None:
        """``check()``, the refusal of a build that this machine cannot hold alone, where the
        engine solves on this machine alone; a cluster's workers hold the tiers instead."""
        ...  # fmt: skip

    @property
    def fields(self) -> dict[str, Any]:
        """What ran the tasks, for a build's report: :data:`ALONE`'s keys."""
        ...  # fmt: skip

    @property
    def lines(self) -> list[str]:
        """What a command says of the engine before it starts (none for this process)."""
        ...  # fmt: skip

    @property
    def budget_note(self) -> str:
        """Said after the memory budget: whose it is ('' for this process's)."""
        ...  # fmt: skip

    @property
    def processes(self) -> int:
        """The processes that solve (each starts and builds the tier tables): this one, and a
        cluster's workers."""
        ...  # fmt: skip


class InProcess:
    """The engine of one process: one slot, each task run here in the calls' order, the
    storage the work's own folder. A context manager like every engine (nothing to start)."""

    record_aside = False

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_exc: object) -> None:
        return None

    def run(self, function: Callable[..., T], calls: Calls, name: str, done: Done | None = None) -> list[T]:
        results = []
        for index, call in enumerate(calls):
            results.append(function(*call))
            if done:
                done(index)
        return results

    def slots(self) -> int:
        return 1

    def storage(self, folder: str, name: str) -> Storage:
        return Storage(folder)

    def release(self, storage: Storage) -> None:
        return None  # the folder's files are this process's own: nothing is kept elsewhere

    def smallest_memory(self, variant: Variant) -> int:
        """One process maps the tier below's result bytes and gathers a range of the tier's own
        while it solves: the two widest tiers' bytes and the smallest chunk."""
        return smallest_memory(variant)

    def check_alone(self, check: Callable[[], None]) -> None:
        check()

    @property
    def fields(self) -> dict[str, Any]:
        return dict(ALONE)

    @property
    def lines(self) -> list[str]:
        return []

    @property
    def processes(self) -> int:
        return 1

    @property
    def budget_note(self) -> str:
        return ""
