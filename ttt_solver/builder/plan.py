"""A build's plan, made before anything is solved: each tier's boards, legal and canonical
positions and bytes; the CPU time, memory, shuffle volume and disk of the whole build; and
whether this machine can build it on its own.

The boards of each tier are exact (:func:`ttt_solver.system.cost_model.tier_sizes`). Its legal
and canonical positions are estimated from :data:`SAMPLES` boards drawn from the tier (fixed
seed: the same plan every time) and judged by the pure-Python rules: a legal board stands for
``1 / orbit`` canonical rows, since each orbit of legal boards is one row. Nothing here builds
a table over half codes (seconds and 2 GB for 25 cells), so a plan of 5x5k4 takes well under a
second, and a build this machine cannot hold is refused before it writes anything
(:func:`check_machine`). What the build takes is the cost model's
(:mod:`ttt_solver.system.cost_model`), given these tiers.
"""

from __future__ import annotations

import os
import random
import shutil
from dataclasses import dataclass

from ..engine import IMAGE_BYTES
from ..errors import MachineTooSmallError
from ..game import rules
from ..game.symmetry import orbit_size
from ..game.variant import Variant
from ..solver import STORED_ROW_BYTES
from ..system import compiled_loops, cost_model
from ..system.cost_model import duration, fits_one_machine, one_machine_memory, tier_sizes
from ..system.memory import machine_memory, size_text

SAMPLES = 400  # boards drawn from each tier
LONG_SECONDS = 2.0
"""Work this plan puts at this much CPU or more (a build, a verify, a build on first use) says
up front what it takes (:func:`takes`): it lasts some seconds, more on a busy machine."""
COSTS = "ttt_solver/system/cost_model.py"  # where the measured costs are, and how they were measured


@dataclass(frozen=True)
class TierPlan:
    """One tier: its boards (exact), legal and canonical positions (estimated) and bytes."""

    ply: int
    boards: int
    legal: int
    canonical: int

    @property
    def result_bytes(self) -> int:
        return self.boards + 1  # one byte per board by rank, and one for a taken cell's "child"

    @property
    def scratch_bytes(self) -> int:
        return cost_model.scratch_bytes(self.canonical, self.boards)

    @property
    def file_bytes(self) -> int:
        return cost_model.file_bytes(self.canonical)


@dataclass(frozen=True)
class Plan:
    """What building ``variant`` takes, and whether this machine can build it alone."""

    variant: Variant
    tiers: tuple[TierPlan, ...]
    memory: int | None  # this machine's memory (None: unknown)
    free_disk: int  # free bytes where the build would write

    @property
    def rows(self) -> int:
        return sum(tier.canonical for tier in self.tiers)

    @property
    def legal(self) -> int:
        return sum(tier.legal for tier in self.tiers)

    @property
    def cpu_seconds(self) -> float:
        """The CPU of a build in one process (:func:`ttt_solver.system.cost_model.build_seconds`)."""
        return self.cpu_on(1)

    def cpu_on(self, processes: int) -> float:
        """The CPU of a build whose tiers ``processes`` processes solve (each starts and builds
        the tier tables: the driver and an engine's workers)."""
        return cost_model.build_seconds(self.variant, self.legal, self.rows, processes)

    @property
    def worker_memory(self) -> int:
        """A worker of a distributed build: a chunk's work and the tier tables."""
        return cost_model.worker_memory(self.variant)

    @property
    def build_memory(self) -> int:
        """The peak of a build in one process (:func:`ttt_solver.system.cost_model.build_memory`)."""
        return cost_model.build_memory(self.variant)

    @property
    def one_machine_memory(self) -> int:
        """The least a build in one process keeps (:func:`ttt_solver.system.cost_model.one_machine_memory`)."""
        return one_machine_memory(self.variant)

    @property
    def shuffle_bytes(self) -> int:
        """Bytes that pass between the tasks of a distributed build through the shared folder:
        for each tier, the tier below's result bytes gathered; its rows written by the tasks
        and gathered into the tier's files; its images (one a symmetry of each row) written
        by the tasks and gathered by range; the ranges' result bytes written and gathered
        (:mod:`ttt_solver.engine.shuffle`)."""
        below = [0, *(tier.result_bytes for tier in self.tiers[:-1])]  # tiers are listed from the last ply
        image = 2 * len(self.variant.symmetries) * IMAGE_BYTES
        return sum(
            b + t.canonical * (2 * STORED_ROW_BYTES + image) + 2 * t.result_bytes for b, t in zip(below, self.tiers)
        )

    @property
    def disk_bytes(self) -> int:
        """The scratch folder at its peak and the database file
        (:func:`ttt_solver.system.cost_model.disk_bytes`, with the sampled canonical rows)."""
        widest = max(tier.boards for tier in self.tiers)
        return cost_model.disk_bytes(self.rows, widest, max(tier.legal for tier in self.tiers))

    def problem(self) -> str | None:
        """Why this machine cannot build the variant alone (None: it can)."""
        return machine_problem(self.variant, self.one_machine_memory, self.disk_bytes, self.memory, self.free_disk)

    def report(self) -> dict[str, object]:
        """The plan as JSON's fields (``build --plan --json``): what :meth:`lines` says, in
        numbers (bytes, CPU seconds)."""
        return {
            "variant": self.variant.name,
            "cells": self.variant.cells,
            "symmetries": len(self.variant.symmetries),
            "sampled_boards_a_tier": SAMPLES,
            "tiers": [
                {
                    "ply": t.ply, "boards": t.boards, "legal": t.legal, "canonical": t.canonical,
                    "result_bytes": t.result_bytes, "scratch_bytes": t.scratch_bytes, "file_bytes": t.file_bytes,
                }
                for t in self.tiers
            ],
            "boards": sum(t.boards for t in self.tiers),
            "legal": self.legal,
            "rows": self.rows,
            "cpu_seconds": round(self.cpu_seconds, 1),
            "passes": "compiled" if compiled_loops.installed() else "numpy",
            "worker_memory_bytes": self.worker_memory,
            "build_memory_bytes": self.build_memory,
            "least_memory_bytes": self.one_machine_memory,
            "shuffle_bytes": self.shuffle_bytes,
            "disk_bytes": self.disk_bytes,
            "machine": {"memory_bytes": self.memory, "free_disk_bytes": self.free_disk, "problem": self.problem()},
        }  # fmt: skip

    def lines(self) -> list[str]:
        """The plan as text: a table of the tiers, then the totals."""
        v = self.variant
        found = [
            (
                f"plan for {v}: {v.cells} cells, {len(v.symmetries)} symmetries, {len(self.tiers)} tiers"
                f" (boards exact; legal and canonical positions estimated from {SAMPLES} sampled boards a tier)"
            ),
            f"{'ply':>4} {'boards':>17} {'legal ~':>17} {'canonical ~':>17} {'results':>9} {'scratch':>9} {'file':>9}",
        ]
        for t in self.tiers:
            found.append(
                f"{t.ply:>4} {t.boards:>17,} {t.legal:>17,} {t.canonical:>17,} {size_text(t.result_bytes):>9}"
                f" {size_text(t.scratch_bytes):>9} {size_text(t.file_bytes):>9}"
            )
        boards, legal, rows = (sum(getattr(t, name) for t in self.tiers) for name in ("boards", "legal", "canonical"))
        found += [
            f"total: {boards:,} boards, about {legal:,} legal positions in {rows:,} canonical rows",
            (
                f"CPU: about {duration(self.cpu_seconds)}, every process counted, {passes_said()}"
                f" (costs measured on this code: {COSTS})"
            ),
            (
                f"memory: about {size_text(self.worker_memory)} per worker of a distributed build;"
                f" about {size_text(self.build_memory)} in one process, at least"
                f" {size_text(self.one_machine_memory)} (two tiers' result bytes)"
            ),
            f"shuffle: about {size_text(self.shuffle_bytes)} through the shared scratch folder",
            f"disk: about {size_text(self.disk_bytes)} (scratch folder and database file)",
        ]
        memory = size_text(self.memory) if self.memory is not None else "unknown"
        here = f"this machine: {memory} of memory, {size_text(self.free_disk)} of free disk: "
        why = self.problem()
        found.append(here + (f"cannot build it alone ({why})" if why else "can build it alone"))
        return found


def machine_problem(variant: Variant, memory: int, disk: int, have_memory: int | None, free_disk: int) -> str | None:
    """Why a build needing ``memory`` and ``disk`` does not fit a machine that has ``have_memory``
    and ``free_disk`` (None: it fits)."""
    if have_memory is not None and memory > have_memory:
        return _keeps(variant, memory)
    if disk > free_disk:
        return f"a build of {variant} writes about {size_text(disk)} to the disk"
    return None


def _keeps(variant: Variant, memory: int) -> str:
    return f"a build of {variant} keeps at least {size_text(memory)} of memory"


def make_plan(variant: Variant, folder: str) -> Plan:
    """The plan of building ``variant`` with its files under ``folder`` (for the free disk)."""
    rng = random.Random(variant.name)
    tiers = tuple(_tier(variant, ply, boards, rng) for ply, boards in reversed(list(enumerate(tier_sizes(variant)))))
    return Plan(variant, tiers, machine_memory(), free_disk(folder))


def check_machine(variant: Variant, folder: str) -> None:
    """MachineTooSmallError (with the plan, made only then) if this machine's memory cannot hold
    a build of ``variant`` in one process (microseconds: exact tier sizes, nothing sampled).
    Too little free disk is the build's own refusal (:func:`ttt_solver.builder.disk.check_room`)."""
    if not fits_one_machine(variant):
        raise MachineTooSmallError(
            f"cannot build {variant} on this machine alone: {_keeps(variant, one_machine_memory(variant))};"
            " build it on a cluster with:"
            f" ttt-lookup build --variant {variant.name} --engine dask [--address ADDRESS]",
            make_plan(variant, folder),
        )


def free_disk(folder: str) -> int:
    """Free bytes on the disk of ``folder``, or of its nearest existing parent."""
    folder = os.path.abspath(folder)
    while not os.path.isdir(folder) and os.path.dirname(folder) != folder:
        folder = os.path.dirname(folder)
    return shutil.disk_usage(folder).free


def _tier(variant: Variant, ply: int, boards: int, rng: random.Random) -> TierPlan:
    """A tier's estimate: each sampled board that is legal counts ``1 / orbit`` rows."""
    n, x = variant.cells, (ply + 1) // 2
    legal = rows = 0.0
    samples = min(SAMPLES, boards)
    for _ in range(samples):
        cells = rng.sample(range(n), ply)
        board = ["."] * n
        for i, cell in enumerate(cells):
            board[cell] = "X" if i < x else "O"
        text = "".join(board)
        if rules.legality_error(text, variant) is None:
            legal += 1
            rows += 1 / orbit_size(text, variant)
    return TierPlan(ply, boards, round(boards * legal / samples), round(boards * rows / samples))


def passes_said() -> str:
    """Which passes the plan's solve is costed for: the compiled ones where they will run."""
    if compiled_loops.installed():
        return "with the compiled passes"
    return "with numpy's passes (the compiled ones cost less: install with a C compiler at hand)"


def takes(seconds: float, disk: int, memory: int, disk_what: str = "of disk") -> str:
    """What a run takes, in words: ``about 34 s of CPU, 1.2GB of disk and memory within its
    budget of 8GB`` (``memory``: the budget; no disk said where it writes none)."""
    written = f", {size_text(disk)} {disk_what}" if disk else ""
    return f"about {duration(seconds)} of CPU{written} and memory within its budget of {size_text(memory)}"
