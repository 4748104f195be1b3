"""The tier pipeline: the one loop that drives the tiers of a build and of a verify, on any
engine (:mod:`.engines`).

From the last ply down, for each tier the pipeline asks the work (:class:`TierWork`: the
build's solve, :mod:`.solving`; verify's proof, :mod:`ttt_solver.audit.proof_tasks`) for
its chunks and runs a task per chunk, which values the chunk from the tier below's result
bytes and writes its images into a file of its own, grouped by range
(:mod:`.shuffle`; for a tier of one range, its rows instead). Then a task per range gathers
that range's images into the range's result bytes (or spreads the rows), the driver joins the ranges into the tier's result bytes (the next tier's ``below``),
and the work records the tier (on a cluster in a thread of the driver, while the next tier's
tasks run).
Once the tier above has used them, a tier's result bytes are released.

Every file sits in the engine's storage under the tier's run folder (``RUN/START.bin`` per
chunk, ``RUN/range-FIRST.bin`` per range) and has one writer; the joined result bytes are a
file of the work's local folder, ``results-PP-RUN.bin``, copied into the storage where the
storage is elsewhere.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any, Protocol

from ..game.variant import Variant
from ..solver import Steps, tiers
from ..solver.checksums import READ
from .engines import Engine
from .shuffle import Below, Exchange, join_ranges, range_bounds, range_tasks
from .storage import Storage

JOINED = "results-"  # the start of a joined file's name in the work's local folder
MIN_JOIN_BLOCK = 1 << 16  # bytes the join copies at a time at least (at most a task's budget's eighth)


@dataclass(frozen=True)
class Tier:
    """A tier the pipeline ran: its ply, its run folder in the storage, each chunk's file
    (its images or its rows, and what else the task wrote) and what each chunk's task
    returned, in chunk order, and its joined result bytes (their name in the work's local
    folder and in the storage, and their CRC-32)."""

    ply: int
    run: str
    chunk_files: list[str]
    found: list[Any]
    joined: Below


class TierWork(Protocol):
    """What one kind of run does with the tiers; the pipeline does the rest."""

    variant: Variant
    folder: str  # the work's local folder (the joined result bytes are written there)
    name: str  # what its tasks are named by
    phase: str  # the steps' phase

    def task(self) -> Callable[..., tuple[Any, Exchange]]:
        """A chunk's task, called ``(storage, chunk_file, below, bounds, *arguments)``: it
        writes into ``chunk_file`` what the tasks of the ranges of ranks starting at ``bounds``
        read (:func:`.shuffle.write_exchange`: its images grouped by range, or its rows), from
        the tier below's result bytes ``below`` (their name in the storage and CRC-32, None for
        the last tier: :func:`.shuffle.below_bytes`); what it found, and where what they read
        is (and its CRC-32s)."""
        ...  # fmt: skip

    def chunks(self, ply: int) -> Sequence[tuple[int, int]]:
        """The chunks (first and last rank) of tier ``ply``."""
        ...  # fmt: skip

    def arguments(self, ply: int, start: int, stop: int) -> tuple[Any, ...]:
        """The rest of the arguments of the task of ranks ``start`` to ``stop`` of tier ``ply``."""
        ...  # fmt: skip

    def prepare(self, ply: int) -> str:
        """Ready tier ``ply`` for its tasks; the folder of the storage its run folder goes in."""
        ...  # fmt: skip

    def below(self, ply: int) -> Below | None:
        """The result bytes of tier ``ply + 1``, which the pipeline did not make in this run:
        their name in the storage and their CRC-32 (None for the last tier)."""
        ...  # fmt: skip

    def record(self, tier: Tier) -> None:
        """Keep what tier ``tier`` made (in a thread of the driver, while the next tier runs)."""
        ...  # fmt: skip


def run_tiers(
    engine: Engine, storage: Storage, work: TierWork, plies: Sequence[int], memory: int, steps: Steps | None = None
) -> None:
    """Run the tiers ``plies`` (from the last ply down) of ``work`` on ``engine``, its files in
    ``storage``; ``memory`` is a task's budget (the ranges' width)."""
    found = tiers(work.variant)
    total = int(found.sizes.sum())
    done: tuple[int, Below] | None = None  # the last tier run and its joined result bytes
    with ThreadPoolExecutor(1) if engine.record_aside else nullcontext() as recorder:
        recording: Future[None] | None = None
        for ply in plies:
            below: Below | None = None
            if done is not None and done[0] == ply + 1:  # the tier above, run just now
                below = done[1]
            else:
                _wait(recording)
                if done is not None:
                    release(storage, work.folder, done[1][0])
                    done = None
                below = work.below(ply)
            tier = _run_tier(engine, storage, work, ply, below, memory, steps, total)
            _wait(recording)  # the tier above recorded: its joined file is no longer needed
            if below is not None:
                release(storage, work.folder, below[0])
            recording, done = _record(recorder, work, tier), (ply, tier.joined)
        _wait(recording)
    if done is not None:
        release(storage, work.folder, done[1][0])


def _record(recorder: ThreadPoolExecutor | None, work: TierWork, tier: Tier) -> Future[None]:
    """``work.record(tier)`` in the recorder's thread, or here and now without one."""
    if recorder is not None:
        return recorder.submit(work.record, tier)
    work.record(tier)
    recorded: Future[None] = Future()
    recorded.set_result(None)
    return recorded


def _wait(recording: Future[None] | None) -> None:
    if recording is not None:
        recording.result()


def _run_tier(
    engine: Engine,
    storage: Storage,
    work: TierWork,
    ply: int,
    below: Below | None,
    memory: int,
    steps: Steps | None,
    total: int,
) -> Tier:
    """Tier ``ply``: its chunks' tasks, its ranges' tasks and the join."""
    run = f"{work.prepare(ply)}/run-{uuid.uuid4().hex}"
    chunks = work.chunks(ply)
    bounds = range_bounds(tiers(work.variant).size(ply), memory, min(len(chunks), engine.slots()))
    files = [f"{run}/{start:015d}.bin" for start, _stop in chunks]
    calls = [
        (storage, file, below, bounds, *work.arguments(ply, start, stop)) for file, (start, stop) in zip(files, chunks)
    ]

    def done(index: int) -> None:
        if steps:
            steps(work.phase, chunks[index][1] - chunks[index][0], total)

    results = engine.run(work.task(), calls, f"{work.name}-{ply}", done)
    ranges = [f"{run}/range-{first:015d}.bin" for first in bounds[:-1]]
    exchanged = [exchange for _found, exchange in results]
    function, gathers = range_tasks(storage, files, exchanged, bounds, ranges, work.variant.name, ply)
    crcs = engine.run(function, gathers, f"{work.name}-{ply}-ranges")
    joined = f"{JOINED}{ply:02d}-{os.path.basename(run)}.bin"
    block = max(MIN_JOIN_BLOCK, min(READ, memory // 8))
    crc = join_ranges(storage, ranges, bounds, crcs, os.path.join(work.folder, joined), block)
    storage.put(os.path.join(work.folder, joined), joined)
    return Tier(ply, run, files, [found for found, _exchange in results], (joined, crc))


def release(storage: Storage, folder: str, name: str) -> None:
    """The result bytes ``name`` are read no more: their copy in the storage is removed (where
    it is not the local ``folder``), and a joined file in ``folder`` (a build's recorded tier
    keeps its other name, ``results.bin``)."""
    if not storage.is_folder(folder):
        storage.remove(name)
    if name.startswith(JOINED):
        os.unlink(os.path.join(folder, name))
