"""The whole-table proof on an engine: each chunk of a tier a task, as a distributed build
solves it (:mod:`ttt_solver.engine.engine_dask`), the report line for line the one process's.

A task gets names, not arrays: the variant's name, the tier and the chunk's ranks, the rows
of the chunk's code range in the tier's stored rows (the driver finds them), and names of
files in the engine's storage (:mod:`ttt_solver.engine.storage`): by default the temporary
folder where verify put each tier's stored rows while reading ``positions`` (one file per
column, in code order), which every worker then reaches by the same path (one machine, or a
folder on a shared file system); with ``--storage``, another such folder or an fsspec URL,
where the driver copies each tier's files before its tasks run:

- the chunk's stored rows, read from the tier's files (at a URL, a byte range of each);
- the tier below's result bytes, memory-mapped read-only (at a URL, downloaded once a
  machine): the stored rows found sound there, spread to their images by the tasks of the
  tier below;
- each task writes the images of its chunk's sound rows into a file of its own, grouped by
  range of ranks; then a task per range gathers its images from those files into a file of
  its own, and the driver appends the ranges into the tier's result bytes
  (:mod:`ttt_solver.engine.shuffle`, as the build does): every file has one writer, and is
  read only once its writer made it whole.

A task returns its :class:`.retrograde.Findings`; the driver tells them to the report in
chunk order, the chunks being the single process's (:func:`.retrograde.chunks`), so the report
is the same. Nothing is written but those files, in a temporary folder removed after (and
the storage's prefix, emptied after).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine.shuffle import gather_range, join_ranges, range_bounds, write_images
from ..engine.storage import Storage
from ..game.variant import Variant
from ..solver.passes import COLUMNS, Solved
from ..solver.solve import default_memory
from ..solver.tiers import tiers
from .report import Report
from .retrograde import Findings, chunk_rows, chunks, conclude, prove_chunk

if TYPE_CHECKING:
    from ..solver.solve import Engine, Steps


def column_file(folder: str, ply: int, name: str) -> str:
    """The file of column ``name`` of tier ``ply``'s stored rows in ``folder``."""
    return os.path.join(folder, _column_name(ply, name))


def tier_rows(folder: str, ply: int, count: int) -> Solved:
    """The ``count`` stored rows of tier ``ply`` in ``folder``, memory-mapped read-only."""
    if count == 0:
        return Solved.empty()
    return Solved(
        *(np.memmap(column_file(folder, ply, name), dtype=dtype, mode="r", shape=(count,)) for name, dtype in COLUMNS)
    )


def prove_tier_files(
    variant: Variant,
    folder: str,
    counts: list[int],
    report: Report,
    engine: Engine,
    memory: int | None = None,
    steps: Steps | None = None,
) -> None:
    """:func:`.retrograde.prove_tiers` with each chunk a task of ``engine``: the stored rows of
    tier ``ply`` are the ``counts[ply]`` rows in ``folder`` (:func:`tier_rows`). The tasks read
    and write their files in the engine's storage (``--storage``; by default ``folder``),
    which is emptied after."""
    storage = engine.storage(folder, f"verify-{variant.name}")
    elsewhere = not storage.is_folder(folder)  # files are copied there, and removed from there
    try:
        _prove_tiers(variant, folder, counts, report, engine, storage, elsewhere, memory, steps)
    finally:
        engine.release(storage)
        storage.clear()


def _prove_tiers(
    variant: Variant,
    folder: str,
    counts: list[int],
    report: Report,
    engine: Engine,
    storage: Storage,
    elsewhere: bool,
    memory: int | None,
    steps: Steps | None,
) -> None:
    found = tiers(variant)
    total = int(found.sizes.sum())
    tally: dict[str, int] = {}
    below: str | None = None
    for ply in range(variant.cells, -1, -1):
        columns = [_column_name(ply, name) for name, _dtype in COLUMNS]
        if counts[ply]:  # a tier without rows has no files
            storage.put_all([(os.path.join(folder, name), name) for name in columns])
        code = tier_rows(folder, ply, counts[ply]).code
        cut = chunks(variant, ply, memory)
        bounds = range_bounds(found.size(ply), memory or default_memory(), len(cut))
        calls = [
            (storage, variant.name, ply, start, stop, chunk_rows(found, ply, start, stop, code), below, bounds,
             _images_file(ply, start))
            for start, stop in cut
        ]  # fmt: skip

        def done(index: int, calls: list[tuple[Any, ...]] = calls) -> None:
            if steps:
                steps("proving", calls[index][4] - calls[index][3], total)

        groups = []
        for findings, group in engine.run(prove_partition, calls, f"verify-{variant.name}-{ply}", done):
            findings.tell(report, tally)
            groups.append(group)
        ranges = [f"{ply:02d}-range-{first:015d}.bin" for first in bounds[:-1]]
        gathers = [
            (storage, [(call[-1], group[r], group[r + 1]) for call, group in zip(calls, groups)],
             bounds[r + 1] - bounds[r], ranges[r])
            for r in range(len(ranges))
        ]  # fmt: skip
        engine.run(gather_range, gathers, f"verify-{variant.name}-{ply}-ranges")
        results = f"{ply:02d}-results.bin"
        join_ranges(storage, ranges, os.path.join(folder, results))
        storage.put(os.path.join(folder, results), results)
        # The chunks' images, the ranges and the tier two below are no longer read, nor are the
        # copies of this tier's rows (their files in ``folder`` are: the packed arrays' check).
        used = [call[-1] for call in calls] + ranges
        if elsewhere:
            used += (columns if counts[ply] else []) + ([below] if below is not None else [])
        storage.remove_all(used)
        if below is not None:
            os.remove(os.path.join(folder, below))
        below = results
    conclude(report, tally)


def prove_partition(
    storage: Storage,
    name: str,
    ply: int,
    start: int,
    stop: int,
    rows: tuple[int, int],
    below: str | None,
    bounds: list[int],
    out: str,
) -> tuple[Findings, list[int]]:
    """A task: prove ranks ``start`` to ``stop`` of tier ``ply`` of variant ``name`` against
    the tier's stored ``rows`` (first and last, those of the chunk's code range) and the
    result bytes ``below``; write the images of the rows found sound into ``out``, grouped by
    the ranges of ranks starting at ``bounds`` (:func:`.shuffle.write_images`); what it found,
    and where each group starts. Every file is in ``storage``."""
    found = tiers(Variant.parse(name))
    below_bytes = storage.mapped(below, np.uint8) if below is not None else None
    first, last = rows
    stored = Solved.empty()
    if last > first:
        stored = Solved(
            *(storage.read(_column_name(ply, column), dtype, first * np.dtype(dtype).itemsize, last - first)
              for column, dtype in COLUMNS)
        )  # fmt: skip
    proof = prove_chunk(found, ply, start, stop, below_bytes, stored)
    with storage.create(out) as file:
        return proof.findings, write_images(found, ply, proof.sound, bounds, file)


def _column_name(ply: int, name: str) -> str:
    return f"{ply:02d}-{name}.bin"


def _images_file(ply: int, start: int) -> str:
    return f"{ply:02d}-{start:015d}.images.bin"
