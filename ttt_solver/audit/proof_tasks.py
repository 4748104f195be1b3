"""The whole-table proof on an engine: the tier pipeline (:mod:`ttt_solver.engine.pipeline`)
with the work of the proof, each chunk a task, the report line for line the one of a proof
held in memory (:func:`.retrograde.prove_tiers`).

A task gets names, not arrays: the variant's name, the tier and the chunk's ranks, the rows
of the chunk's code range in the tier's stored rows (the driver finds them), and names of
files in the engine's storage (:mod:`ttt_solver.engine.storage`): by default the temporary
folder where verify put each tier's stored rows while reading ``positions`` (one file per
column, in code order), which every worker then reaches by the same path (one machine, or a
folder on a shared file system); with ``--storage``, another such folder or an fsspec URL,
where the driver copies each tier's files before its tasks run. A task reads the chunk's
stored rows (at a URL, a byte range of each file) and the tier below's result bytes (the
stored rows found sound there, spread to their images), and writes the images of its chunk's
sound rows (for a tier of one range, their rows: :mod:`ttt_solver.engine.shuffle`).

A task returns its :class:`.retrograde.Findings`; the driver tells them to the report in
chunk order, the chunks being the ones of a proof in memory (:func:`.retrograde.chunks`), so
the report is the same. Nothing is written but those files, in a temporary folder removed
after (and the storage's prefix, emptied after).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine import Below, Exchange, Storage, Tier, below_bytes, run_tiers, write_exchange
from ..game.variant import Variant
from ..solver import COLUMNS, ROW_BYTES, Solved, Steps, default_memory, tiers
from .report import Report
from .retrograde import Findings, chunk_rows, chunks, conclude, prove_chunk

if TYPE_CHECKING:
    from ..engine import Engine


READ_BYTES = 1 << 16  # a tier's stored rows smaller than this are read whole, not mapped


def column_file(folder: str, ply: int, name: str) -> str:
    """The file of column ``name`` of tier ``ply``'s stored rows in ``folder``."""
    return os.path.join(folder, _column_name(ply, name))


def tier_rows(folder: str, ply: int, count: int) -> Solved:
    """The ``count`` stored rows of tier ``ply`` in ``folder``: read where they take less than
    :data:`READ_BYTES`, else memory-mapped read-only (a mapping costs a file's opening, its
    mapping and numpy's memmap object, about 0.1 ms: on 3x3, whose tiers are read some 30
    times a proof, half the CPU of a ``verify``); ValueError if a file is too short."""
    if count == 0:
        return Solved.empty()
    if count * ROW_BYTES >= READ_BYTES:
        return Solved(
            *(
                np.memmap(column_file(folder, ply, name), dtype=dtype, mode="r", shape=(count,))
                for name, dtype in COLUMNS
            )
        )
    columns = [np.fromfile(column_file(folder, ply, name), dtype=dtype, count=count) for name, dtype in COLUMNS]
    if any(len(column) < count for column in columns):
        raise ValueError(f"tier {ply}'s files in {folder!r} hold fewer than its {count:,} rows")
    return Solved(*columns)


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
    memory = memory or default_memory()
    work = _Prove(variant, folder, counts, report, storage, memory)
    try:
        run_tiers(engine, storage, work, range(variant.cells, -1, -1), memory, steps)
        conclude(report, work.tally)
    finally:
        engine.release(storage)
        storage.clear()


class _Prove:
    """The proof's work in the pipeline (:class:`ttt_solver.engine.pipeline.TierWork`)."""

    phase = "proving"

    def __init__(
        self, variant: Variant, folder: str, counts: list[int], report: Report, storage: Storage, memory: int
    ) -> None:
        self.variant, self.folder, self.name = variant, folder, f"verify-{variant.name}"
        self.counts, self.report, self.storage, self.memory = counts, report, storage, memory
        self.elsewhere = not storage.is_folder(folder)  # the rows are copied there, and removed from there
        self.tally: dict[str, int] = {}
        self.codes: dict[int, np.ndarray] = {}

    def task(self) -> Callable[..., tuple[Findings, Exchange]]:
        return prove_chunk_task

    def chunks(self, ply: int) -> list[tuple[int, int]]:
        return chunks(self.variant, ply, self.memory)

    def arguments(self, ply: int, start: int, stop: int) -> tuple[Any, ...]:
        return self.variant.name, ply, start, stop, chunk_rows(tiers(self.variant), ply, start, stop, self.codes[ply])

    def prepare(self, ply: int) -> str:
        if self.counts[ply]:  # a tier without rows has no files
            self.storage.put_all([(os.path.join(self.folder, name), name) for name in self._columns(ply)])
        self.codes[ply] = tier_rows(self.folder, ply, self.counts[ply]).code
        return f"proof-{ply:02d}"

    def below(self, ply: int) -> Below | None:
        assert ply == self.variant.cells, "every tier is proved, from the last"
        return None

    def record(self, tier: Tier) -> None:
        """The chunks' findings told, in chunk order; the tier's files no longer read removed
        (the copies of its stored rows too: their files in the folder are read again, by the
        packed arrays' check)."""
        for findings in tier.found:
            findings.tell(self.report, self.tally)
        del self.codes[tier.ply]
        used = [tier.run] + (self._columns(tier.ply) if self.elsewhere and self.counts[tier.ply] else [])
        self.storage.remove_all(used)

    def _columns(self, ply: int) -> list[str]:
        return [_column_name(ply, name) for name, _dtype in COLUMNS]


def prove_chunk_task(
    storage: Storage,
    chunk_file: str,
    below: Below | None,
    bounds: list[int],
    name: str,
    ply: int,
    start: int,
    stop: int,
    rows: tuple[int, int],
) -> tuple[Findings, Exchange]:
    """A task: prove ranks ``start`` to ``stop`` of tier ``ply`` of variant ``name`` against
    the tier's stored ``rows`` (first and last, those of the chunk's code range) and the
    result bytes ``below`` (:func:`ttt_solver.engine.shuffle.below_bytes`); write into
    ``chunk_file`` what the tasks of the ranges of ranks starting at ``bounds`` read of the rows
    found sound (:func:`ttt_solver.engine.shuffle.write_exchange`: their images grouped by
    range, or their code, value and remoteness for one range); what it found, and where what
    they read is (and its CRC-32s). Every file is in ``storage``."""
    found = tiers(Variant.parse(name))
    first, last = rows
    stored = Solved.empty()
    if last > first:
        stored = Solved(
            *(storage.read(_column_name(ply, column), dtype, first * np.dtype(dtype).itemsize, last - first)
              for column, dtype in COLUMNS)
        )  # fmt: skip
    proof = prove_chunk(found, ply, start, stop, below_bytes(storage, below), stored)
    with storage.create(chunk_file) as file:
        return proof.findings, write_exchange(found, ply, proof.sound, bounds, file)


def _column_name(ply: int, name: str) -> str:
    return f"{ply:02d}-{name}.bin"
