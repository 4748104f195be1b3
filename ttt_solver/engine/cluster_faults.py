"""A Dask cluster's faults at its start and at its end, each one line or nothing on the terminal.

- A worker process can die while the local cluster starts (killed, out of memory, a machine
  under load): Dask closes what it started and raises ``RuntimeError: Nanny failed to start.``.
  The start is tried again, :data:`STARTS` times in all, then said in one :class:`EngineError`
  line. Meanwhile distributed's loggers say only what is critical: what they would report (the
  nanny's traceback) is what the retry, or that line, takes care of.
- Closing the client and the cluster, distributed's loggers report connections closed under them
  (``CommClosedError``, with its traceback), whether the work succeeded or failed: once the work
  is done or given up, that is no news, so they say only what is critical then too.

- A scheduler at ``--address`` that goes away: the client logs each failed attempt to reach it
  again with a traceback (``CommClosedError``), even where the work was done, and cancels the
  tasks it waits for (``FutureCancelledError``, a traceback of the command). While the engine
  is open, its ``distributed.client`` logger says only what is critical (:data:`CLIENT`); a
  cancelled task is one EngineError line (:func:`result_of`).
- A task's error comes back to the driver, which says it in one line; a local cluster's worker
  process (this command's child, printing on its terminal) would also log it with its traceback
  ("Compute Failed"), so its ``distributed.worker`` logger says only what is critical
  (:data:`WORKER_LOGGING`, Dask's ``logging`` setting in the worker's environment); its memory
  warnings still show. A cluster at ``--address`` logs where its operator reads.

The driver's go through :mod:`logging`'s public API (a logger's level, set back afterwards).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from distributed import CancelledError, Future

from ..errors import EngineError

STARTS = 3  # tries to start a local cluster
# The client's loggers, in the driver: its own, and its batched stream to the scheduler (which
# logs a lost scheduler's CommClosedError with its traceback at INFO).
CLIENT = ("distributed.client", "distributed.batched")
LOGGERS = ("distributed", "tornado", "asyncio")  # where Dask's comms and event loops report
T = TypeVar("T")
# Dask reads its "logging" setting from DASK_LOGGING as a worker process starts.
WORKER_LOGGING = {
    "DASK_LOGGING": json.dumps({"distributed.worker": "critical", "distributed.worker.memory": "warning"})
}


@contextmanager
def quiet_loggers(names: tuple[str, ...] = LOGGERS) -> Iterator[None]:
    """The loggers ``names`` (distributed's, tornado's and asyncio's) say only what is critical in the block."""
    loggers = [logging.getLogger(name) for name in names]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)


def started(start: Callable[[], T], workers: int) -> T:
    """``start()`` (a local cluster of ``workers`` processes), tried again where a worker died
    while it started; EngineError after :data:`STARTS` tries."""
    for _ in range(STARTS):
        try:
            with quiet_loggers():
                return start()
        except RuntimeError as error:  # "Nanny failed to start.": Dask closed what it had started
            failed = error
    raise EngineError(
        f"the local Dask cluster of {workers} worker process{'es' if workers > 1 else ''} did not start, {STARTS}"
        f" tries ({failed}: a worker process died while starting): check this machine's free memory and"
        " processes, then run the same command again (a stopped build resumes from its scratch folder)"
    )


def result_of(future: Future[T], address: str | None) -> T:
    """A task's result; EngineError, in one line, where Dask cancelled it because the client lost
    its scheduler (at ``address``: None, the local cluster's)."""
    try:
        return future.result()
    except CancelledError as error:
        why = (str(error).splitlines() or ["cancelled"])[0]
        where = f" at {address!r}" if address else ""
        raise EngineError(
            f"the Dask scheduler{where} was lost while its tasks ran ({why}): start it again, then run the same command again"
        ) from None


def closed(*owned: Callable[[], object]) -> None:
    """Call each ``close`` of ``owned`` in turn (the client before its cluster), distributed's
    loggers quiet meanwhile."""
    with quiet_loggers():
        for close in owned:
            close()
