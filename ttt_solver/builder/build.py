"""Build the solved database: solve, write all or nothing, summarise; and the default
database built on first use.

:func:`build` is the library call; ``ttt-lookup build`` (and ``python build_db.py``) is the
command line. The variant is solved tier by tier on an engine (this process by default) into a
scratch folder beside the target (:mod:`ttt_solver.engine.solving`), merged into code order there, and written into a SQLite file
in the same folder a block of rows at a time; the finished file is renamed over the target.
A build that is stopped or killed leaves the folder, and the same build run again goes on
from the last finished tier, merge block or block of rows, once each is checked against the
lengths and checksums recorded when it was finished (a damaged tier, merge or block of rows is made again, and said);
a resumed build's file is proved whole (``ttt-lookup verify``) before it is installed, and
``force`` always starts over. The ``moves`` table is written
only when it is small (:data:`MOVES_STORED_LIMIT`); bigger variants answer every question
from ``positions``.
"""

from __future__ import annotations

import gc
import hashlib
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..audit.verify import verify_source
from ..engine import Engine, InProcess, open_scratch, read_range, read_slice, scratch_path, solve_tiers
from ..errors import BuildError, EngineError, InvalidBudgetError
from ..game.variant import STANDARD, Variant
from ..lookup.rows import DatabaseRows
from ..solver import SOLVER_VERSION, Note, Steps, StoredRows, default_memory
from ..store import GENERATOR, SCHEMA_VERSION, Target
from ..store.content import Hashes, digest, move_count, move_rows, packed_arrays, packed_parts, position_blocks
from ..store.paths import data_folder, database_file
from ..store.reader import Reader
from ..store.row_data import pack_data
from ..store.writer import (
    FileWriter,
    check_target,
    destination,
    failed_write,
    install,
    remove_database,
    rows_written,
    write_server,
)
from ..system.files import locked
from ..system.memory import machine_memory, memory_is_an_error, size_text
from ..version import __version__
from .disk import check_room, failure
from .kept import kept
from .merge import count_outcomes, is_mapped, merge_scratch
from .plan import check_machine
from .shard_write import shard_count, write_sharded

if TYPE_CHECKING:
    from ..engine import Scratch
    from ..solver import Tables

Writing = Callable[[int, int], None]  # (position rows just written, all position rows)

MOVES_STORED_LIMIT = 250_000
"""Most move rows a database stores (3x3: 2,270; 3x4: 148,906; 4x4: 6,460,008). Above it the
moves table would dominate the file and the build; the position rows' move counts and the
children's rows answer the same questions. Never stored above :data:`MOVES_CELLS` cells."""
MOVES_CELLS = 16


@dataclass(frozen=True)
class BuildReport:
    target: str
    variant: str
    legal_positions: int
    canonical_positions: int
    moves: int  # rows in the moves table (0 when moves are not stored)
    outcomes: dict[str, int]  # win/draw/loss for the side to move, over all legal boards
    digest: str
    seconds: float
    # What ran the build's tasks, as the engine says (Engine.fields): "dask" with its workers,
    # their threads and its dashboard; None: this process.
    engine: str | None = None
    workers: int = 1
    threads: int = 1
    dashboard: str | None = None

    def summary(self) -> str:
        o = self.outcomes
        moves = f"{self.moves:,} moves" if self.moves else "moves derived at lookup"
        return (
            f"built {self.target} ({self.variant}): {self.legal_positions:,} positions in"
            f" {self.canonical_positions:,} canonical rows, {moves};"
            f" side to move wins {o['win']:,} / draws {o['draw']:,} / loses {o['loss']:,};"
            f" {self.seconds:.2f} s"
        )


@memory_is_an_error("build the database (the old one is kept)")
def build(
    target: str | Path | None = None,
    variant: Variant = STANDARD,
    force: bool = False,
    progress: Note | None = None,
    store_moves: bool | None = None,
    tables: Tables | None = None,
    writing: Writing | None = None,
    memory: int | None = None,
    steps: Steps | None = None,
    engine: Engine | None = None,
    shards: int | None = None,
) -> BuildReport:
    """Solve ``variant`` and write it to ``target`` (default: the variant's default database, :func:`~ttt_solver.store.paths.database_file`).

    ``store_moves``: write the moves table (default: when it has at most
    :data:`MOVES_STORED_LIMIT` rows). ``progress`` receives a line per stage, ``steps(phase,
    done, total)`` the work as it goes (a progress bar), ``writing(rows, total)`` each block of
    position rows written. ``tables``: the variant already solved
    (:func:`ttt_solver.solver.solve.solve_tables`), to write it again. ``memory``: the budget
    in bytes (default: what the machine can spare, at most 8 GiB). ``force``: replace a
    target ttt-solver did not make, and start over, whatever a stopped build left. ``engine``:
    what runs the tiers' tasks (:mod:`ttt_solver.engine`: by default this process, and then a
    variant this machine cannot hold alone is refused, MachineTooSmallError, before anything
    is written; or :class:`~ttt_solver.engine.engine_dask.DaskEngine`, entered), with
    ``memory`` the budget of each of its tasks. ``shards``: the files the engine's tasks write
    the rows into, side by side (:mod:`.shard_write`; default: one per slot of the engine for
    more than 16 cells, at most 10).
    """

    started = time.perf_counter()
    engine = engine or InProcess()
    where = Target.parse(target if target is not None else database_file(variant))
    check_target(where, force)
    shards = shard_count(engine.slots(), where.file is not None and tables is None, shards, variant.cells > MOVES_CELLS)
    if shards > 1 and store_moves:
        raise ValueError("a database of shards stores no moves table")
    if tables is not None and tables.variant != variant:
        raise ValueError(f"tables of {tables.variant} given to build {variant}")
    if tables is None:  # a variant to solve
        writes_in = os.path.dirname(os.path.abspath(where.file)) if where.file else data_folder()
        engine.check_alone(lambda: check_machine(variant, writes_in))
    memory = memory or default_memory()
    _check_budget(variant, memory, engine.smallest_memory(variant))
    if tables is not None and where.file is None:  # nothing to keep in a folder: one transaction
        report = _write(
            where, variant, tables.solved.stored(), None, force, store_moves, progress, _rows_step(steps, writing)
        )
        return BuildReport(*report, time.perf_counter() - started, **engine.fields)
    folder = scratch_folder(where, variant)
    with _scratch_errors(where, folder), locked(folder) as waited:
        if waited and progress:
            progress(f"{variant}: waited for another build of {where}")
        identity = {"solver": SOLVER_VERSION, "generator_version": __version__}
        scratch = open_scratch(folder, variant, identity, progress, fresh=force)
        written = _rows_step(steps, writing)
        if tables is not None:
            report = _write(
                where, variant, tables.solved.stored(), scratch, force, store_moves, progress, written, memory, steps
            )
        else:
            _check_room(scratch, where.spec)
            solve_tiers(engine, scratch, memory, progress, steps)
            if shards > 1:
                report = _write_shards(where, scratch, shards, engine, memory, progress, written, steps)
            else:
                if progress:
                    progress(f"{variant}: merging the tiers into code order")
                solved = merge_scratch(scratch, memory, steps)
                report = _write(where, variant, solved, scratch, force, store_moves, progress, written, memory, steps)
        engine.storage(scratch.path, variant.name).clear()  # where its tasks exchanged files, if not the scratch folder
        scratch.remove()
    return BuildReport(*report, time.perf_counter() - started, **engine.fields)


def _check_budget(variant: Variant, memory: int, low: int) -> None:
    """InvalidBudgetError for a budget below ``low`` (the smallest the engine's tasks keep) or
    above this machine's memory, naming both bounds."""

    high = machine_memory()
    if memory < low or (high is not None and memory > high):
        most = f" to {size_text(high)} (this machine's memory)" if high is not None else ""
        raise InvalidBudgetError(
            f"invalid memory budget {size_text(memory)} for {variant}: expected from {size_text(low)}"
            f" (the smallest a build of {variant} keeps){most}"
        )


def _check_room(scratch: Scratch, target: str) -> None:
    """check_room; a refusal removes the folder if it holds no work yet (this build made it):
    a build refused before it starts leaves nothing behind."""
    try:
        check_room(scratch.path, scratch.variant, target)
    except BuildError:
        if set(os.listdir(scratch.path)) <= {"lock", "manifest.json"}:
            scratch.remove()
        raise


@contextmanager
def _scratch_errors(where: Target, folder: str) -> Iterator[None]:
    """A file system's or SQLite's refusal to make or fill the scratch folder (a parent that
    is a file, a full disk, a file-size limit, a read-only folder), or an engine's worker's
    (:class:`EngineError`), is one line naming the cause and what was kept; an interrupt or a
    bug stays as it is."""

    try:
        yield
    except EngineError as error:  # a worker's files: what the build keeps is said all the same
        raise EngineError(f"{error}; {kept(folder, 'put that right')}") from None
    except Exception as error:
        if not failed_write(error):
            raise
        raise BuildError(f"cannot build database at {where.spec!r}: {failure(error, folder)}") from None


def scratch_folder(where: Target, variant: Variant) -> str:
    """The scratch folder of a build of ``variant`` at ``where``: beside a file target; for a
    server, in the data folder, named for the URL."""

    if where.file is not None:  # beside the file a symbolic link points to: renamed over it at the end
        return scratch_path(str(destination(Path(where.file))))
    named = hashlib.sha256(where.url.encode()).hexdigest()[:16]
    return os.path.join(data_folder(), f".{variant.name}.{named}.solving")


def _rows_step(steps: Steps | None, writing: Writing | None) -> Callable[[int, int], None] | None:
    if steps is None and writing is None:
        return None

    def written(rows: int, total: int) -> None:
        if steps:
            steps("writing rows", rows, total)
        if writing:
            writing(rows, total)

    return written


def _write(
    where: Target,
    variant: Variant,
    solved: StoredRows,
    scratch: Scratch | None,
    force: bool,
    store_moves: bool | None,
    progress: Note | None,
    written: Callable[[int, int], None] | None,
    memory: int | None = None,
    steps: Steps | None = None,
) -> tuple[str, str, int, int, int, dict[str, int], str]:

    total = len(solved)
    if store_moves and variant.cells > MOVES_CELLS:
        raise ValueError(f"a moves table of {variant.name} would hold billions of rows: it is never stored")
    if store_moves is None:
        store_moves = variant.cells <= MOVES_CELLS and move_count(solved, variant) <= MOVES_STORED_LIMIT
    moves = move_count(solved, variant) if store_moves else 0
    arrays = packed_arrays(solved)
    outcomes = count_outcomes([solved])
    legal = sum(outcomes.values())
    meta = _meta(variant, total, legal, moves, store_moves)
    if progress:
        progress(f"{variant}: writing {total:,} positions to {where}")
    move_blocks = move_rows(solved, variant) if store_moves else iter(())
    with _paused_gc():
        if (
            where.file is None or scratch is None
        ):  # a server: one transaction (what was solved stays in the scratch folder until it commits)
            meta["digest"] = digest(variant.name, arrays)
            write_server(where, variant, position_blocks(solved), move_blocks, packed_parts(arrays), meta, force,
                         None if written is None else lambda rows: written(rows, total))  # fmt: skip
        else:
            file = scratch.file("database.sqlite")
            _write_file(scratch, variant, solved, move_blocks, arrays, meta, written)
            if scratch.resumed:
                _prove(scratch, file, _proof_budget(memory, solved), progress, steps)
            install(file, where)
    return str(where), variant.name, legal, total, moves, outcomes, meta["digest"]


def _write_shards(
    where: Target,
    scratch: Scratch,
    count: int,
    engine: Engine,
    memory: int,
    progress: Note | None,
    written: Callable[[int, int], None] | None,
    steps: Steps | None = None,
) -> tuple[str, str, int, int, int, dict[str, int], str]:
    """_write for a database of ``count`` shards, merged and written by the engine's tasks from
    the solved tiers (:mod:`.shard_write`): it stores no moves."""
    assert where.file is not None
    variant = scratch.variant
    total = sum(scratch.check_tiers()[ply]["rows"] for ply in range(variant.cells + 1))
    meta = _meta(variant, total, 0, 0, False)  # its legal positions counted by the shards' tasks
    if progress:
        progress(f"{variant}: writing {total:,} positions to {where} in {count} shards")
    shards, outcomes = write_sharded(scratch, count, engine, memory, meta, destination(Path(where.file)).name, written)
    legal = sum(outcomes.values())
    if scratch.resumed:
        _prove(scratch, scratch.file("database.sqlite"), memory, progress, steps)
    install(scratch.file("database.sqlite"), where, shards)
    return str(where), variant.name, legal, total, 0, outcomes, meta["digest"]


def _meta(variant: Variant, total: int, legal: int, moves: int, stored: bool) -> dict[str, str]:
    """The meta table of a database of ``total`` rows (``legal`` positions) and ``moves`` moves
    (``stored`` in its moves table or not), but its digest."""
    return {
        "generator": GENERATOR,
        "generator_version": __version__,
        "schema_version": SCHEMA_VERSION,
        "solver_version": SOLVER_VERSION,
        "variant": variant.name,
        "positions": str(total),
        "legal_positions": str(legal),
        "moves": str(moves),
        "moves_stored": "1" if stored else "0",
        "built_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def _write_file(
    scratch: Scratch,
    variant: Variant,
    solved: StoredRows,
    moves: Any,
    arrays: Any,
    meta: dict[str, str],
    written: Callable[[int, int], None] | None,
) -> None:
    """Write into the build's file, after the rows a stopped build wrote already (checked
    against the solved rows first: a damaged file is written again from the start). The
    digest in meta is the packed arrays', hashed as they are packed; the packed parts are
    read back and proved to be the bytes packed (:meth:`FileWriter.rest`)."""

    file = scratch.file("database.sqlite")
    start = _rows_written(scratch, file, solved)
    total = len(solved)
    writer = FileWriter(file, variant)
    try:
        if written and start:
            written(start, total)
        blocks = position_blocks(solved, start, read_slice)
        writer.positions(blocks, None if written is None else lambda rows: written(rows, total))
        hashes = Hashes(variant.name)
        writer.rest(moves, packed_parts(arrays, read_slice, hashes=hashes))
        meta["digest"] = hashes.hexdigest()
        writer.meta(meta)
    finally:
        writer.close()


def _rows_written(scratch: Scratch, file: str, solved: StoredRows) -> int:
    """The position rows an earlier run wrote to ``file``, if they match the solved ones; a
    file that does not (or that SQLite cannot read) is removed, and said."""

    if not os.path.exists(file):
        return 0

    def expected(start: int, stop: int) -> tuple[Any, Any]:
        block = read_range(solved, start, stop)
        return block.code, pack_data(block)

    rows, why = rows_written(file, expected)
    if why is not None:
        scratch.say(f"database.sqlite in {scratch.path} cannot be written on ({why}): writing it again")
        remove_database(file)
    elif rows:
        scratch.resumed = True
        scratch.say(f"resuming the write from {scratch.path}: {rows:,} of {len(solved):,} rows written")
    return rows


def _proof_budget(memory: int | None, solved: StoredRows) -> int | None:
    """The budget of a resumed build's proof: the whole budget where the rows are read from the
    merge's files, half of it where the write holds them in memory (a merge holds them in half
    the budget at most: :func:`.merge.merge_scratch`)."""
    return memory if memory is None or is_mapped(solved) else memory // 2


def _prove(scratch: Scratch, file: str, memory: int | None, progress: Note | None, steps: Steps | None) -> None:
    """A resumed build's file proved whole (``ttt-lookup verify``) before it is installed."""

    started = time.perf_counter()
    with Reader(Target.parse(file), scratch.variant.name) as reader:
        report = verify_source(DatabaseRows(reader, scratch.variant), memory, steps)
    if not report.ok:
        remove_database(file)
        raise BuildError(
            f"the resumed build in {scratch.path!r} did not prove whole ({report.summary}): run the same"
            " command with --force to start over"
        )
    scratch.say(f"proved the resumed database whole in {time.perf_counter() - started:.1f} s")


@contextmanager
def _paused_gc() -> Iterator[None]:
    """Millions of row objects would set off a full collection every few thousand allocations
    (doubling the time to make the rows); they hold no cycles, so collect afterwards instead."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
