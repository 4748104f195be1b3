"""The scratch folder of a build: each solved tier in files, so that a build that is stopped
or killed resumes from the last finished tier when the same command runs again.

The folder sits beside the target (``.NAME.solving/``) and holds::

    manifest.json        what is being solved (variant, versions): another build's folder is never reused
    lock                 held by the running build (a second build of the same target waits)
    tier-PP/             a finished tier: one raw little-endian file per column of its canonical
                         positions (code order) and rows.json; results.bin, the result byte of
                         every board of the tier by rank, while the tier above it needs it
    tier-PP.part/        a tier being solved: removed and solved again after a kill
    merged/              every tier's positions merged into code order, one file per column
    database.sqlite      the database being written (see :mod:`ttt_solver.store.writer`)

Nothing in it is a database until the builder renames ``database.sqlite`` over the target, and
the folder is removed once the build is done.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from ..game.values import NO_POSITION
from ..game.variant import Variant
from .passes import COLUMNS, Solved

FORMAT = 1


class Scratch:
    """One build's scratch folder, opened (and locked) by :func:`open_scratch`."""

    def __init__(self, path: str, variant: Variant, identity: dict[str, Any]) -> None:
        self.path = path
        self.variant = variant
        self.identity = identity

    # -- tiers ----------------------------------------------------------------------------
    def finished(self, ply: int) -> bool:
        return os.path.exists(os.path.join(self._tier(ply), "rows.json"))

    def rows(self, ply: int) -> Solved:
        """The canonical positions of a finished tier, memory-mapped."""
        folder = self._tier(ply)
        with open(os.path.join(folder, "rows.json")) as file:
            count = int(json.load(file)["rows"])
        return Solved(*(_column(os.path.join(folder, f"{name}.bin"), dtype, count) for name, dtype in COLUMNS))

    def results(self, ply: int) -> np.ndarray:
        """The result bytes of a finished tier (read whole: the passes gather from it at random)."""
        return np.fromfile(os.path.join(self._tier(ply), "results.bin"), dtype=np.uint8)

    @contextmanager
    def tier(self, ply: int, size: int) -> Iterator[tuple[np.ndarray, TierSink]]:
        """A tier being solved: its result bytes (``size`` boards and one more, all
        :data:`NO_POSITION`) and a sink for its positions, made a finished tier on exit."""
        part = self._tier(ply) + ".part"
        shutil.rmtree(part, ignore_errors=True)
        os.makedirs(part)
        results = np.full(size + 1, NO_POSITION, dtype=np.uint8)  # in memory: the passes scatter into it at random
        sink = TierSink(part)
        try:
            yield results, sink
        finally:
            sink.close()
        with open(os.path.join(part, "results.bin"), "wb") as file:
            results.tofile(file)
            file.flush()
            os.fsync(file.fileno())
        _write_json(os.path.join(part, "rows.json"), {"rows": sink.rows})
        os.replace(part, self._tier(ply))
        _sync(self.path)
        if ply + 1 <= self.variant.cells:  # the tier above is no longer needed to go on
            _remove(os.path.join(self._tier(ply + 1), "results.bin"))

    def _tier(self, ply: int) -> str:
        return os.path.join(self.path, f"tier-{ply:02d}")

    def file(self, name: str) -> str:
        return os.path.join(self.path, name)

    def remove(self) -> None:
        """The manifest first, synced: a removal stopped half-way leaves a folder that no build
        resumes from (the next one clears it), never a manifest over missing tiers."""
        _remove(os.path.join(self.path, "manifest.json"))
        _sync(self.path)
        shutil.rmtree(self.path, ignore_errors=True)


class TierSink:
    """Appends chunks of solved positions to a tier's column files."""

    def __init__(self, folder: str) -> None:
        self.rows = 0
        self._files = [open(os.path.join(folder, f"{name}.bin"), "wb") for name, _dtype in COLUMNS]  # noqa: SIM115

    def append(self, solved: Solved) -> None:
        for file, column, (_name, dtype) in zip(self._files, solved, COLUMNS):
            file.write(column.astype(dtype, copy=False).tobytes())
        self.rows += len(solved)

    def close(self) -> None:
        for file in self._files:
            if not file.closed:
                file.flush()
                os.fsync(file.fileno())
                file.close()


def read_slice(column: np.ndarray, start: int, stop: int) -> np.ndarray:
    """``column[start:stop]`` as an array in memory; a memory-mapped column's slice is read
    from its file, so that its pages do not stay mapped (counted against the process) once used."""
    if isinstance(column, np.memmap) and column.filename is not None:
        offset = column.offset + start * column.itemsize
        return np.fromfile(column.filename, dtype=column.dtype, count=stop - start, offset=offset)
    return np.asarray(column[start:stop])


def _column(path: str, dtype: str, count: int) -> np.ndarray:
    if count == 0:
        return np.zeros(0, dtype=dtype)
    return np.memmap(path, dtype=dtype, mode="r", shape=(count,))


def scratch_path(target_file: str) -> str:
    """The scratch folder of a build of ``target_file``."""
    folder, name = os.path.split(os.path.abspath(target_file))
    return os.path.join(folder, f".{name}.solving")


def open_scratch(path: str, variant: Variant, identity: dict[str, Any]) -> Scratch:
    """The scratch folder at ``path`` for solving ``variant``: the one a stopped build left, if
    it was solving the same thing (``identity``: the variant, the solver's version, ...), else
    a new one. The caller holds :func:`locked` around its use."""
    identity = {"format": FORMAT, "variant": variant.name, **identity}
    manifest = os.path.join(path, "manifest.json")
    try:
        with open(manifest) as file:
            found = json.load(file)
    except (OSError, ValueError):
        found = None
    if found != identity:
        for name in os.listdir(path) if os.path.isdir(path) else ():
            if name != "lock":
                target = os.path.join(path, name)
                shutil.rmtree(target) if os.path.isdir(target) else os.remove(target)
        os.makedirs(path, exist_ok=True)
        _write_json(manifest, identity)
    return Scratch(path, variant, identity)


@contextmanager
def locked(path: str) -> Iterator[bool]:
    """Hold the scratch folder's lock (waiting for another build that holds it); yields
    whether it had to wait."""
    waited = False
    while True:
        os.makedirs(path, exist_ok=True)
        handle = os.open(os.path.join(path, "lock"), os.O_RDWR | os.O_CREAT, 0o666)
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: no lock
            break
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            waited = True
            fcntl.flock(handle, fcntl.LOCK_EX)
        if os.fstat(handle).st_nlink:
            break
        os.close(handle)  # the build we waited for finished and removed the folder: take a new one
    try:
        yield waited
    finally:
        os.close(handle)


def _write_json(path: str, data: dict[str, Any]) -> None:
    temporary = path + ".new"
    with open(temporary, "w") as file:
        json.dump(data, file)
        file.flush()
        os.fsync(file.fileno())
    os.replace(temporary, path)


def _sync(path: str) -> None:
    """Flush a file or folder to the disk (a folder: the names in it)."""
    try:
        handle = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:  # some file systems cannot sync a folder
        pass
    finally:
        os.close(handle)


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except FileNotFoundError:
        pass
