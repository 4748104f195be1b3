"""Who writes which file: a spy that records every file under a folder opened for writing in
this process, and by whom (the driver, or the Dask task running on a worker), and every file
synced there.

It wraps ``builtins.open`` (which numpy's ``memmap`` and the build's own writes go through) and
``os.open`` and ``os.fsync``. :func:`start_on_worker` and :func:`stop_on_worker` install and
remove it on each worker of a cluster (``client.run``), naming each write by the worker's
current task; :func:`spying` does both, on the driver and on every worker, around a block.
"""

from __future__ import annotations

import builtins
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

WRITE_MODES = set("wax+")  # any of these in a mode given to open() writes


class WriteSpy:
    """Records ``opened`` (path, mode, writer) and ``synced`` (path, writer) under ``folder``;
    ``writer()`` names who is writing. Installed by :meth:`start`, removed by :meth:`stop`."""

    def __init__(self, folder: str, writer: Callable[[], str]) -> None:
        self.folder = os.path.realpath(folder) + os.sep
        self.writer = writer
        self.opened: list[tuple[str, str, str]] = []
        self.synced: list[tuple[str, str]] = []
        self._real = (builtins.open, os.open, os.fsync)

    def _note(self, file: Any, mode: str) -> None:
        if isinstance(file, (str, os.PathLike)):
            path = os.path.realpath(os.fspath(file))
            if path.startswith(self.folder):
                self.opened.append((path, mode, self.writer()))

    def start(self) -> None:
        real_open, real_os_open, real_fsync = self._real

        def spy_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
            if WRITE_MODES & set(mode):
                self._note(file, mode)
            return real_open(file, mode, *args, **kwargs)

        def spy_os_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
            if flags & (os.O_WRONLY | os.O_RDWR):
                self._note(path, f"os.open flags {flags:#o}")
            return real_os_open(path, flags, *args, **kwargs)

        def spy_fsync(fd: Any) -> None:
            number = fd if isinstance(fd, int) else fd.fileno()
            path = os.path.realpath(f"/proc/self/fd/{number}")
            if path.startswith(self.folder):
                self.synced.append((path, self.writer()))
            real_fsync(fd)

        builtins.open, os.open, os.fsync = spy_open, spy_os_open, spy_fsync  # type: ignore[assignment]

    def stop(self) -> None:
        builtins.open, os.open, os.fsync = self._real  # type: ignore[assignment]


_on_worker: list[WriteSpy] = []


def _current_task() -> str:
    from distributed import get_worker  # the optional extra: only on a Dask worker

    return str(get_worker().get_current_task())


def start_on_worker(folder: str) -> None:
    """Install a spy on this worker (``client.run(start_on_worker, folder)``)."""
    spy = WriteSpy(folder, _current_task)
    spy.start()
    _on_worker.append(spy)


def stop_on_worker() -> tuple[list[tuple[str, str, str]], list[tuple[str, str]]]:
    """Remove this worker's spy; what it recorded (``opened``, ``synced``)."""
    spy = _on_worker.pop()
    spy.stop()
    return spy.opened, spy.synced


@dataclass
class Writes:
    """What the driver and the workers wrote under a folder."""

    opened: list[tuple[str, str, str]] = field(default_factory=list)  # (path, mode, writer)
    synced: set[tuple[str, str]] = field(default_factory=set)  # (path, writer)

    def shared(self) -> dict[str, set[str]]:
        """The files opened for writing by more than one writer, with their writers."""
        writers: dict[str, set[str]] = {}
        for path, _mode, writer in self.opened:
            writers.setdefault(path, set()).add(writer)
        return {path: found for path, found in writers.items() if len(found) > 1}

    def by_tasks(self) -> set[tuple[str, str]]:
        """(path, task) of each file a task opened for writing."""
        return {(path, writer) for path, _mode, writer in self.opened if writer != "driver"}


@contextmanager
def spying(client: Any, folder: str) -> Iterator[Writes]:
    """Record what the driver (this process) and each worker of ``client``'s cluster write
    under ``folder`` during the block."""
    driver = WriteSpy(folder, lambda: "driver")
    writes = Writes()
    client.run(start_on_worker, folder)
    driver.start()
    try:
        yield writes
    finally:
        driver.stop()
        writes.opened.extend(driver.opened)
        writes.synced.update(driver.synced)
        for opened, synced in client.run(stop_on_worker).values():
            writes.opened.extend(opened)
            writes.synced.update(synced)
