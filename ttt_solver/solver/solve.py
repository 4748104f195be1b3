"""Solve a variant: every tier from the last ply to the first, a chunk at a time, under a
memory budget.

:func:`solve_tables` keeps everything in memory (small variants, the tests);
:func:`solve_scratch` streams each finished tier into a scratch folder
(:mod:`ttt_solver.engine.scratch`) and resumes there after a stop, and :func:`merge_scratch`
then writes every position in code order into the same folder, a block at a time. Both run
the same passes (:mod:`ttt_solver.solver.passes`) over the same chunks; peak memory is the
chunk's work plus the result bytes of two tiers (the widest tier of 4x5 has 133 million
boards: 133 MB), whatever the size of the game.

Values are +1 win, 0 draw, -1 loss for the side to move (see :mod:`ttt_solver.game.values`).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import numpy as np

from ..engine.scratch import (
    Scratch,
    append_column,
    first_at_least,
    read_range,
    read_record,
    read_slice,
    sync,
    write_array,
    write_json,
)
from ..engine.storage import Storage
from ..game import array_rules, codec
from ..game.variant import Variant
from . import checksums
from .passes import COLUMNS, Solved, new_tier, solve_chunk, spread
from .tiers import Tiers, tiers

T = TypeVar("T")

Note = Callable[[str], None]  # one line about the run
Steps = Callable[[str, int, int], None]  # (phase, units just done, units in the phase)
Done = Callable[[int], None]  # the index of a task that finished
Calls = Sequence[tuple[Any, ...]]  # each task's arguments (small: names, ranges, paths)

GIB = 1 << 30
MEMORY_CAP = 8 * GIB  # the default budget is what the machine can spare, at most this
# Bytes a board of a chunk costs while it is solved (its halves, codes and images as it is
# enumerated, and for a canonical one its moves' ranks and scores): measured with
# benchmarks/bench_stream.py, rounded up.
BYTES_PER_BOARD = 160
MIN_CHUNK = 256
# Boards per chunk at most, whatever the budget: bigger chunks no longer pay for themselves
# (their arrays leave the CPU caches) and only raise the peak.
MAX_CHUNK = 1 << 21
SOLVER_VERSION = "2"  # the tier solver (1: the layered one, before schema 3)
COUNT_ROWS = 1 << 22  # rows read at a time by count_outcomes


class Engine(Protocol):
    """What solves the tiers a scratch folder lacks: this process (:func:`solve_scratch`) or a
    distributed engine running the same passes as its tasks (:mod:`ttt_solver.engine.engine_dask`)."""

    def solve(
        self, scratch: Scratch, memory: int, note: Note | None = None, steps: Steps | None = None, lowest: int = 0
    ) -> None: ...

    def run(self, function: Callable[..., T], calls: Calls, name: str, done: Done | None = None) -> list[T]:
        """``function(*call)`` for each call as the engine's tasks (the whole-table proof's
        chunks, the shards of a database); the results in the calls' order."""
        ...  # fmt: skip

    def slots(self) -> int:
        """How many tasks the engine runs at once (its workers' threads)."""
        ...  # fmt: skip

    def storage(self, folder: str, name: str) -> Storage:
        """Where the tasks exchange the files of the work whose local folder is ``folder`` (a
        build's scratch folder, a verify's temporary folder) and which ``name`` names (the
        variant's name) (:mod:`ttt_solver.engine.storage`)."""
        ...  # fmt: skip

    def release(self, storage: Storage) -> None:
        """The tasks read no more whole files from ``storage``: what the workers' machines keep
        of them is dropped (:func:`ttt_solver.engine.storage.drop_cached`)."""
        ...  # fmt: skip


@dataclass(frozen=True)
class Tables:
    """Every canonical legal position of a variant with its solution, in code order."""

    variant: Variant
    solved: Solved

    def __len__(self) -> int:
        return len(self.solved)

    @property
    def codes(self) -> np.ndarray:
        return self.solved.code

    # The columns by name, as the packed arrays name them (see ``Solved``).
    value = property(lambda self: self.solved.value)
    remoteness = property(lambda self: self.solved.remoteness)
    best = property(lambda self: self.solved.best)
    preferred = property(lambda self: self.solved.preferred)
    orbit = property(lambda self: self.solved.orbit)
    wins = property(lambda self: self.solved.wins)
    draws = property(lambda self: self.solved.draws)
    losses = property(lambda self: self.solved.losses)

    @property
    def ply(self) -> np.ndarray:
        """int8 pieces on each board."""

        digits = array_rules.digits(self.solved.code, self.variant)
        found: np.ndarray = np.count_nonzero(digits != codec.EMPTY_DIGIT, axis=1).astype(np.int8)
        return found

    @property
    def legal_positions(self) -> int:
        return int(self.solved.orbit.sum(dtype=np.int64))


def default_memory() -> int:
    """What the machine can spare for a build: three quarters of the memory available now,
    at most :data:`MEMORY_CAP`."""
    try:
        with open("/proc/meminfo") as file:
            fields = dict(line.split(":", 1) for line in file)
        available = int(fields["MemAvailable"].split()[0]) * 1024
    except (OSError, KeyError, ValueError):
        return MEMORY_CAP // 4
    return min(MEMORY_CAP, available * 3 // 4)


IN_MEMORY_BOARDS = 1 << 22  # boards in all tiers (3x4: 0.3 million; 4x4: 14 million)


def in_memory(variant: Variant, memory: int) -> bool:
    """Whether a build solves ``variant`` in memory, with nothing to resume: a small variant
    (seconds at most) whose every tier fits a quarter of the budget."""
    boards = int(tiers(variant).sizes.sum())
    return boards <= IN_MEMORY_BOARDS and boards * BYTES_PER_BOARD <= memory // 4


def chunk_boards(variant: Variant, memory: int) -> int:
    """Boards per chunk under a budget of ``memory`` bytes, once the widest two tiers' result
    bytes are set aside."""
    found = tiers(variant)
    widest = 2 * int(found.sizes.max()) + 2
    return max(MIN_CHUNK, min(MAX_CHUNK, (memory - widest) // BYTES_PER_BOARD))


def task_boards(memory: int) -> int:
    """Boards per chunk of a distributed build's task under a worker's budget of ``memory``
    bytes: the tiers' result bytes are memory-mapped files there, so the chunk has it all."""
    return max(MIN_CHUNK, min(MAX_CHUNK, memory // BYTES_PER_BOARD))


def smallest_task_memory() -> int:
    """The smallest budget of a distributed build's worker: the smallest chunk."""
    return MIN_CHUNK * BYTES_PER_BOARD


def smallest_memory(variant: Variant) -> int:
    """The smallest budget a build of ``variant`` keeps: the result bytes of its two widest
    tiers and the smallest chunk."""
    return 2 * int(tiers(variant).sizes.max()) + 2 + MIN_CHUNK * BYTES_PER_BOARD


def _solve_tier(
    found: Tiers, ply: int, below: np.ndarray | None, out: np.ndarray, chunk: int, steps: Steps | None
) -> Iterator[Solved]:
    """The canonical positions of tier ``ply``, a chunk at a time (``out`` gets the tier's
    result bytes as they come)."""
    size = found.size(ply)
    for start in range(0, size, chunk):
        stop = min(size, start + chunk)
        solved = solve_chunk(found, ply, start, stop, below)
        spread(found, ply, solved, out)
        if steps:
            steps("solving", stop - start, int(found.sizes.sum()))
        yield solved


def solve_tables(variant: Variant, progress: Note | None = None, memory: int | None = None) -> Tables:
    """Solve every legal position of ``variant`` in memory (canonical forms only)."""
    found = tiers(variant)
    chunk = chunk_boards(variant, memory or default_memory())
    parts: list[Solved] = []
    below = None
    for ply in range(variant.cells, -1, -1):
        out = new_tier(found, ply)
        tier = list(_solve_tier(found, ply, below, out, chunk, None))
        parts.extend(tier)
        below = out
        if progress:
            progress(tier_solved(variant, ply, sum(len(p) for p in tier)))
    solved = Solved.concatenate(parts)
    return Tables(variant, solved.take(np.argsort(solved.code, kind="stable")))


def tier_solved(variant: Variant, ply: int, rows: int) -> str:
    """The line that says a tier is solved, whichever engine solved it."""
    return f"{variant}: ply {ply}: {rows:,} position{'' if rows == 1 else 's'}"


def solve_scratch(
    scratch: Scratch, memory: int, note: Note | None = None, steps: Steps | None = None, lowest: int = 0
) -> None:
    """Solve the tiers that ``scratch`` does not hold yet (or holds damaged), from the last
    ply down to ply ``lowest`` (0: every tier)."""
    variant = scratch.variant
    found = tiers(variant)
    chunk = chunk_boards(variant, memory)
    # The result bytes of the tier just solved are the next tier's ``below`` as they are:
    # read again from its file (while the old array was still held) they made a third tier
    # in memory at the start of each tier (4x5k4: 126 MB over the budget at ply 13).
    last: tuple[int, np.ndarray] | None = None
    for ply in unsolved(scratch, found, note, steps, lowest):
        below = last[1] if last is not None and last[0] == ply + 1 else None
        last = None
        if below is None and ply < variant.cells:
            below = _results(scratch, found, ply + 1, chunk)
        with scratch.tier(ply, found.size(ply)) as (out, sink):
            for solved in _solve_tier(found, ply, below, out, chunk, steps):
                sink.append(solved)
        last, below = (ply, out), None
        del out
        if note:
            note(tier_solved(variant, ply, sink.rows))


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
    from its rows."""
    path = scratch.results_file(ply)
    if path is None:
        path = os.path.join(scratch.path, f"tier-{ply:02d}", "results.bin")
        write_array(path, _results(scratch, found, ply, chunk))
    return path


def _results(scratch: Scratch, found: Tiers, ply: int, chunk: int) -> np.ndarray:
    """The result bytes of finished tier ``ply``: its file, or made again from its rows."""
    results = scratch.results(ply)
    if results is not None:
        return results
    results = new_tier(found, ply)
    rows = scratch.rows(ply)
    for start in range(0, len(rows), chunk):
        spread(found, ply, read_range(rows, start, start + chunk), results)
    return results


def merge_scratch(scratch: Scratch, memory: int, steps: Steps | None = None) -> Solved:
    """Every solved position in code order, written once into ``scratch/merged/`` a block at
    a time (resumed after a stop, from what matches its record), and returned memory-mapped."""
    variant = scratch.variant
    parts = [scratch.rows(ply) for ply in range(variant.cells + 1)]
    total = sum(len(part) for part in parts)
    folder = scratch.file("merged")
    os.makedirs(folder, exist_ok=True)
    written, sums = _merged_so_far(scratch, folder, total)
    if written < total:
        block = max(MIN_CHUNK, memory // (4 * BYTES_PER_BOARD))
        _merge(parts, folder, written, sums, block, steps, total)
    return merged_rows(folder, total)


def merged_rows(folder: str, total: int) -> Solved:
    """The ``total`` rows :func:`merge_scratch` wrote into ``folder``, memory-mapped read-only."""
    return Solved(
        *(np.memmap(os.path.join(folder, f"{name}.bin"), dtype=dtype, mode="r", shape=(total,)) if total else
          np.zeros(0, dtype=dtype) for name, dtype in COLUMNS)
    )  # fmt: skip


def _merged_so_far(scratch: Scratch, folder: str, total: int) -> tuple[int, list[checksums.Running]]:
    """The rows merged by an earlier run whose files match their record, with the files'
    running checksums; (0, new checksums) if none can be trusted (said, unless nothing was
    merged)."""
    fresh = [checksums.Running() for _ in COLUMNS]
    record = read_record(os.path.join(folder, "rows.json"))
    if record is None or record.get("total") != total or record["rows"] > total:
        if record is not None or any(os.path.getsize(os.path.join(folder, n)) for n in os.listdir(folder)):
            scratch.say(f"merged/rows.json in {scratch.path} is missing or unreadable: merging again")
        return 0, fresh
    written = record["rows"]
    sums = []
    for name, dtype in COLUMNS:
        entry = record["files"].get(f"{name}.bin")
        size = written * np.dtype(dtype).itemsize
        found = checksums.read_prefix(os.path.join(folder, f"{name}.bin"), size)
        if found is None or [size, found.hash.hexdigest()] != entry:
            why = "is shorter than recorded" if found is None else "does not match its record"
            scratch.say(f"merged/{name}.bin in {scratch.path} {why}: merging again")
            return 0, fresh
        sums.append(found)
    if written:
        scratch.resumed = True
        scratch.say(f"resuming the merge from {scratch.path}: {written:,} of {total:,} rows merged")
    return written, sums


def _merge(
    parts: list[Solved],
    folder: str,
    written: int,
    sums: list[checksums.Running],
    block: int,
    steps: Steps | None,
    total: int,
) -> None:
    """Append the positions after the first ``written`` (in code order) to the merged files,
    recording after each block the rows merged and the files' lengths and checksums."""
    low: int | None = None
    files = []
    for name, dtype in COLUMNS:
        handle = open(os.path.join(folder, f"{name}.bin"), "ab")  # noqa: SIM115 - closed below
        handle.truncate(written * np.dtype(dtype).itemsize)
        files.append(handle)
    if written:
        code = np.fromfile(os.path.join(folder, "code.bin"), dtype="<i8", count=1, offset=(written - 1) * 8)
        low = int(code[0]) + 1
        if steps:
            steps("merging", written, total)
    cuts = [cut for cut in merge_cuts(parts, block) if low is None or cut > low]
    try:
        for merged in merged_blocks(parts, [low, *cuts, None]):
            for handle, running, column, (_name, dtype) in zip(files, sums, merged, COLUMNS):
                append_column(handle, running, column, dtype)
            for handle in files:
                handle.flush()
                os.fsync(handle.fileno())
            written += len(merged)
            entries = {f"{name}.bin": running.entry() for (name, _dtype), running in zip(COLUMNS, sums)}
            write_json(os.path.join(folder, "rows.json"), {"rows": written, "total": total, "files": entries})
            if steps:
                steps("merging", len(merged), total)
    finally:
        for handle in files:
            handle.close()
    sync(folder)


def merge_cuts(parts: list[Solved], block: int) -> list[int]:
    """Codes that cut the code range of the tiers ``parts`` into blocks of about ``block`` rows,
    ascending. The tiers hold disjoint codes, so a block of the code range is its tiers' slices,
    concatenated and sorted (:func:`merged_blocks`). The rows are counted from every
    ``step``-th code of each tier (read from its files: strided reads through a memory map would
    map most of its pages)."""
    step = max(1, block // 4)
    samples = [_samples(part.code, step) for part in parts]
    grid = np.unique(np.concatenate(samples))
    below = np.zeros(len(grid), dtype=np.int64)  # about the rows with a code below each grid point
    for sample in samples:
        below += np.searchsorted(sample, grid) * step
    cuts, passed = [], 0
    for value, count in zip(grid.tolist(), below.tolist()):
        if count - passed >= block:
            cuts.append(value)
            passed = count
    return cuts


def merged_blocks(parts: list[Solved], bounds: Sequence[int | None]) -> Iterator[Solved]:
    """The rows of the tiers ``parts`` in code order, a block between each two ``bounds`` at a
    time (codes from the first to below the second; None: no bound)."""
    for low, high in itertools.pairwise(bounds):
        merged = Solved.concatenate([_between(part, low, high) for part in parts])
        yield merged.take(np.argsort(merged.code, kind="stable"))


def count_outcomes(parts: Sequence[Solved]) -> dict[str, int]:
    """Legal boards by value for the side to move (each canonical row weighted by its orbit)
    over the rows of ``parts``, :data:`COUNT_ROWS` rows of two columns read at a time (a
    memory-mapped column's from its file)."""
    counts = {1: 0, 0: 0, -1: 0}
    for solved in parts:
        for start in range(0, len(solved.code), COUNT_ROWS):
            value = read_slice(solved.value, start, start + COUNT_ROWS)
            orbit = read_slice(solved.orbit, start, start + COUNT_ROWS).astype(np.int64)
            for key in counts:
                counts[key] += int(orbit[value == key].sum())
    return {"win": counts[1], "draw": counts[0], "loss": counts[-1]}


def add_outcomes(counts: Sequence[dict[str, int]]) -> dict[str, int]:
    """The sum of several :func:`count_outcomes`, key by key."""
    return {key: sum(found[key] for found in counts) for key in ("win", "draw", "loss")}


def rows_below(parts: list[Solved], code: int) -> int:
    """How many rows of the tiers ``parts`` have a code below ``code``."""
    return sum(first_at_least(part.code, code) for part in parts)


def _samples(code: np.ndarray, step: int) -> np.ndarray:
    """Every ``step``-th code of a tier's code column, read a million rows at a time (each
    piece's samples copied out: a strided view would keep the whole piece, and so the whole
    column, in memory until the end: 4x5k4's tier 13 is 250 MB of codes)."""
    piece = step * max(1, (1 << 20) // step)  # a whole number of steps
    pieces = [read_slice(code, start, start + piece)[::step].copy() for start in range(0, len(code), piece)]
    return np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int64)


def _between(part: Solved, low: int | None, high: int | None) -> Solved:
    """The rows of a tier with codes from ``low`` to ``high``, read from its files (not through
    its memory maps, whose pages would count against the process until the merge ends)."""
    start = 0 if low is None else first_at_least(part.code, low)
    stop = len(part) if high is None else first_at_least(part.code, high)
    return read_range(part, start, stop)
