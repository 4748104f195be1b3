"""A big database's arrays and batch tables as memory-mapped files, made once per content.

An eager load of a variant of more than :data:`EAGER_ROWS` canonical rows (the 20-cell ones:
170 million rows, 2.9 GB of arrays) never reads the arrays into memory: single lookups go
through the file, proved one ply down, and what needs every row (the batch lookups,
``stats``, ...) reads memory-mapped copies of the packed arrays, written once into a cache
folder named for the content digest (``$XDG_CACHE_HOME/ttt-solver/``, else
``~/.cache/ttt-solver/``), their digest checked as they are written. A rebuilt database has a
new digest, so it never meets an old cache; a cache folder is complete or absent (written
beside, then renamed into place).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import CacheError
from ..store import number_in
from ..store.content import PACKED, Hashes, unpack_blob
from .arrays import Arrays

if TYPE_CHECKING:
    from .rows import DatabaseRows
    from .tables import BatchTables

EAGER_ROWS = 1 << 24
"""Most canonical rows an eager load reads into memory (4x4: 1.2 million; 4x5: 170 million)."""


def is_big(source: DatabaseRows) -> bool:
    """Whether a database has more canonical rows than an eager load reads into memory."""
    return (number_in(source.meta.get("positions")) or 0) > EAGER_ROWS


def cached(source: DatabaseRows, name: str, make: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """``make()``, kept as JSON in the database's cache folder (made once per content digest;
    made every time where the cache folder cannot be written: it only saves time)."""
    import json

    path = os.path.join(_folder(source), name)
    try:
        with open(path) as file:
            found: dict[str, Any] = json.load(file)
            return found
    except (OSError, ValueError):
        pass
    made = make()
    partial = f"{path}.{os.getpid()}.part"
    try:
        os.makedirs(_folder(source), exist_ok=True)
        with open(partial, "w") as file:
            json.dump(made, file)
        os.replace(partial, path)
    except OSError:  # a read-only home, a full disk, XDG_CACHE_HOME naming a file
        with suppress(OSError):
            os.remove(partial)
    return made


def cache_folder() -> str:
    """Where the memory-mapped arrays and the numbers kept per database content are written."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    root = base if os.path.isabs(base) else os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(root, "ttt-solver")


@dataclass(frozen=True)
class CacheEntry:
    """One thing in the cache folder (a database content's folder, or a left-over file) and
    the bytes of its files."""

    name: str
    size: int


def cache_entries() -> list[CacheEntry]:
    """What the cache folder holds, by name (none if there is no folder); CacheError if it
    cannot be read."""
    folder = cache_folder()
    if not os.path.lexists(folder):
        return []
    try:
        return [CacheEntry(name, _bytes_in(os.path.join(folder, name))) for name in sorted(os.listdir(folder))]
    except OSError as error:
        raise CacheError(f"cannot read the cache folder {folder!r}: {error.strerror or error}") from None


def clear_cache() -> list[CacheEntry]:
    """Remove the cache folder and everything in it; what it held. Only time is lost: what a
    database needs is written again on its next use. CacheError if it cannot be removed."""
    folder = cache_folder()
    held = cache_entries()
    if not os.path.lexists(folder):
        return held
    try:
        if os.path.isdir(folder) and not os.path.islink(folder):
            shutil.rmtree(folder)
        else:
            os.remove(folder)
    except OSError as error:
        raise CacheError(f"cannot remove the cache folder {folder!r}: {error.strerror or error}") from None
    return held


def _bytes_in(path: str) -> int:
    if not os.path.isdir(path) or os.path.islink(path):
        return os.lstat(path).st_size
    return sum(os.lstat(os.path.join(top, name)).st_size for top, _dirs, names in os.walk(path) for name in names)


def _folder(source: DatabaseRows) -> str:
    return os.path.join(cache_folder(), f"{source.variant.name}-{source.meta.get('digest', '')[:24]}")


def mapped_arrays(source: DatabaseRows) -> Arrays:
    """The packed arrays of ``source``, memory-mapped from the cache (written there first if
    missing); ValueError if they are damaged."""
    folder = _folder(source)
    count = number_in(source.meta.get("positions")) or 0
    if not os.path.exists(os.path.join(folder, "arrays.done")):
        _write_arrays(source, folder)
    columns = {
        name: np.memmap(os.path.join(folder, f"{name}.bin"), dtype=dtype, mode="r", shape=(count,))
        for name, dtype in PACKED
    }
    return Arrays(source.variant, **columns)


def _write_arrays(source: DatabaseRows, folder: str) -> None:
    partial = f"{folder}.{os.getpid()}.part"
    shutil.rmtree(partial, ignore_errors=True)
    os.makedirs(partial)
    try:
        index = source.reader.packed_index()
        hashes = Hashes(source.variant.name)
        for name, dtype in PACKED:
            if index.get(name, ("", 0))[0] != dtype:
                raise ValueError(f"the packed array {name!r} is missing or not {dtype}")
            with open(os.path.join(partial, f"{name}.bin"), "wb") as file:
                for part in range(index[name][1]):
                    raw = unpack_blob(name, source.reader.packed_part(name, part))
                    hashes.update(name, raw)
                    file.write(raw)
        if hashes.hexdigest() != source.meta.get("digest"):
            raise ValueError("the content digest does not match")
        open(os.path.join(partial, "arrays.done"), "w").close()
        _install(partial, folder)
    finally:
        shutil.rmtree(partial, ignore_errors=True)


def mapped_tables(source: DatabaseRows) -> BatchTables:
    """The batch tables of ``source``, memory-mapped from the cache (spread there first from
    the mapped arrays if missing)."""
    from ..solver.tiers import tiers
    from .places import Places
    from .tables import BatchTables, spread_rows

    arrays = mapped_arrays(source)
    folder = _folder(source)
    places = Places(tiers(source.variant))
    path = os.path.join(folder, "results.bin")
    if not os.path.exists(path):
        from ..game.values import NO_POSITION, result_bytes

        partial = f"{path}.{os.getpid()}.part"
        results = np.memmap(partial, dtype=np.uint8, mode="w+", shape=(places.size + 1,))
        results[:] = NO_POSITION
        step = 1 << 22
        for start in range(0, len(arrays.code), step):
            part = slice(start, start + step)
            spread_rows(places, arrays.code[part], result_bytes(arrays.value[part], arrays.remoteness[part]), results)
        results.flush()
        del results
        os.replace(partial, path)
    return BatchTables(source.variant, places, np.memmap(path, dtype=np.uint8, mode="r"))


def _install(partial: str, folder: str) -> None:
    try:
        os.replace(partial, folder)
    except OSError:  # another process made it meanwhile: theirs is as good
        if not os.path.exists(os.path.join(folder, "arrays.done")):
            raise
