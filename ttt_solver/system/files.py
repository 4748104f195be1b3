"""File helpers every layer that keeps files shares: a lock, a file synced to the disk before
anyone reads it, a JSON record replaced whole, a folder's names synced (the scratch folder,
an engine's storage, the store's database files).

Every helper here makes a file whole before its name is trusted: written, flushed and synced,
then renamed (or, for a new file, closed) so that a reader on any machine sees all of it or
none of it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, BinaryIO

if TYPE_CHECKING:
    import numpy as np


def read_record(path: str) -> dict[str, Any] | None:
    """A part's record (``{"rows": count, "files": {name: entry}}``, more keys allowed), or
    None if the file is missing, unreadable or not such a record."""
    try:
        with open(path) as file:
            record = json.load(file)
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or not isinstance(record.get("files"), dict):
        return None
    rows = record.get("rows")
    if not isinstance(rows, int) or isinstance(rows, bool) or rows < 0:
        return None
    return record


@contextmanager
def locked(path: str, name: str = "lock") -> Iterator[bool]:
    """Hold the scratch folder's lock (waiting for another build that holds it), or the lock
    file ``name`` in the folder ``path``; yields whether it had to wait."""
    waited = False
    while True:
        os.makedirs(path, exist_ok=True)
        handle = os.open(os.path.join(path, name), os.O_RDWR | os.O_CREAT, 0o666)
        try:
            # Imported here, not at the top: fcntl exists on POSIX only.
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


@contextmanager
def synced_file(path: str) -> Iterator[BinaryIO]:
    """A new file at ``path`` to write, on the disk once the block ends (so that another
    process, on any machine, may read it)."""
    with open(path, "wb") as file:
        yield file
        file.flush()
        os.fsync(file.fileno())


def write_array(path: str, array: np.ndarray) -> None:
    """A new file at ``path`` holding ``array``'s bytes (contiguous), on the disk when this
    returns (written by the file, not ``tofile``: a short write is then an OSError with its errno)."""
    with synced_file(path) as file:
        file.write(array.data)


def write_json(path: str, data: dict[str, Any]) -> None:
    """``data`` as the JSON file at ``path``, replaced whole (synced, then renamed)."""
    temporary = path + ".new"
    with open(temporary, "w") as file:
        json.dump(data, file)
        file.flush()
        os.fsync(file.fileno())
    os.replace(temporary, path)


def sync(path: str, required: bool = False) -> None:
    """Flush a file or folder to the disk (a folder: the names in it). Unless ``required``, a
    path that cannot be opened, or a folder its file system cannot sync, is let be."""
    try:
        handle = os.open(path, os.O_RDONLY)
    except OSError:
        if required:
            raise
        return
    try:
        os.fsync(handle)
    except OSError:  # some file systems cannot sync a folder
        if required:
            raise
    finally:
        os.close(handle)


def remove_file(path: str) -> None:
    """Remove the file at ``path``, if it is there."""
    try:
        os.remove(path)
    except FileNotFoundError:
        pass
