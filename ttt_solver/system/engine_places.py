"""What an engine's options may name, checked before anything starts: the scheduler it connects
to (``--address``) and the storage its workers share (``--storage``).

Only the standard library: the command line checks both without importing Dask or fsspec, and
the engine checks them again for a caller of the library (:class:`ttt_solver.engine.engine_dask.DaskEngine`).
"""

from __future__ import annotations

from ..errors import EngineError, shown

# What the engine connects over: a tls:// scheduler needs certificates the engine is not given,
# ucx:// a package and network cards of its own; other schemes are not a scheduler's.
SCHEMES = ("tcp",)
SCHEDULER_PORT = 8786  # a Dask scheduler's usual port (its dashboard's is 8787)
# fsspec file systems whose files live in one process: a worker, another process, never sees them.
PER_PROCESS = ("memory",)


def address_problem(address: str) -> str | None:
    """Why the engine cannot connect to a scheduler at ``address`` (``[scheme://]host:port``),
    in words; None if it can try."""
    scheme, separator, _rest = address.partition("://")
    if separator and scheme.lower() not in SCHEMES:
        return f"the engine connects to a scheduler over tcp:// only (tcp://HOST:PORT or HOST:PORT), not {scheme}://"
    return None


def storage_problem(root: str) -> str | None:
    """Why ``root`` cannot be the storage the driver and the workers share, in words; None if
    it may be (whether it can be written is checked on each of them: :meth:`ttt_solver.engine.storage.Storage.check`)."""
    scheme, separator, _rest = root.partition("://")
    if separator and scheme.lower() in PER_PROCESS:
        return (
            f"a {scheme}:// file system lives inside one process, so the workers cannot share it: give a folder"
            " every worker reaches by the same path, or a URL such as s3://bucket/prefix"
        )
    return None


def check_places(address: str | None, storage: str | None) -> None:
    """EngineError, in one line, if the engine cannot use ``address`` or ``storage`` at all."""
    if address is not None and (why := address_problem(address)) is not None:
        raise EngineError(f"cannot use the Dask scheduler at {shown(address)}: {why}")
    if storage is not None and (why := storage_problem(storage)) is not None:
        raise EngineError(f"cannot use the storage at {shown(storage)}: {why}")
