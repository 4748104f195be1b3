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
- the tier's own result bytes, memory-mapped for writing: each task spreads its chunk's sound
  rows (every board is the image of one canonical position, in one chunk: disjoint bytes).

A task returns its :class:`.retrograde.Findings`; the driver tells them to the report in
chunk order, the chunks being the single process's (:func:`.retrograde.chunks`), so the report
is the same. Nothing is written but those files, in a temporary folder removed after.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np

from ..game.variant import Variant
from ..solver.passes import COLUMNS, Solved, new_tier_file, spread
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
    for ply in range(variant.cells, -1, -1):
        out = os.path.join(folder, f"{ply:02d}-results.bin")
        new_tier_file(found, ply, out)
        calls = [
            (variant.name, ply, start, stop, folder, counts[ply], below, out)
            for start, stop in chunks(variant, ply, memory)
        ]

        def done(index: int, calls: list[tuple[str, int, int, int, str, int, str | None, str]] = calls) -> None:
            if steps:
                steps("proving", calls[index][3] - calls[index][2], total)

        for findings in engine.run(prove_partition, calls, f"verify-{variant.name}-{ply}", done):
            findings.tell(report, tally)
        if below is not None:
            os.remove(below)  # the tier two below is no longer read
        below = out
    conclude(report, tally)


def prove_partition(
    name: str, ply: int, start: int, stop: int, folder: str, count: int, below: str | None, out: str
) -> Findings:
    """A task: prove ranks ``start`` to ``stop`` of tier ``ply`` of variant ``name`` against
    the tier's ``count`` stored rows in ``folder`` and the result bytes in ``below``; spread
    the rows found sound into ``out``; what it found."""
    found = tiers(Variant.parse(name))
    below_bytes = np.memmap(below, dtype=np.uint8, mode="r") if below is not None else None
    proof = prove_chunk(found, ply, start, stop, below_bytes, tier_rows(folder, ply, count))
    results = np.memmap(out, dtype=np.uint8, mode="r+")
    spread(found, ply, proof.sound, results)
    results.flush()
    return proof.findings
