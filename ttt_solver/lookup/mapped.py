"""A big database's arrays and batch tables as memory-mapped files, made once per content.

A database of more than :data:`~.rows.EAGER_ROWS` canonical rows (the 20-cell ones: 170
million rows, 2.9 GB of arrays) is never read into memory: what needs every row (the batch
lookups, ``stats``, ... through :mod:`.whole_table`) reads memory-mapped copies of its packed
arrays, written once into a folder of the cache named for the content digest
(:mod:`ttt_solver.store.cache_folder`), their digest checked as they are written. A rebuilt
database has a new digest, so it never meets an old cache; a cache folder is complete or absent
(written beside, then renamed into place). Single answers go through the file (:mod:`.proved`)."""

from __future__ import annotations

import os
import shutil
from typing import TYPE_CHECKING

import numpy as np

from ..game.value_bytes import NO_POSITION, result_bytes
from ..solver import tiers
from ..store import number_in
from ..store.arrays import Arrays
from ..store.cache_folder import content_folder
from ..store.content import PACKED, Hashes, unpack_blob
from .places import Places
from .tables import BatchTables, spread_rows

if TYPE_CHECKING:
    from .rows import DatabaseRows


def _folder(source: DatabaseRows) -> str:
    return content_folder(source.variant.name, source.meta.get("digest", ""))


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

    arrays = mapped_arrays(source)
    folder = _folder(source)
    places = Places(tiers(source.variant))
    path = os.path.join(folder, "results.bin")
    if not os.path.exists(path):
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
