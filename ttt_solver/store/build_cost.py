"""What building a variant's database takes, estimated before anyone starts it; and the error
a read raises when the default database is missing.

Reading never builds (:mod:`ttt_solver.builder.first_use` decides what is built on first use).
When a database is missing, the user is told the exact command that builds it and what that
costs, scaled from measured builds by the number of boards in the variant's tiers (every
board with legal piece counts: the boards the solver passes over, the sum of
:attr:`ttt_solver.solver.tiers.Tiers.sizes`). The measured builds (one core, default budget):

====== ===== =============== ========= ======== ======= ======
variant cells canonical rows  CPU       peak RSS scratch file
====== ===== =============== ========= ======== ======= ======
4x4     16    1,217,977       1.9 s     180 MB   -       22 MB
3x6k4   18    20,800,974      22.5 s    1.3 GB   1.2 GB  342 MB
4x5k4   20    168,720,724     196 s     4.5 GB   10 GB   3.1 GB
====== ===== =============== ========= ======== ======= ======
"""

from __future__ import annotations

import os
from math import comb
from typing import NamedTuple

from ..errors import DatabaseMissingError
from ..game.variant import STANDARD, Variant
from ..system.memory import machine_memory
from .paths import database_file


class Cost(NamedTuple):
    """A build's CPU seconds and peak memory, scratch disk and file size in bytes."""

    seconds: float
    memory: int
    scratch: int
    file: int

    def __str__(self) -> str:
        scratch = f", {_size(self.scratch)} of scratch disk" if self.scratch else ""
        return (
            f"{'under 1 s' if self.seconds < 1 else 'about ' + _duration(self.seconds)} of CPU, {_size(self.memory)} of memory{scratch}"
            f" and a {_size(self.file)} file"
        )


# cells, boards in the tiers, symmetries, and the Cost of the measured build (see the module docstring)
_MEASURED = (
    (16, 10_165_779, 8, Cost(1.9, 180_000_000, 0, 22_000_000)),  # 4x4
    (18, 86_574_831, 4, Cost(22.5, 1_300_000_000, 1_200_000_000, 342_000_000)),  # 3x6k4
    (20, 741_365_049, 4, Cost(196.0, 4_500_000_000, 10_000_000_000, 3_100_000_000)),  # 4x5k4
)
# The per-board costs that a build's plan (ttt_solver.builder.plan) scales from, measured on
# this code with benchmarks/measure_build_costs.py (CPU time of one process, 2-core machine
# shared with other sessions): solving the tiers, per board of the tiers and cell of the board
# (4x4: 6.2 ns, 3x6k4: 7.9 ns), and the rest of the build (merge, SQLite file, digest) per
# canonical row (4x4: 602 ns, 3x6k4: 732 ns; the larger is kept). For 25 cells, solving is
# scaled from 5x5k4's three last tiers on 2 local Dask workers (benchmarks/solve_last_tiers.py
# 5x5k4 --tiers 3: 7.59 ns, 6.69 in the workers and 0.90 in the driver): the last tiers cost
# less a board than a whole variant (4x5k4 in one process, same session: 3.99 ns for its three
# last tiers, 6.20 ns for all 21), so 7.59 * 6.20 / 3.99 = 11.8 ns is kept (docs/engine.md).
SOLVE_SECONDS = 11.8e-9
WRITE_SECONDS = 732e-9
# ttt-lookup verify, per row of the database, one process (the same benchmark and session: 4x4
# 1,349 ns, 3x6k4 1,145 ns; the larger is kept).
VERIFY_SECONDS = 1349e-9
# A process's tier tables (ttt_solver.solver.tiers) per high half code and tier: peak RSS grew
# by 59 bytes (4x5k4: 73 MB) and 55 bytes (3x8k4: 732 MB) for each, measured with resource.getrusage.
TABLE_BYTES = 60
WORKER_PROCESS = 300_000_000  # a build's process beside its budget (README: about 300 MB)
_PROCESS = 60_000_000  # the memory of the Python process that builds, before it solves anything
_MEMORY_CAP = 8 << 30  # a build's memory budget is at most 8 GiB (ttt_solver.solver.solve.MEMORY_CAP)


def tier_sizes(variant: Variant) -> list[int]:
    """The boards of each tier ``p`` (``p`` pieces, X having ``(p + 1) // 2`` of them, O
    ``p // 2``): the sizes :class:`ttt_solver.solver.tiers.Tiers` counts, without its tables
    (seconds and 2 GB for 25 cells)."""
    n = variant.cells
    return [comb(n, (p + 1) // 2) * comb(n - (p + 1) // 2, p // 2) for p in range(n + 1)]


def tier_boards(variant: Variant) -> int:
    """The boards of every tier (see :func:`tier_sizes`)."""
    return sum(tier_sizes(variant))


def estimate(variant: Variant) -> Cost:
    """What ``ttt-lookup build`` of ``variant`` takes, scaled from the nearest measured build
    by the boards in the tiers (and, for the scratch folder and the file, by the canonical rows: a
    square board has twice the symmetries of a rectangle)."""
    boards = tier_boards(variant)
    _cells, measured, symmetries, cost = min(_MEASURED, key=lambda m: (abs(m[0] - variant.cells), -m[0]))
    scale = boards / measured
    rows = scale * symmetries / len(variant.symmetries)  # the scratch folder holds rows, as the file does
    scratch = int(cost.scratch * rows)  # every build solves into a scratch folder
    memory = min(max(int(cost.memory * scale), _PROCESS), _MEMORY_CAP)
    return Cost(cost.seconds * scale, memory, scratch, int(cost.file * rows))


def verify_seconds(rows: int) -> float:
    """The CPU seconds ``ttt-lookup verify`` of a database of ``rows`` rows takes."""
    return rows * VERIFY_SECONDS


def table_bytes(variant: Variant) -> int:
    """A build process's tier tables (a row per high half code for each tier)."""
    high = variant.cells - variant.cells // 2
    return int(TABLE_BYTES * pow(3, high) * (variant.cells + 1))


def one_machine_memory(variant: Variant) -> int:
    """The least memory a build of ``variant`` in one process keeps: the result bytes of its two
    widest tiers side by side (and the smallest chunk: kilobytes), its tier tables and the process."""
    return 2 * (max(tier_sizes(variant)) + 1) + table_bytes(variant) + WORKER_PROCESS


def fits_one_machine(variant: Variant) -> bool:
    """Whether this machine's memory holds a build of ``variant`` in one process (else it
    takes ``--engine``)."""
    memory = machine_memory()
    return memory is None or one_machine_memory(variant) <= memory


def build_command(variant: Variant) -> str:
    """The command that builds ``variant``'s default database (on a cluster, where this
    machine cannot hold the build alone)."""
    command = "ttt-lookup build" if variant == STANDARD else f"ttt-lookup build --variant {variant.name}"
    return command if fits_one_machine(variant) else f"{command} --engine dask"


def missing_default(variant: Variant) -> DatabaseMissingError:
    """The error for a variant whose default database is not built yet."""
    return DatabaseMissingError(
        f"no {variant.name} database at {database_file(variant)!r}; build it with: {build_command(variant)}"
        f" ({estimate(variant)})"
    )


def existing_default(variant: Variant) -> str:
    """The variant's default database, or a DatabaseMissingError if it is not built."""
    path = database_file(variant)
    if not os.path.exists(path):
        raise missing_default(variant)
    return path


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _size(count: float) -> str:
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if count >= size:
            return f"{count / size:.1f} {unit}" if count < 10 * size else f"{count / size:.0f} {unit}"
    return "1 MB"
