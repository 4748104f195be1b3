"""Write a database of shards (:mod:`ttt_solver.store.shards`) on a distributed engine: the
merged rows cut into consecutive ranges, each written into a shard file of its own by one of
the engine's tasks, side by side, while the driver writes the main file (the packed arrays and
their digest) beside them.

Every file has one writer, as in the rest of the build. A shard file sits in the scratch folder
where its shards table names it (``X.shards/BUILD-K.sqlite`` beside ``database.sqlite``), so the
finished database can be read there (a resumed build proves it whole before it is installed),
and :func:`ttt_solver.store.writer.install` moves the shards into place before the main file.
A stopped build keeps its shards: the same build goes on in each from its last block of rows,
once those rows are checked against the merged ones (a shard that does not match is written
again, and said). The plan of the shards (their build's name and how many) is kept in the
scratch folder; a build with another number of shards starts them over.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from ..errors import BuildError
from ..game.variant import Variant
from ..solver.passes import Solved
from ..solver.scratch import locked, read_range, read_slice, write_json
from ..solver.solve import merged_rows
from ..store import GENERATOR
from ..store.content import packed_arrays, packed_parts, position_blocks
from ..store.row_data import pack_data
from ..store.shards import MOST_SHARDS, Shard, shard_file
from ..store.writer import FileWriter, remove_database, rows_written

if TYPE_CHECKING:
    from ..solver.scratch import Scratch
    from ..solver.solve import Engine

Written = Callable[[int, int], None]  # (position rows just written, all position rows)
_BUILD = re.compile(r"[0-9a-f]{16}")  # a build's name: secrets.token_hex(8)


def shard_count(variant: Variant, engine: Engine | None, file_target: bool, asked: int | None) -> int:
    """How many shards a build writes: ``asked``, or by default one per task the engine runs at
    once (at most :data:`MOST_SHARDS`) for a variant of more than 16 cells written to a file;
    1 (one file) without an engine. BuildError for a number that cannot be."""
    if asked is None:
        return min(MOST_SHARDS, engine.slots()) if engine is not None and file_target and variant.cells > 16 else 1
    if not 1 <= asked <= MOST_SHARDS:
        raise BuildError(f"invalid number of shards {asked}: expected 1 to {MOST_SHARDS} (SQLite attaches at most 10)")
    if asked > 1 and (engine is None or not file_target):
        raise BuildError("shards are written by a distributed build's workers into files: give --engine and a file")
    return asked


def write_sharded(
    scratch: Scratch,
    solved: Solved,
    count: int,
    engine: Engine,
    meta: dict[str, str],
    main_name: str,
    written: Written | None,
) -> list[Shard]:
    """Write the database of ``count`` shards into ``scratch``: its main file
    ``database.sqlite`` and its shards beside it, where the main file's shards table names them
    for a database file named ``main_name``. ``solved``: the merged rows (memory-mapped from
    ``scratch/merged``). Sets ``meta['digest']`` and ``meta['shards']``; the shards."""
    variant, total = scratch.variant, len(solved)
    if total < count:
        raise BuildError(f"{variant} has {total:,} rows: too few for {count} shards")
    build = _plan(scratch, total, count, main_name)
    bounds = [total * k // count for k in range(count + 1)]
    main = scratch.file("database.sqlite")
    remove_database(main)  # the main file is written again whole: minutes at most
    folder = os.path.dirname(main)
    calls = [
        (variant.name, scratch.file("merged"), total, bounds[k], bounds[k + 1],
         os.path.join(folder, shard_file(main_name, build, k)), build, k)
        for k in range(count)
    ]  # fmt: skip
    if written:
        written(0, total)

    def done(index: int) -> None:
        if written:
            written(bounds[index + 1] - bounds[index], total)

    with ThreadPoolExecutor(1) as pool:
        digest = pool.submit(_write_main, main, variant, solved)
        resumed = engine.run(write_shard, calls, f"{variant.name}-shards", done)
        meta["digest"] = digest.result()
    for index, (rows, why) in enumerate(resumed):
        name = shard_file(main_name, build, index)
        if why is not None:
            scratch.say(f"{name} in {scratch.path} could not be written on ({why}): wrote it again")
        elif rows:
            scratch.resumed = True
            scratch.say(f"resumed {name} in {scratch.path} after its first {rows:,} rows")
    shards = [
        Shard(k, shard_file(main_name, build, k), build, int(read_slice(solved.code, bounds[k], bounds[k] + 1)[0]),
              bounds[k + 1] - bounds[k])
        for k in range(count)
    ]  # fmt: skip
    meta["shards"] = str(count)
    writer = FileWriter(main, variant, "main")
    try:
        writer.meta(meta, shards)
    finally:
        writer.close()
    return shards


def _plan(scratch: Scratch, total: int, count: int, main_name: str) -> str:
    """The name of the build the shards in ``scratch`` belong to: the one recorded for the same
    rows and number of shards, else a new one (the old shards removed)."""
    record_path = scratch.file("shards.json")
    wanted = {"total": total, "count": count, "file": main_name}
    try:
        with open(record_path) as file:
            record = json.load(file)
    except (OSError, ValueError):
        record = None
    build = record.get("build") if isinstance(record, dict) else None
    if isinstance(build, str) and _BUILD.fullmatch(build) and {key: record.get(key) for key in wanted} == wanted:
        return build
    shutil.rmtree(os.path.join(scratch.path, f"{main_name}.shards"), ignore_errors=True)
    build = secrets.token_hex(8)
    write_json(record_path, {"build": build, **wanted})
    return build


def _write_main(path: str, variant: Variant, solved: Solved) -> str:
    """The main file but its meta and shards tables: the packed arrays (an empty moves table);
    their digest as read back from the file."""
    writer = FileWriter(path, variant, "main")
    try:
        writer.rest(iter(()), packed_parts(packed_arrays(solved), read_slice))
        return writer.packed_digest(variant.name, len(solved))
    finally:
        writer.close()


def write_shard(
    name: str, merged: str, total: int, start: int, stop: int, path: str, build: str, index: int
) -> tuple[int, str | None]:
    """A task: write rows ``start`` to ``stop`` of the ``total`` merged rows in ``merged`` into
    the shard file ``path`` (shard ``index`` of build ``build`` of variant ``name``), going on
    after the rows a stopped build wrote there if they match; the rows found written, and why a
    file found could not be written on (None: it could, or there was none). A task of a stopped
    build that still writes the same shard holds its lock: this one waits for it, then goes on
    after the rows it wrote."""
    with locked(os.path.dirname(path), os.path.basename(path) + ".lock"):  # a task a stopped build left running
        return _write_shard(Variant.parse(name), merged_rows(merged, total, start, stop), path, build, index)


def _write_shard(variant: Variant, rows: Solved, path: str, build: str, index: int) -> tuple[int, str | None]:
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
        writer.meta({"generator": GENERATOR, "variant": variant.name, "build": build, "shard": str(index)})
    finally:
        writer.close()
    return first, why
