"""What the test processes of a run (xdist's workers) and later runs share: files made once
under a lock, kept while their bytes are the ones written, keyed by the code they came from."""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy

import ttt_solver

UNUSED_KEYS_KEPT = 24 * 3600  # seconds


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (made if missing): one process at a time."""
    with path.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def file_digest(path: Path) -> str:
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def made_once(folder: Path, name: str, make: Callable[[Path], None]) -> Path:
    """The file ``folder/name``, made by ``make(path)`` unless a whole copy is there: one made
    before by any process, whose bytes are still those it was made with."""
    path, stamp = folder / name, folder / f"{name}.sha256"
    with locked(folder / f"{name}.lock"):
        if not (path.exists() and stamp.exists() and stamp.read_text() == file_digest(path)):
            stamp.unlink(missing_ok=True)
            path.unlink(missing_ok=True)
            make(path)
            stamp.write_text(file_digest(path))
    return path


def folder_made_once(parent: Path, name: str, make: Callable[[Path], None]) -> Path:
    """The folder ``parent/name``, filled by ``make(folder)`` in the first process that asks (the
    others wait for it, then share it)."""
    folder = parent / name
    with locked(parent / f"{name}.lock"):
        if not (parent / f"{name}.made").exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            make(folder)
            (parent / f"{name}.made").touch()
    return folder


def code_key() -> str:
    """What a database's bytes depend on: the package's code, numpy's and SQLite's versions."""
    digest = hashlib.sha256(f"{numpy.__version__} {sqlite3.sqlite_version}".encode())
    package = Path(ttt_solver.__file__).resolve().parent
    for path in sorted(package.rglob("*")):
        if path.suffix in (".py", ".sql") and "__pycache__" not in path.parts:
            digest.update(f"\0{path.relative_to(package).as_posix()}\0".encode() + path.read_bytes())
    return digest.hexdigest()[:16]


def keyed_folder(root: Path, key: str) -> Path:
    """``root/key``, made and marked as used now; the folders of other keys unused for a day go."""
    folder = root / key
    folder.mkdir(parents=True, exist_ok=True)
    os.utime(folder)
    for other in root.iterdir():
        if other != folder and other.is_dir() and time.time() - other.stat().st_mtime > UNUSED_KEYS_KEPT:
            shutil.rmtree(other, ignore_errors=True)
    return folder
