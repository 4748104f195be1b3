"""Write a database of shards (:mod:`ttt_solver.store.shards`) on an engine: the code
range cut into consecutive ranges of about as many rows, each merged from the solved tiers and
written into a shard file of its own by one of the engine's tasks, side by side.

A task merges its range of every tier into code order (files of its own in the scratch folder,
:func:`ttt_solver.solver.solve.merged_blocks`), writes those rows, then the packed arrays of
them (parts numbered after the shards before it), and checks that the parts read back from the
file are the parts it packed (their hashes). Then a task per packed array hashes it from the
merged rows, range after range (:func:`hash_merged`), and the driver makes the content digest
of those hashes (the digest of the packed arrays the shards hold) and writes the main file: its
meta and shards tables.

Every file has one writer, as in the rest of the build. A shard file sits in the scratch folder
where its shards table names it (``X.shards/BUILD-K.sqlite`` beside ``database.sqlite``), so the
finished database can be read there (a resumed build proves it whole before it is installed),
and :func:`ttt_solver.store.writer.install` moves the shards into place before the main file.
A stopped build keeps its shards: the same build goes on in each from its last block of rows,
once those rows are checked against the merged ones (a shard that does not match is written
again, and said). The plan of the shards (their build's name, how many, and the rows) is kept
in the scratch folder; a build with another number of shards starts them over.
"""

from __future__ import annotations

import json
import math
import os
import re
import secrets
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine import first_at_least, read_range, read_slice
from ..errors import BuildError
from ..game.variant import Variant
from ..solver import BYTES_PER_BOARD, MIN_CHUNK, STORED_COLUMNS, StoredRows
from ..store import GENERATOR, SHARDS_KEY
from ..store.content import PACKED, PART_ROWS, array_hash, digest_of, packed_arrays, packed_parts, position_blocks
from ..store.row_data import pack_data
from ..store.shards import BUILD_NAME, MOST_SHARDS, Shard, shard_file, shard_folder
from ..store.writer import FileWriter, remove_database, rows_written
from ..system.files import locked, synced_file, write_json
from .merge import add_outcomes, count_outcomes, merge_cuts, merged_blocks, merged_rows, rows_below

if TYPE_CHECKING:
    from ..engine import Engine, Scratch, Storage

Written = Callable[[int, int], None]  # (position rows just written, all position rows)
_READ = 1 << 24  # bytes of a merged column hashed at a time


def shard_count(slots: int, file_target: bool, asked: int | None, moves_too_big: bool) -> int:
    """How many shards a build writes: ``asked``, or by default one per task the engine runs at
    once (its ``slots``; at most :data:`MOST_SHARDS`) for a variant written to a file whose moves table is
    never stored (``moves_too_big``: a database of shards stores none). BuildError for a number
    that cannot be."""
    if asked is None:
        return min(MOST_SHARDS, slots) if file_target and moves_too_big else 1
    if not 1 <= asked <= MOST_SHARDS:
        raise BuildError(f"invalid number of shards {asked}: expected 1 to {MOST_SHARDS} (SQLite attaches at most 10)")
    if asked > 1 and not file_target:
        raise BuildError("shards are files beside a database file: give a file, not a server")
    return asked


def write_sharded(
    scratch: Scratch,
    count: int,
    engine: Engine,
    memory: int,
    meta: dict[str, str],
    main_name: str,
    written: Written | None,
) -> tuple[list[Shard], dict[str, int]]:
    """Write the database of ``count`` shards of the solved tiers in ``scratch`` into it: its
    main file ``database.sqlite`` and its shards beside it, where the main file's shards table
    names them for a database file named ``main_name``. ``memory``: a worker's budget (the
    rows a task merges at a time). Sets ``meta['digest']``, ``meta['shards']`` and
    ``meta['legal_positions']``; the shards, and the legal boards by value
    (:func:`ttt_solver.solver.solve.count_outcomes`, counted by the tasks)."""
    variant = scratch.variant
    rows_by_tier = [scratch.rows(ply) for ply in range(variant.cells + 1)]
    total = sum(len(part) for part in rows_by_tier)
    if total < count:
        raise BuildError(f"{variant} has {total:,} rows: too few for {count} shards")
    # Blocks small enough to cut the rows into shards of nearly as many rows each.
    cuts = merge_cuts(rows_by_tier, max(MIN_CHUNK, min(memory // (4 * BYTES_PER_BOARD), total // (64 * count))))
    firsts = [0, *(_cut_near(rows_by_tier, cuts, total * k // count) for k in range(1, count))]
    if len(set(firsts)) < count:
        raise BuildError(f"{variant}'s rows cannot be cut into {count} shards: give fewer")
    below = [rows_below(rows_by_tier, first) for first in firsts] + [total]
    storage = engine.storage(scratch.path, variant.name)
    build = _plan(scratch, storage, below, main_name)
    main = scratch.file("database.sqlite")
    remove_database(main)  # the main file is written again whole: moments
    tier_folders = [os.path.basename(scratch.tier_files(ply)[0]) for ply in range(variant.cells + 1)]
    # The tiers' rows where the tasks read them (in the scratch folder: there already).
    storage.put_all(
        [
            (os.path.join(scratch.path, f, f"{name}.bin"), f"{f}/{name}.bin")
            for f in tier_folders
            for name, _ in STORED_COLUMNS
        ]
    )
    calls = _calls(scratch, storage, tier_folders, rows_by_tier, cuts, firsts, below, main_name, build)
    if written:
        written(0, total)

    def done(index: int) -> None:
        if written:
            written(below[index + 1] - below[index], total)

    resumed = engine.run(write_shard, calls, f"{variant.name}-shards", done)
    outcomes = add_outcomes([counts for _rows, _why, counts in resumed])
    for index, (rows, why, _counts) in enumerate(resumed):
        name = shard_file(main_name, build, index)
        storage.get(name, scratch.file(name))
        if why is not None:
            scratch.say(f"{name} in {scratch.path} could not be written on ({why}): wrote it again")
        elif rows:
            scratch.resumed = True
            scratch.say(f"resumed {name} in {scratch.path} after its first {rows:,} rows")
    meta["digest"] = _digest(engine, variant.name, storage, [_merged(k) for k in range(count)], total)
    meta[SHARDS_KEY] = str(count)
    meta["legal_positions"] = str(sum(outcomes.values()))
    shards = [
        Shard(k, shard_file(main_name, build, k), build, firsts[k], below[k + 1] - below[k]) for k in range(count)
    ]
    writer = FileWriter(main, variant, "main")
    try:
        writer.rest(iter(()), iter(()))
        writer.meta(meta, shards)
    finally:
        writer.close()
    return shards, outcomes


def _calls(
    scratch: Scratch,
    storage: Storage,
    tier_folders: list[str],
    rows_by_tier: list[StoredRows],
    cuts: list[int],
    firsts: list[int],
    below: list[int],
    main_name: str,
    build: str,
) -> list[tuple[Any, ...]]:
    """The arguments of each shard's task (:func:`write_shard`): shard ``k`` holds the codes from
    ``firsts[k]`` on, the ``below[k + 1] - below[k]`` rows merged between the ``cuts`` in them,
    found in each tier (``rows_by_tier``, in ``tier_folders`` of ``storage``) between the rows where its
    first and the next shard's codes start."""
    calls, first_part = [], 0
    for k, first in enumerate(firsts):
        last = firsts[k + 1] if k + 1 < len(firsts) else None
        bounds = [first, *(cut for cut in cuts if first < cut and (last is None or cut < last)), last]
        tiers_at = [
            (folder, first_at_least(rows.code, first), len(rows) if last is None else first_at_least(rows.code, last))
            for folder, rows in zip(tier_folders, rows_by_tier)
        ]
        shard = shard_file(main_name, build, k)
        calls.append((storage, scratch.variant.name, tiers_at, bounds, _merged(k), shard, build, k, first_part))
        first_part += max(1, math.ceil((below[k + 1] - below[k]) / PART_ROWS))
    return calls


def _cut_near(rows_by_tier: list[StoredRows], cuts: list[int], rows: int) -> int:
    """The cut with about ``rows`` rows below it (the first above, by bisection: each count is
    a search in every tier's codes)."""
    low, high = 0, len(cuts) - 1
    if high < 0:
        return 0
    while low < high:
        middle = (low + high) // 2
        if rows_below(rows_by_tier, cuts[middle]) < rows:
            low = middle + 1
        else:
            high = middle
    return cuts[low]


def _merged(index: int) -> str:
    return f"merged-{index}"


def _plan(scratch: Scratch, storage: Storage, below: list[int], main_name: str) -> str:
    """The name of the build the shards in ``scratch`` belong to: the one recorded for the same
    shards (their rows) of the same file, else a new one (the old shards removed)."""
    record_path = scratch.file("shards.json")
    wanted = {"below": below, "file": main_name}
    try:
        with open(record_path) as file:
            record = json.load(file)
    except (OSError, ValueError):
        record = None
    build = record.get("build") if isinstance(record, dict) else None
    if (
        isinstance(build, str)
        and re.fullmatch(BUILD_NAME, build)
        and {key: record.get(key) for key in wanted} == wanted
    ):
        return build
    shutil.rmtree(os.path.join(scratch.path, shard_folder(main_name)), ignore_errors=True)
    storage.remove(shard_folder(main_name))
    build = secrets.token_hex(8)
    write_json(record_path, {"build": build, **wanted})
    return build


def _digest(engine: Engine, variant_name: str, storage: Storage, folders: list[str], total: int) -> str:
    """The content digest of the rows merged into ``folders`` of ``storage``: each packed
    array hashed by a task (:func:`hash_merged`), side by side."""
    calls = [(storage, folders, name) for name, _dtype in PACKED]
    hashes = engine.run(hash_merged, calls, f"{variant_name}-digest")
    return digest_of(
        variant_name,
        {name: (total * np.dtype(dtype).itemsize, found) for (name, dtype), found in zip(PACKED, hashes)},
    )


def hash_merged(storage: Storage, folders: list[str], name: str) -> tuple[int, str]:
    """A task: the bytes of the packed array ``name`` merged into ``folders`` of ``storage``
    (one after the other), and their SHA-256 (:func:`ttt_solver.store.content.array_hash`)."""

    def pieces() -> Iterator[bytes]:
        for folder in folders:
            with storage.open(f"{folder}/{name}.bin") as file:
                while piece := file.read(_READ):
                    yield piece

    return array_hash(pieces())


def write_shard(
    storage: Storage,
    name: str,
    tiers_at: list[tuple[str, int, int]],
    bounds: list[int | None],
    merged: str,
    shard: str,
    build: str,
    index: int,
    first_part: int,
) -> tuple[int, str | None, dict[str, int]]:
    """A task: merge the rows of the finished tiers at ``tiers_at`` (the folder of each, and the
    rows of it from the first to the last one in this shard) with codes from ``bounds[0]`` to
    ``bounds[-1]`` into the folder ``merged``, a block between two bounds at a time, then write
    them into the shard file ``shard`` (shard ``index`` of build ``build`` of variant ``name``),
    going on after the rows a stopped build wrote there if they match, and their packed arrays,
    rows_by_tier numbered from ``first_part``: all in ``storage``. The rows found written, why a file
    found could not be written on (None: it could, or there was none), and the shard's legal
    boards by value (counted as its rows are merged). A task of a stopped build that still
    writes the same shard into a folder holds its lock: this one waits for it."""
    with (
        storage.working(shard, fetch=True) as path,
        locked(os.path.dirname(path), os.path.basename(path) + ".lock"),
        storage.working(merged) as folder,
        tempfile.TemporaryDirectory(prefix="ttt-shard-") as local,  # a storage URL's tier rows, downloaded
    ):
        rows_by_tier = [_tier_rows(storage, tier, low, high, local) for tier, low, high in tiers_at]
        rows, outcomes = _merge_range(rows_by_tier, bounds, folder)
        return (*_write_shard(Variant.parse(name), rows, path, build, index, first_part), outcomes)


def _tier_rows(storage: Storage, folder: str, low: int, high: int, local: str) -> StoredRows:
    """Rows ``low`` to ``high`` of the finished tier in ``folder`` of ``storage``, memory-mapped
    (from their files there, or from ``local`` once downloaded)."""
    return StoredRows(
        *(
            storage.mapped(f"{folder}/{name}.bin", dtype, low * np.dtype(dtype).itemsize, high - low, local)
            for name, dtype in STORED_COLUMNS
        )
    )


def _merge_range(
    rows_by_tier: list[StoredRows], bounds: list[int | None], folder: str
) -> tuple[StoredRows, dict[str, int]]:
    """The tiers' rows between the bounds, merged into files in ``folder``, memory-mapped; and
    their legal boards by value."""
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    total, counts = 0, []
    with ExitStack() as stack:
        files = [
            stack.enter_context(synced_file(os.path.join(folder, f"{name}.bin"))) for name, _dtype in STORED_COLUMNS
        ]
        for block in merged_blocks(rows_by_tier, bounds):
            for file, column, (_name, dtype) in zip(files, block, STORED_COLUMNS):
                column.astype(dtype, copy=False).tofile(file)
            total += len(block)
            counts.append(count_outcomes([block]))
    return merged_rows(folder, total), add_outcomes(counts)


def _write_shard(
    variant: Variant, rows: StoredRows, path: str, build: str, index: int, first_part: int
) -> tuple[int, str | None]:
    first, why = 0, None
    if os.path.exists(path):

        def expected(low: int, high: int) -> tuple[Any, Any]:
            block = read_range(rows, low, high)
            return block.code, pack_data(block)

        first, why = rows_written(path, expected)
        if why is not None:
            remove_database(path)
    writer = FileWriter(path, variant, "shard")
    try:
        writer.positions(position_blocks(rows, first, read_slice))
        writer.rest(iter(()), packed_parts(packed_arrays(rows), read_slice, first_part))  # read back, proved
        writer.meta({"generator": GENERATOR, "variant": variant.name, "build": build, "shard": str(index)})
    finally:
        writer.close()
    return first, why
