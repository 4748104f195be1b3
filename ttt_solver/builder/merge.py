"""A build's solved tiers merged into code order: every position written once into the scratch
folder's ``merged/`` a block at a time (resumed after a stop from what matches its record), or
a block of it between two codes (a shard's task, :mod:`.shard_write`); and the legal boards by
value of merged rows.

The tiers hold disjoint codes, so a block of the code range is its tiers' slices, concatenated
and sorted (:func:`merged_blocks`).
"""

from __future__ import annotations

import itertools
import mmap
import os
from collections.abc import Iterator, Sequence

import numpy as np

from ..engine import Scratch, append_column, first_at_least, read_into, read_slice
from ..solver import BYTES_PER_BOARD, MIN_CHUNK, STORED_COLUMNS, STORED_ROW_BYTES, Steps, StoredRows, checksums
from ..system.files import read_record, sync, write_json

COUNT_ROWS = 1 << 22  # rows read at a time by count_outcomes
ORBIT_MOST = 8  # boards in an orbit, at most (a square board's symmetries)
# Rows merged at a time into columns held in memory: a block's copies (its tiers' slices, read
# into memory every block reuses, and their order) stay a few tens of MB beside the columns.
HELD_BLOCK = 1 << 20
SAMPLE_GAP = 1 << 13  # rows between the codes merge_cuts samples, from which each is read alone (64 KB apart)


def merge_scratch(scratch: Scratch, memory: int, steps: Steps | None = None) -> StoredRows:
    """Every solved position in code order, written once into ``scratch/merged/`` a block at
    a time (resumed after a stop, from what matches its record), and returned memory-mapped;
    where the rows fit half the budget, merged in memory instead (:func:`merge_held`): the solve
    is over, and what the write adds to them is the fixed overhead beyond the budget (4x5k4's
    168.7 million rows: 3 GB, held under the default budget of this machine, 8 GiB)."""
    variant = scratch.variant
    rows_by_tier = [scratch.rows(ply) for ply in range(variant.cells + 1)]
    total = sum(len(rows) for rows in rows_by_tier)
    if held_bytes(total) <= memory // 2:
        return merge_held(rows_by_tier, total, steps)
    folder = scratch.file("merged")
    os.makedirs(folder, exist_ok=True)
    written, sums = _merged_so_far(scratch, folder, total)
    if written < total:
        block = max(MIN_CHUNK, memory // (4 * BYTES_PER_BOARD))
        _merge(rows_by_tier, folder, written, sums, block, steps, total)
    return merged_rows(folder, total)


def held_bytes(total: int) -> int:
    """The memory :func:`merge_held` takes for ``total`` rows: their columns and a block's copies."""
    return (total + 3 * min(total, HELD_BLOCK)) * STORED_ROW_BYTES


def merge_held(rows_by_tier: list[StoredRows], total: int, steps: Steps | None = None) -> StoredRows:
    """The ``total`` rows of the tiers ``rows_by_tier`` in code order, in memory, merged
    :data:`HELD_BLOCK` rows at a time into their columns. Nothing to resume: a stopped build
    merges them again, in seconds (3x6k4's 20.8 million rows: about 0.7 s of CPU, against 1.4 s
    through files written, hashed, synced and read again by the write)."""
    merged = _populated_columns(total)
    spans = _spans(rows_by_tier, [None, *merge_cuts(rows_by_tier, HELD_BLOCK), None])
    slices = _columns(_most(spans))
    at = 0
    for block in spans:
        rows = _read_block(rows_by_tier, block, slices)
        _in_order(rows, merged.take(slice(at, at + len(rows))))
        at += len(rows)
        if steps:
            steps("merging", len(rows), total)
    return merged


def merged_rows(folder: str, total: int) -> StoredRows:
    """The ``total`` rows :func:`merge_scratch` wrote into ``folder``, memory-mapped read-only."""
    return StoredRows(
        *(np.memmap(os.path.join(folder, f"{name}.bin"), dtype=dtype, mode="r", shape=(total,)) if total else
          np.zeros(0, dtype=dtype) for name, dtype in STORED_COLUMNS)
    )  # fmt: skip


def is_mapped(rows: StoredRows) -> bool:
    """Whether ``rows`` are :func:`merged_rows`: mapped from the merge's files, not held in memory."""
    return isinstance(rows.code, np.memmap)


def _merged_so_far(scratch: Scratch, folder: str, total: int) -> tuple[int, list[checksums.Running]]:
    """The rows merged by an earlier run whose files match their record, with the files'
    running checksums; (0, new checksums) if none can be trusted (said, unless nothing was
    merged)."""
    fresh = [checksums.Running() for _ in STORED_COLUMNS]
    record = read_record(os.path.join(folder, "rows.json"))
    if record is None or record.get("total") != total or record["rows"] > total:
        if record is not None or any(os.path.getsize(os.path.join(folder, n)) for n in os.listdir(folder)):
            scratch.say(f"merged/rows.json in {scratch.path} is missing or unreadable: merging again")
        return 0, fresh
    written = record["rows"]
    sums = []
    for name, dtype in STORED_COLUMNS:
        entry = record["files"].get(f"{name}.bin")
        size = written * np.dtype(dtype).itemsize
        found = checksums.read_prefix(os.path.join(folder, f"{name}.bin"), size)
        if found is None or [size, found.checksum()] != entry:
            why = "is shorter than recorded" if found is None else "does not match its record"
            scratch.say(f"merged/{name}.bin in {scratch.path} {why}: merging again")
            return 0, fresh
        sums.append(found)
    if written:
        scratch.resumed = True
        scratch.say(f"resuming the merge from {scratch.path}: {written:,} of {total:,} rows merged")
    return written, sums


def _merge(
    rows_by_tier: list[StoredRows],
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
    for name, dtype in STORED_COLUMNS:
        handle = open(os.path.join(folder, f"{name}.bin"), "ab")  # noqa: SIM115 - closed below
        handle.truncate(written * np.dtype(dtype).itemsize)
        files.append(handle)
    if written:
        code = np.fromfile(os.path.join(folder, "code.bin"), dtype="<i8", count=1, offset=(written - 1) * 8)
        low = int(code[0]) + 1
        if steps:
            steps("merging", written, total)
    cuts = [cut for cut in merge_cuts(rows_by_tier, block) if low is None or cut > low]
    try:
        for merged in merged_blocks(rows_by_tier, [low, *cuts, None]):
            for handle, running, column, (_name, dtype) in zip(files, sums, merged, STORED_COLUMNS):
                append_column(handle, running, column, dtype)
            for handle in files:
                handle.flush()
                os.fsync(handle.fileno())
            written += len(merged)
            entries = {f"{name}.bin": running.entry() for (name, _dtype), running in zip(STORED_COLUMNS, sums)}
            write_json(os.path.join(folder, "rows.json"), {"rows": written, "total": total, "files": entries})
            if steps:
                steps("merging", len(merged), total)
    finally:
        for handle in files:
            handle.close()
    sync(folder)


def merge_cuts(rows_by_tier: list[StoredRows], block: int) -> list[int]:
    """Codes that cut the code range of the tiers ``rows_by_tier`` into blocks of about ``block`` rows,
    ascending. The tiers hold disjoint codes, so a block of the code range is its tiers' slices,
    concatenated and sorted (:func:`merged_blocks`). The rows are counted from every
    ``step``-th code of each tier (read from its files: strided reads through a memory map would
    map most of its pages)."""
    step = max(1, block // 4)
    samples = [_samples(rows.code, step) for rows in rows_by_tier]
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


def merged_blocks(rows_by_tier: list[StoredRows], bounds: Sequence[int | None]) -> Iterator[StoredRows]:
    """The rows of the tiers ``rows_by_tier`` in code order, a block between each two ``bounds`` at a
    time (codes from the first to below the second; None: no bound), each block in the memory
    of the one before (a caller keeps none)."""
    spans = _spans(rows_by_tier, bounds)
    most = _most(spans)
    slices, ordered = _columns(most), _columns(most)
    for block in spans:
        rows = _read_block(rows_by_tier, block, slices)
        yield _in_order(rows, ordered.take(slice(len(rows))))


def _columns(rows: int) -> StoredRows:
    return StoredRows(*(np.empty(rows, dtype=dtype) for _name, dtype in STORED_COLUMNS))


def _populated_columns(rows: int) -> StoredRows:
    """Columns of ``rows`` rows in one anonymous mapping whose pages the system gives at once
    (``MAP_POPULATE``; numpy's own where there is none). numpy's arrays of more than a few MB
    ask for huge pages, and in a build (memory fragmented, its page cache full of the tiers)
    the system compacts memory for each as it is first written: 3x6k4's merge cost 1.04-1.30 s
    of CPU so, 0.72-0.78 s with its 458 MB of columns populated at once in small pages."""
    populate = getattr(mmap, "MAP_POPULATE", None)
    if not rows or populate is None:
        return _columns(rows)
    sizes = [
        -(-rows * np.dtype(dtype).itemsize // 64) * 64 for _name, dtype in STORED_COLUMNS
    ]  # each column 64-byte aligned
    starts = itertools.accumulate(sizes, initial=0)
    memory = mmap.mmap(-1, sum(sizes), flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | populate)
    return StoredRows(
        *(
            np.frombuffer(memory, dtype=dtype, count=rows, offset=at)
            for (_name, dtype), at in zip(STORED_COLUMNS, starts)
        )
    )


def _spans(rows_by_tier: list[StoredRows], bounds: Sequence[int | None]) -> list[list[tuple[int, int]]]:
    """For each two ``bounds``, each tier's first and end row with codes from the first to below
    the second (None: no bound)."""
    return [[_span(rows, low, high) for rows in rows_by_tier] for low, high in itertools.pairwise(bounds)]


def _most(spans: list[list[tuple[int, int]]]) -> int:
    """The rows of the largest block of ``spans``."""
    return max(sum(stop - start for start, stop in block) for block in spans)


def _read_block(rows_by_tier: list[StoredRows], block: list[tuple[int, int]], slices: StoredRows) -> StoredRows:
    """The tiers' rows of ``block`` read one tier after another into ``slices``, memory every
    block reuses: memory new to each block took fresh pages from the system every time (3x6k4's
    merge in memory: 186,000 page faults in three runs, 43,000 now, and half its CPU)."""
    rows = 0
    for tier, (start, stop) in zip(rows_by_tier, block):
        for column, into in zip(tier, slices):
            read_into(column, start, into[rows : rows + stop - start])
        rows += stop - start
    return slices.take(slice(rows))


def _in_order(rows: StoredRows, out: StoredRows) -> StoredRows:
    """The rows ``rows`` (of disjoint codes) in code order, gathered into the columns of ``out``."""
    order = np.argsort(rows.code, kind="stable")  # timsort: the tiers' slices are sorted runs
    for column, target in zip(rows, out):
        np.take(column, order, out=target, mode="clip")  # "raise" would gather into a copy of out first
    return out


def count_outcomes(rows_by_tier: Sequence[StoredRows]) -> dict[str, int]:
    """Legal boards by value for the side to move (each canonical row weighted by its orbit)
    over the rows of ``rows_by_tier``, :data:`COUNT_ROWS` rows of two columns read at a time (a
    memory-mapped column's from its file)."""
    orbits = ORBIT_MOST + 1
    pairs = np.zeros(3 * orbits, dtype=np.int64)  # rows by (orbit, value + 1): one pass of bincount
    for solved in rows_by_tier:
        for start in range(0, len(solved.code), COUNT_ROWS):
            value = read_slice(solved.value, start, start + COUNT_ROWS)
            orbit = read_slice(solved.orbit, start, start + COUNT_ROWS)
            pairs += np.bincount(3 * orbit.astype(np.intp) + value + 1, minlength=len(pairs))
    boards = (pairs.reshape(orbits, 3) * np.arange(orbits)[:, None]).sum(axis=0).tolist()
    return {"win": boards[2], "draw": boards[1], "loss": boards[0]}


def add_outcomes(counts: Sequence[dict[str, int]]) -> dict[str, int]:
    """The sum of several :func:`count_outcomes`, key by key."""
    return {key: sum(found[key] for found in counts) for key in ("win", "draw", "loss")}


def rows_below(rows_by_tier: list[StoredRows], code: int) -> int:
    """How many rows of the tiers ``rows_by_tier`` have a code below ``code``."""
    return sum(first_at_least(rows.code, code) for rows in rows_by_tier)


def _samples(code: np.ndarray, step: int) -> np.ndarray:
    """Every ``step``-th code of a tier's code column. From a file, where the samples are
    :data:`SAMPLE_GAP` rows apart or more, each read alone (3x6k4's held merge: 80 reads, where
    its 166 MB of codes read whole cost 0.05 s of CPU); else a million rows at a time (each
    piece's samples copied out: a strided view would keep the whole piece, and so the whole
    column, in memory until the end: 4x5k4's tier 13 is 250 MB of codes)."""
    if isinstance(code, np.memmap) and code.filename is not None and step >= SAMPLE_GAP:
        with open(code.filename, "rb") as file:
            at = range(code.offset, code.offset + len(code) * code.itemsize, step * code.itemsize)
            return np.frombuffer(b"".join(os.pread(file.fileno(), code.itemsize, offset) for offset in at), code.dtype)
    piece = step * max(1, (1 << 20) // step)  # a whole number of steps
    pieces = [read_slice(code, start, start + piece)[::step].copy() for start in range(0, len(code), piece)]
    return np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int64)


def _span(rows: StoredRows, low: int | None, high: int | None) -> tuple[int, int]:
    """The first and the end row of a tier's rows with codes from ``low`` to ``high``."""
    start = 0 if low is None else first_at_least(rows.code, low)
    stop = len(rows) if high is None else first_at_least(rows.code, high)
    return start, stop
