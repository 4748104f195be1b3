"""Where a distributed engine's tasks and its driver exchange files (``--storage``): a folder
that every process reaches by the same path (one machine, or a folder a shared file system
mounts on every machine), or an fsspec URL such as ``s3://bucket/prefix`` (where fsspec's
package for it is installed: s3fs for ``s3://``, the ``[s3]`` extra).

Files are named by paths relative to the storage's root (``tier-07.part/run-.../0.bin``), and
each has one writer, which makes it whole before anyone reads it:

- In a folder, a file is written and read where it lies (closed, not synced: see
  :meth:`Storage.create`): :meth:`Storage.working` gives its path, :meth:`Storage.mapped`
  memory-maps it, :meth:`Storage.pieces` reads it through a buffer the caller reuses.
- At a URL, a file is written into a local temporary file and uploaded whole when its writer
  is done with it. A reader downloads the bytes it needs: a byte range into memory
  (:meth:`Storage.read`), or into a local file it memory-maps (:meth:`Storage.mapped`). A file
  every task of a tier reads whole (the tier below's result bytes) is downloaded once per
  machine, into a cache folder its processes share, and kept mapped while tasks ask for it.

fsspec is imported only for a URL: a folder needs nothing but the standard library and numpy.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import tempfile
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, BinaryIO

import numpy as np

from ..errors import EngineError, install_hint
from ..system.files import locked, synced_file
from ..system.os_errors import described

_BLOCK = 1 << 24  # bytes copied at a time
_kept: dict[str, np.ndarray] = {}  # the whole file this process maps, by what it is known by (Storage._cached)
_kept_lock = threading.Lock()


class Storage:
    """The storage at ``root`` (a folder or an fsspec URL). ``removable``: :meth:`clear` may
    remove the root with everything in it (a build's own prefix in the storage ``--storage``
    names, not the scratch folder, which the build removes itself)."""

    def __init__(self, root: str, removable: bool = False) -> None:
        self.root = root.rstrip("/") or "/"
        self.removable = removable
        self.is_url = "://" in root
        self._fs: Any = None
        self._folders = False  # whether the URL's file system has folders to make (file://)
        if self.is_url:
            try:
                import fsspec  # the engine's extra brings it; a URL's own package (s3fs) is one more
            except ImportError:
                raise EngineError(f"storage at a URL ({root!r}) needs fsspec: pip install fsspec") from None
            try:
                self._fs = fsspec.core.url_to_fs(self.root)[0]
                protocols = self._fs.protocol
                self._folders = "file" in ((protocols,) if isinstance(protocols, str) else protocols)
            except (ImportError, ValueError) as error:  # the protocol's package missing, or not a URL fsspec reads
                extra = f" ({install_hint('s3', 's3fs')})" if root.startswith("s3://") else ""
                raise EngineError(f"cannot use the storage at {root!r}{extra}: {error}") from None
            except (
                OSError
            ) as error:  # a file system that connects as it opens (ftp://, sftp://): its server out of reach
                raise EngineError(f"cannot reach the storage at {root!r}: {described(error)}") from None

    def __reduce__(self) -> tuple[Any, ...]:  # a task gets the root, and opens its own file system
        return Storage, (self.root, self.removable)

    def is_folder(self, folder: str) -> bool:
        """Whether the storage is the local ``folder`` itself (its files need no copy there)."""
        return not self.is_url and os.path.abspath(self.root) == os.path.abspath(folder)

    def path(self, name: str) -> str:
        """The path or URL of the file ``name``."""
        return f"{self.root}/{name}" if self.is_url else os.path.join(self.root, name)

    # -- writing ------------------------------------------------------------------------------
    @contextmanager
    def working(self, name: str, fetch: bool = False) -> Iterator[str]:
        """A local path at which to make the file or folder ``name``: in a folder, its own path
        (its parent made); at a URL, a temporary path, uploaded (a folder with its files) when
        the block ends without an error, then removed. ``fetch``: start from what the storage
        holds at ``name`` (a file), if anything."""
        if not self.is_url:
            path = self.path(name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            yield path
            return
        with tempfile.TemporaryDirectory(prefix="ttt-storage-") as local:
            path = os.path.join(local, os.path.basename(name))
            if fetch and self._fs.exists(self.path(name)):
                self._fs.get_file(self.path(name), path)
            yield path
            if os.path.isdir(path):
                self._make_parent(name)
                self._fs.put(path + "/", self.path(name), recursive=True)
            else:
                self.put(path, name)

    @contextmanager
    def create(self, name: str) -> Iterator[BinaryIO]:
        """A new file ``name`` to write, whole in the storage once the block ends: closed (in
        a folder), or uploaded (at a URL). A file here is passed from a task to another or to
        the driver, never kept: it needs no sync to the disk, which only a crash would show,
        and a crashed run's files are not read again. Closing it is what makes it whole for a
        process on another machine: an NFS client sends every write to the server on close
        (close-to-open consistency), and a reader opens the file only after that."""
        with self.working(name) as path, open(path, "wb") as file:
            yield file

    def put(self, local: str, name: str) -> None:
        """Copy the local file ``local`` to ``name`` (nothing to do if it is already there)."""
        if self.is_url:
            self._make_parent(name)
            self._fs.put_file(local, self.path(name))
        elif os.path.abspath(local) != os.path.abspath(self.path(name)):
            with self.create(name) as out, open(local, "rb") as file:
                shutil.copyfileobj(file, out, _BLOCK)

    def put_all(self, files: Sequence[tuple[str, str]]) -> None:
        """:meth:`put` of each (local file, name) pair; at a URL side by side, in one call."""
        if not self.is_url:
            for local, name in files:
                self.put(local, name)
        elif files:
            for _local, name in files:
                self._make_parent(name)
            self._fs.put([local for local, _name in files], [self.path(name) for _local, name in files])

    def _make_parent(self, name: str) -> None:
        """At a URL with folders (``file://``), the folder of ``name`` made; an object store has
        none (and s3fs would make a bucket of a mistyped name)."""
        if self._folders:
            self._fs.makedirs(self.path(name).rsplit("/", 1)[0], exist_ok=True)

    def get(self, name: str, local: str) -> None:
        """Copy the file ``name`` to the local path ``local``, synced (nothing to do if it is there)."""
        if not self.is_url and os.path.abspath(local) == os.path.abspath(self.path(name)):
            return
        os.makedirs(os.path.dirname(os.path.abspath(local)), exist_ok=True)
        with self.open(name) as file, synced_file(local) as out:
            shutil.copyfileobj(file, out, _BLOCK)

    def remove(self, name: str) -> None:
        """Remove the file or folder ``name``, if it is there."""
        path = self.path(name)
        if self.is_url:
            try:
                self._fs.rm(path, recursive=True)
            except FileNotFoundError:
                pass
        elif os.path.isdir(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            try:
                os.remove(path)
            except FileNotFoundError:
                pass

    def remove_all(self, names: Sequence[str]) -> None:
        """:meth:`remove` of each file or folder of ``names`` (each there, at a URL); at a URL in
        one call (an object store deletes them in batches, not a request a file)."""
        if not self.is_url:
            for name in names:
                self.remove(name)
        elif names:
            self._fs.rm([self.path(name) for name in names], recursive=True)

    def clear(self) -> None:
        """Remove the root and everything in it, if it is :attr:`removable`."""
        if self.removable:
            self.remove("")

    # -- reading ------------------------------------------------------------------------------
    def open(self, name: str) -> BinaryIO:
        """The file ``name``, open to read from its start."""
        if self.is_url:
            opened: BinaryIO = self._fs.open(self.path(name), "rb")
            return opened
        return open(self.path(name), "rb")

    def read(self, name: str, dtype: Any, offset: int, count: int) -> np.ndarray:
        """``count`` items of ``dtype`` from byte ``offset`` of the file ``name``, in memory."""
        size = count * np.dtype(dtype).itemsize
        if not self.is_url:
            found = np.fromfile(self.path(name), dtype=dtype, count=count, offset=offset)
            if len(found) != count:
                raise self._short(name, offset + size)
            return found
        raw = self._fs.cat_file(self.path(name), start=offset, end=offset + size) if size else b""
        if len(raw) != size:
            raise self._short(name, offset + size)
        return np.frombuffer(raw, dtype=dtype)

    def read_into(self, name: str, offset: int, out: np.ndarray) -> None:
        """The bytes of the file ``name`` from byte ``offset`` on copied into ``out`` (contiguous,
        filled): :meth:`read` into memory the caller reuses, where each :meth:`read` takes new
        memory (fresh pages to fault in: on this machine that costs more than the copy)."""
        raw = out.data.cast("B")
        if not raw:
            return
        if self.is_url:
            found = self._fs.cat_file(self.path(name), start=offset, end=offset + len(raw))
            copied = len(found)
            raw[:copied] = found
        else:
            with open(self.path(name), "rb", buffering=0) as file:  # straight into ``out``
                file.seek(offset)
                copied = file.readinto(raw)
        if copied != len(raw):
            raise self._short(name, offset + len(raw))

    def pieces(self, name: str, offset: int, length: int, buffer: memoryview) -> Iterator[memoryview]:
        """Bytes ``offset`` to ``offset + length`` of the file ``name``, in pieces: in a folder
        read into ``buffer`` (:meth:`read_into`; each piece valid until the next is asked for); at
        a URL in one request, as :meth:`read`. EngineError if the file ends before."""
        if self.is_url:
            if length:
                yield self.read(name, np.uint8, offset, length).data
            return
        end = offset + length
        for at in range(offset, end, len(buffer)):
            piece = buffer[: min(end - at, len(buffer))]
            try:
                self.read_into(name, at, np.frombuffer(piece, dtype=np.uint8))
            except EngineError:  # said of the whole span asked for, not of this piece
                raise self._short(name, end) from None
            yield piece

    def mapped(
        self, name: str, dtype: Any, offset: int = 0, count: int | None = None, folder: str | None = None
    ) -> np.ndarray:
        """``count`` items of ``dtype`` from byte ``offset`` of the file ``name`` (``None``: to
        its end), memory-mapped read-only. At a URL they are downloaded into a file in the
        local ``folder``; without one, the whole file is, once per machine (:meth:`_cached`),
        and kept mapped for the next task of this process that asks for it."""
        itemsize = np.dtype(dtype).itemsize
        if not self.is_url:
            if count == 0:
                return np.zeros(0, dtype=dtype)
            if count is not None and os.path.getsize(self.path(name)) < offset + count * itemsize:
                raise self._short(name, offset + count * itemsize)
            return np.memmap(
                self.path(name), dtype=dtype, mode="r", offset=offset, shape=None if count is None else (count,)
            )
        if folder is not None:
            local = os.path.join(folder, name.replace("/", "-") + f"-{offset}")
            size = (self._fs.size(self.path(name)) - offset) // itemsize if count is None else count
            if size == 0:
                return np.zeros(0, dtype=dtype)
            with self._fs.open(self.path(name), "rb") as file, open(local, "wb") as out:
                file.seek(offset)
                left = size * itemsize
                while left:
                    piece = file.read(min(left, _BLOCK))
                    if not piece:
                        raise self._short(name, offset + size * itemsize)
                    out.write(piece)
                    left -= len(piece)
            return np.memmap(local, dtype=dtype, mode="r", shape=(size,))
        assert offset == 0 and count is None, "only a whole file is kept"
        url = self.path(name)
        known = f"{url} {self.version(name)}"  # a file written again under its name is another file
        with _kept_lock:
            if known not in _kept:
                _kept.clear()  # the file the tasks of the tier before read
                _kept[known] = self._cached(url, known)
            return _kept[known].view(dtype)

    def version(self, name: str) -> str:
        """What tells the file ``name`` from another written under its name since: its size and
        its time of change (S3's ETag where it has one)."""
        if not self.is_url:
            stat = os.stat(self.path(name))
            return f"{stat.st_size} {stat.st_mtime_ns}"
        info = self._fs.info(self.path(name))
        return f"{info.get('size')} {info.get('ETag') or info.get('mtime') or info.get('LastModified')}"

    def _cached(self, url: str, known: str) -> np.ndarray:
        """The whole file at ``url`` (known by its URL, size and tag: S3's ETag, else its time)
        memory-mapped from this machine's cache folder, a copy the machine's processes share:
        downloaded by the first of them that asks for it, under the folder's lock (the last
        file asked for is kept there, the others removed)."""
        folder = cache_folder()
        path = os.path.join(folder, hashlib.sha256(known.encode()).hexdigest()[:32] + ".bin")
        with locked(folder, "lock"):
            if not os.path.exists(path):
                _remove_cached(folder)
                self._fs.get_file(url, path + ".download")
                os.replace(path + ".download", path)
            return np.memmap(path, dtype=np.uint8, mode="r")

    def _short(self, name: str, end: int) -> EngineError:
        return EngineError(f"{self.path(name)} ends before byte {end:,}")

    # -- checking -----------------------------------------------------------------------------
    def check(self) -> None:
        """EngineError, in one line, if a file cannot be written to the storage, read back and
        removed (a missing bucket, no credentials, a read-only folder)."""
        name = f"probe-{os.getpid()}-{threading.get_ident()}"
        try:
            with self.create(name) as file:
                file.write(b"ttt-solver")
            found = self.read(name, np.uint8, 0, 10).tobytes()
            self.remove(name)
        except EngineError:
            raise
        except Exception as error:  # noqa: BLE001 - whatever the file system raises: one line naming it
            # A folder's refusal names its file (a part of the path that is a file, ...); a URL's file system says its own.
            why = (
                described(error)
                if isinstance(error, OSError) and not self.is_url
                else f"{type(error).__name__}: {error}"
            )
            raise EngineError(f"cannot use the storage at {self.root!r}: {why}") from None
        if found != b"ttt-solver":
            raise EngineError(f"cannot use the storage at {self.root!r}: a file written there reads back otherwise")


def cache_folder() -> str:
    """This machine's cache folder of whole files downloaded from storage URLs, one a user
    where the temporary folder is shared (POSIX: named by the user id, which every process has;
    a worker in a container may run as an id with no user name)."""
    owner = f"-{os.getuid()}" if hasattr(os, "getuid") else ""  # Windows: the temporary folder is the user's own
    return os.path.join(tempfile.gettempdir(), f"ttt-storage-cache{owner}")


def drop_cached() -> None:
    """Forget the whole file this process maps, and remove the copies in this machine's cache
    folder (a build's tiers are solved: no task reads them any more)."""
    with _kept_lock:
        _kept.clear()
    folder = cache_folder()
    if os.path.isdir(folder):
        with locked(folder, "lock"):
            _remove_cached(folder)


def _remove_cached(folder: str) -> None:
    for old in os.listdir(folder):
        if old.endswith((".bin", ".download")):
            os.remove(os.path.join(folder, old))  # a process that maps it keeps its map


def build_storage(root: str | None, folder: str, name: str) -> Storage:
    """The storage of the work (a build, a verify) whose local folder is ``folder``: that folder
    itself without ``root``, else a prefix of its own in ``root``, ``NAME-<16 hex>`` (the same
    for every run of a build from its scratch folder, so that a resumed build finds what it
    left; removed when the work is done)."""
    if root is None:
        return Storage(folder)
    owner = hashlib.sha256(f"{socket.gethostname()}:{os.path.abspath(folder)}".encode()).hexdigest()[:16]
    storage = Storage(root if "://" in root else os.path.abspath(root))
    return Storage(storage.path(f"{name}-{owner}"), removable=True)
