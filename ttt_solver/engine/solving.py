"""A build's tiers solved on an engine: the tier pipeline (:mod:`.pipeline`) with the work of
the solve, into the scratch folder (:mod:`.scratch`).

What a task needs comes by name, not through the engine: the variant's name (each process
builds the tier tables once, :func:`ttt_solver.solver.tiers.tiers`), a range of ranks, and
names of files in the build's storage (:mod:`.storage`: the scratch folder, which every worker
reaches by the same path, by default; or ``--storage``, another shared folder or an fsspec
URL). A chunk's task values its canonical positions from the tier below's result bytes
(memory-mapped read-only: :func:`ttt_solver.solver.passes.solve_chunk`) and writes into its
chunk file its rows, column after column, then its images (none for a tier of one range,
whose range task reads the rows: :func:`.shuffle.write_exchange`).

The driver appends the chunks' rows in rank order into the tier's column files, makes the
joined result bytes the tier's ``results.bin`` (a hard link) and records the tier
(:meth:`.scratch.Scratch.finish`). The tasks' files of a run sit in a folder of their own
inside ``tier-PP.part/``: a task left running by a killed driver writes into a folder the
next run has removed, never into its files.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Callable
from typing import Any

from ..game.variant import Variant
from ..solver import (
    STORED_COLUMNS,
    STORED_ROW_BYTES,
    Note,
    Steps,
    Tiers,
    checksums,
    new_tier,
    solve_chunk,
    spread,
    task_boards,
    task_chunks,
    tier_solved,
    tiers,
)
from ..system.files import sync, write_array
from .engines import Engine
from .pipeline import JOINED, Tier, run_tiers
from .scratch import Scratch, TierSink, read_range
from .shuffle import Below, Exchange, below_bytes, check_crc, write_exchange, write_rows
from .storage import Storage

# Bytes of a chunk's rows the record copies at a time, through one buffer: 458 MB (3x6k4's rows)
# read, hashed and written in 0.12 s of CPU, against 0.26 to 1.3 s read into fresh memory first
# (this machine); 4 MB buffers took the same median, with outliers up to 7x.
RECORD_PIECE = 1 << 20


def solve_tiers(
    engine: Engine, scratch: Scratch, memory: int, note: Note | None = None, steps: Steps | None = None, lowest: int = 0
) -> None:
    """Solve the tiers ``scratch`` lacks (or holds damaged), from the last ply down to ply
    ``lowest`` (0: every tier), each chunk a task of ``engine``; ``memory`` is a task's budget."""
    storage = engine.storage(scratch.path, scratch.variant.name)
    for stale in glob.glob(scratch.file(f"{JOINED}*.bin")):  # a stopped run's
        os.unlink(stale)
    plies = unsolved(scratch, tiers(scratch.variant), note, steps, lowest)
    run_tiers(engine, storage, _Solve(scratch, storage, memory, note), plies, memory, steps)
    engine.release(storage)  # the copies of the tiers' result bytes each machine downloaded


class _Solve:
    """The solve's work in the pipeline (:class:`.pipeline.TierWork`)."""

    phase = "solving"

    def __init__(self, scratch: Scratch, storage: Storage, memory: int, note: Note | None) -> None:
        self.scratch, self.storage, self.note, self.memory = scratch, storage, note, memory
        self.variant, self.folder, self.name = scratch.variant, scratch.path, scratch.variant.name
        self.chunk = task_boards(memory)
        self.unfinished: dict[int, str] = {}

    def task(self) -> Callable[..., tuple[tuple[int, list[int]], Exchange]]:
        return solve_chunk_task

    def chunks(self, ply: int) -> list[tuple[int, int]]:
        return task_chunks(self.variant, ply, self.memory)

    def arguments(self, ply: int, start: int, stop: int) -> tuple[Any, ...]:
        return self.name, ply, start, stop

    def prepare(self, ply: int) -> str:
        self.unfinished[ply] = unfinished = self.scratch.unfinished(ply)
        if not self.storage.is_folder(self.folder):
            self.storage.remove(os.path.basename(unfinished))  # what tasks of a stopped run left
        return os.path.basename(unfinished)

    def below(self, ply: int) -> Below | None:
        if ply == self.variant.cells:
            return None
        below = os.path.relpath(results_file(self.scratch, tiers(self.variant), ply + 1, self.chunk), self.folder)
        self.storage.put(self.scratch.file(below), below)
        return below, checksums.file_crc(self.scratch.file(below))

    def record(self, tier: Tier) -> None:
        """The chunks' rows appended into the tier's column files (checked against the CRC-32s
        their tasks returned as they are copied), the joined result bytes synced and linked as
        its ``results.bin`` (recorded with the CRC-32 the join took of them), the tier recorded."""
        unfinished = self.unfinished.pop(tier.ply)
        sink = TierSink(unfinished)
        buffer = memoryview(bytearray(RECORD_PIECE))  # one for the tier: no fresh memory a chunk
        for name, (rows, crc) in zip(tier.chunk_files, tier.found):
            append_rows(self.storage, name, rows, crc, sink, buffer)
        joined = self.scratch.file(tier.joined[0])
        results = checksums.of_crc(os.path.getsize(joined), tier.joined[1])  # the join took it: not read again
        sync(joined)
        os.link(joined, os.path.join(unfinished, "results.bin"))
        self.storage.remove(tier.run)
        sync(unfinished)
        self.scratch.finish(tier.ply, sink, results)
        if self.note:
            self.note(tier_solved(self.variant, tier.ply, sink.rows))


def solve_chunk_task(
    storage: Storage,
    chunk_file: str,
    below: Below | None,
    bounds: list[int],
    name: str,
    ply: int,
    start: int,
    stop: int,
) -> tuple[tuple[int, list[int]], Exchange]:
    """A task: solve ranks ``start`` to ``stop`` of tier ``ply`` of variant ``name`` from the
    result bytes ``below`` of the tier below (:func:`.shuffle.below_bytes`), and write into
    ``chunk_file`` (whole once it is written) its rows, column after column, then what the
    tasks of the ranges of ranks starting at ``bounds`` read (:func:`.shuffle.write_exchange`:
    the positions' images grouped by range, or nothing more for one range), all in
    ``storage``; the rows' count and each column's CRC-32, and what the range tasks read."""
    found = tiers(Variant.parse(name))
    solved = solve_chunk(found, ply, start, stop, below_bytes(storage, below))
    with storage.create(chunk_file) as file:
        rows = write_rows(file, solved.stored())
        return (rows.count, rows.crcs), write_exchange(found, ply, solved, bounds, file, rows)


def append_rows(storage: Storage, name: str, rows: int, crcs: list[int], sink: TierSink, buffer: memoryview) -> None:
    """Append the rows of chunk file ``name`` to the tier's column files through ``sink``, read
    through ``buffer`` (:meth:`.storage.Storage.pieces`), never whole in memory; EngineError
    (the tier is not recorded) if a column is not the bytes whose CRC-32 its task returned
    (``crcs``, one a column)."""
    found = sink.append(rows, storage.pieces(name, 0, rows * STORED_ROW_BYTES, buffer))
    for (column, _dtype), crc, written in zip(STORED_COLUMNS, found, crcs, strict=True):
        check_crc(storage, name, f" (its {rows:,} rows' {column} column)", crc, written)


def unsolved(scratch: Scratch, found: Tiers, note: Note | None, steps: Steps | None, lowest: int = 0) -> list[int]:
    """The tiers ``scratch`` does not hold yet, from the last ply down to ply ``lowest``; the
    ones it holds are said (resuming) and counted as done."""
    plies = range(scratch.variant.cells, -1, -1)
    done = [ply for ply in plies if scratch.finished(ply)]
    scratch.resumed |= bool(done)
    if done and note:
        listed = f"{max(done)} to {min(done)}" if len(done) == max(done) - min(done) + 1 else ", ".join(map(str, done))
        note(f"{scratch.variant}: resuming from {scratch.path}: plies {listed} solved")
    if steps and done:
        steps("solving", int(found.sizes[done].sum()), int(found.sizes.sum()))
    return [ply for ply in plies if ply >= lowest and not scratch.finished(ply)]


def results_file(scratch: Scratch, found: Tiers, ply: int, chunk: int) -> str:
    """The path of finished tier ``ply``'s result bytes: its file, or the file made again
    from its rows (``chunk`` rows at a time)."""
    path = scratch.results_file(ply)
    if path is None:
        path = os.path.join(scratch.path, f"tier-{ply:02d}", "results.bin")
        results = new_tier(found, ply)
        rows = scratch.rows(ply)
        for start in range(0, len(rows), chunk):
            spread(found, ply, read_range(rows, start, start + chunk), results)
        write_array(path, results)
    return path
