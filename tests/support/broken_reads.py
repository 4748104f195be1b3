"""A worker that cannot read the storage: :func:`start_on_worker` makes every read of a file
in a :class:`~ttt_solver.engine.storage.Storage` raise FileNotFoundError in this process (as
on a machine that does not mount the shared folder), :func:`stop_on_worker` puts the reads
back; :func:`broken_reads` does both on every worker of a cluster (``client.run``) around a
block. The driver's own reads are left as they are."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ttt_solver.engine.storage import Storage

_REAL = {"read": Storage.read, "mapped": Storage.mapped}


def _missing(self: Storage, name: str, *_args: Any, **_kwargs: Any) -> Any:
    raise FileNotFoundError(2, "No such file or directory", self.path(name))


def start_on_worker() -> None:
    for method in _REAL:
        setattr(Storage, method, _missing)


def stop_on_worker() -> None:
    for method, real in _REAL.items():
        setattr(Storage, method, real)


@contextmanager
def broken_reads(client: Any) -> Iterator[None]:
    client.run(start_on_worker)
    try:
        yield
    finally:
        client.run(stop_on_worker)
