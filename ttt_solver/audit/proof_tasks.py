"""The whole-table proof on an engine: each chunk of a tier a task, as a distributed build
solves it (:mod:`ttt_solver.solver.engine_dask`), the report line for line the one process's.

A task gets names and paths, not arrays: the variant's name, the tier and the chunk's ranks,
and files in the folder where verify put each tier's stored rows while reading ``positions``
(one file per column, in code order), which every worker can reach (one machine, or a folder
on a shared file system):

- the tier's stored rows, memory-mapped read-only: the task finds its chunk's code range in
  them (:func:`.retrograde.prove_chunk`, as one process does);
- the tier below's result bytes, memory-mapped read-only: the stored rows found sound there,
  spread to their images by the tasks of the tier below;
- each task writes the images of its chunk's sound rows into a file of its own, grouped by
  range of ranks; then a task per range gathers its images from those files into a file of
  its own, and the driver appends the ranges into the tier's result bytes
  (:mod:`ttt_solver.solver.shuffle`, as the build does): every file has one writer, and is
  read only once its writer synced and closed it.

A task returns its :class:`.retrograde.Findings`; the driver tells them to the report in
chunk order, the chunks being the single process's (:func:`.retrograde.chunks`), so the report
is the same. Nothing is written but those files, in a temporary folder removed after.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import numpy as np

from ..game.variant import Variant
from ..solver.passes import COLUMNS, Solved
from ..solver.scratch import synced_file
from ..solver.shuffle import gather_range, join_ranges, range_bounds, write_images
from ..solver.solve import default_memory
from ..solver.storage import Storage
from ..solver.tiers import tiers
from .report import Report
from .retrograde import Findings, chunks, conclude, prove_chunk

if TYPE_CHECKING:
    from ..solver.solve import Engine, Steps


def column_file(folder: str, ply: int, name: str) -> str:
    """The file of column ``name`` of tier ``ply``'s stored rows in ``folder``."""
    return os.path.join(folder, f"{ply:02d}-{name}.bin")


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
    tier ``ply`` are the ``counts[ply]`` rows in ``folder`` (:func:`tier_rows`)."""
    found = tiers(variant)
    total = int(found.sizes.sum())
    tally: dict[str, int] = {}
    below: str | None = None
    storage = Storage(folder)
    for ply in range(variant.cells, -1, -1):
        cut = chunks(variant, ply, memory)
        bounds = range_bounds(found.size(ply), memory or default_memory(), len(cut))
        calls = [
            (variant.name, ply, start, stop, folder, counts[ply], below, bounds, _images_file(ply, start))
            for start, stop in cut
        ]

        def done(index: int, calls: list[tuple[Any, ...]] = calls) -> None:
            if steps:
                steps("proving", calls[index][3] - calls[index][2], total)

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
        out = os.path.join(folder, f"{ply:02d}-results.bin")
        join_ranges(storage, ranges, out)
        # The chunks' images, the ranges and the tier two below are no longer read.
        for used in [call[-1] for call in calls] + ranges:
            storage.remove(used)
        if below is not None:
            os.remove(below)
        below = out
    conclude(report, tally)


def prove_partition(
    name: str, ply: int, start: int, stop: int, folder: str, count: int, below: str | None, bounds: list[int], out: str
) -> tuple[Findings, list[int]]:
    """A task: prove ranks ``start`` to ``stop`` of tier ``ply`` of variant ``name`` against
    the tier's ``count`` stored rows in ``folder`` and the result bytes in ``below``; write the
    images of the rows found sound into ``out``, grouped by the ranges of ranks starting at
    ``bounds`` (:func:`.shuffle.write_images`); what it found, and where each group starts.
    ``out``: a file name in ``folder``."""
    found = tiers(Variant.parse(name))
    below_bytes = np.memmap(below, dtype=np.uint8, mode="r") if below is not None else None
    proof = prove_chunk(found, ply, start, stop, below_bytes, tier_rows(folder, ply, count))
    with synced_file(os.path.join(folder, out)) as file:
        return proof.findings, write_images(found, ply, proof.sound, bounds, file)


def _images_file(ply: int, start: int) -> str:
    return f"{ply:02d}-{start:015d}.images.bin"
