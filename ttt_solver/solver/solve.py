"""Solve a variant: every tier from the last ply to the first, a chunk at a time, under a
memory budget.

:func:`solve_tables` keeps everything in memory (small variants, the tests);
:func:`solve_scratch` streams each finished tier into a scratch folder
(:mod:`ttt_solver.solver.scratch`) and resumes there after a stop, and :func:`merge_scratch`
then writes every position in code order into the same folder, a block at a time. Both run
the same passes (:mod:`ttt_solver.solver.passes`) over the same chunks; peak memory is the
chunk's work plus the result bytes of two tiers (the widest tier of 4x5 has 133 million
boards: 133 MB), whatever the size of the game.

Values are +1 win, 0 draw, -1 loss for the side to move (see :mod:`ttt_solver.game.values`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from ..game.variant import Variant
from .passes import COLUMNS, Solved, new_tier, solve_chunk, spread
from .scratch import Scratch, _sync, _write_json, read_slice
from .tiers import Tiers, tiers

Note = Callable[[str], None]  # one line about the run
Steps = Callable[[str, int, int], None]  # (phase, units just done, units in the phase)

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
        from ..game import array_rules, codec

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
            progress(f"{variant}: ply {ply}: {_positions(sum(len(p) for p in tier))}")
    solved = Solved.concatenate(parts)
    return Tables(variant, solved.take(np.argsort(solved.code, kind="stable")))


def _positions(count: int) -> str:
    return f"{count:,} position{'' if count == 1 else 's'}"


def solve_scratch(scratch: Scratch, memory: int, note: Note | None = None, steps: Steps | None = None) -> None:
    """Solve the tiers that ``scratch`` does not hold yet, from the last ply to the first."""
    variant = scratch.variant
    found = tiers(variant)
    chunk = chunk_boards(variant, memory)
    plies = range(variant.cells, -1, -1)
    done = [ply for ply in plies if scratch.finished(ply)]
    todo = [ply for ply in plies if not scratch.finished(ply)]
    if todo and done and note:
        note(f"{variant}: resuming from {scratch.path}: plies {max(done)} to {min(done)} were solved")
    if steps and done:
        steps("solving", int(found.sizes[done].sum()), int(found.sizes.sum()))
    for ply in todo:
        below = scratch.results(ply + 1) if ply < variant.cells else None
        with scratch.tier(ply, found.size(ply)) as (out, sink):
            for solved in _solve_tier(found, ply, below, out, chunk, steps):
                sink.append(solved)
        del below
        if note:
            note(f"{variant}: ply {ply}: {_positions(sink.rows)}")


def merge_scratch(scratch: Scratch, memory: int, steps: Steps | None = None) -> Solved:
    """Every solved position in code order, written once into ``scratch/merged/`` a block at
    a time (resumed after a stop), and returned memory-mapped."""
    variant = scratch.variant
    parts = [scratch.rows(ply) for ply in range(variant.cells + 1)]
    total = sum(len(part) for part in parts)
    folder = scratch.file("merged")
    os.makedirs(folder, exist_ok=True)
    progress = os.path.join(folder, "rows.json")
    try:
        with open(progress) as file:
            written = int(json.load(file)["rows"])
    except (OSError, ValueError, KeyError):
        written = 0
    if written < total:
        _merge(parts, folder, written, max(MIN_CHUNK, memory // (4 * BYTES_PER_BOARD)), progress, steps, total)
    return Solved(
        *(np.memmap(os.path.join(folder, f"{name}.bin"), dtype=dtype, mode="r", shape=(total,)) if total else
          np.zeros(0, dtype=dtype) for name, dtype in COLUMNS)
    )  # fmt: skip


def _merge(
    parts: list[Solved], folder: str, written: int, block: int, progress: str, steps: Steps | None, total: int
) -> None:
    """Append the positions after the first ``written`` (in code order) to the merged files."""
    # The tiers hold disjoint codes, so a block of the code range is its tiers' slices,
    # concatenated and sorted. Cut the range where about ``block`` rows have passed.
    grid = np.unique(np.concatenate([part.code[:: max(1, block // 4)] for part in parts if len(part)]))
    below = np.zeros(len(grid), dtype=np.int64)  # rows with a code below each grid point
    for part in parts:
        below += np.searchsorted(part.code, grid)
    low: int | None = None
    files = []
    for name, dtype in COLUMNS:
        handle = open(os.path.join(folder, f"{name}.bin"), "ab")  # noqa: SIM115 - closed below
        handle.truncate(written * np.dtype(dtype).itemsize)
        files.append(handle)
    if written:
        last = np.memmap(os.path.join(folder, "code.bin"), dtype="<i8", mode="r", shape=(written,))[-1]
        low = int(last) + 1
        if steps:
            steps("merging", written, total)
    bounds: list[int | None] = []
    passed = written
    for value, count in zip(grid.tolist(), below.tolist()):
        if count - passed >= block and (low is None or value > low):
            bounds.append(value)
            passed = count
    bounds.append(None)
    try:
        for high in bounds:
            merged = Solved.concatenate([_between(part, low, high) for part in parts])
            merged = merged.take(np.argsort(merged.code, kind="stable"))
            for handle, column, (_name, dtype) in zip(files, merged, COLUMNS):
                handle.write(column.astype(dtype, copy=False).tobytes())
            for handle in files:
                handle.flush()
                os.fsync(handle.fileno())
            written += len(merged)
            _write_json(progress, {"rows": written})
            if steps:
                steps("merging", len(merged), total)
            low = high
    finally:
        for handle in files:
            handle.close()
    _sync(folder)


def _between(part: Solved, low: int | None, high: int | None) -> Solved:
    """The rows of a tier with codes from ``low`` to ``high``, read from its files (not through
    its memory maps, whose pages would count against the process until the merge ends)."""
    start = 0 if low is None else int(np.searchsorted(part.code, low))
    stop = len(part) if high is None else int(np.searchsorted(part.code, high))
    return Solved(*(read_slice(column, start, stop) for column in part))
