"""The one cost model: what building a variant's database takes of the machine (CPU seconds,
memory, disk), and what a verify takes, before anything is run.

``ttt-lookup build --plan`` (:mod:`ttt_solver.builder.plan`), the disk check
(:mod:`ttt_solver.builder.disk`), the refusal of a build this machine cannot hold, the lines a
build or a verify says up front, the first-use line and the error of a missing database all
scale the constants here, and the solver sizes its chunks by them. Every constant is measured
on the code path it predicts, the CPU of every process counted (the driver, the workers and
their children): ``python benchmarks/measure_build_costs.py VARIANT...`` prints, per variant,
these predictions against what it measured, as ratios (docs/engine.md, "The cost model").

- CPU: solving the tiers (the tier pipeline, in this process or on Dask's workers) costs
  :data:`SOLVE_SECONDS` per legal position (:data:`SOLVE_SECONDS_COMPILED` where the compiled
  passes run: :mod:`.compiled_loops`) (every legal board is a canonical row or one of its
  images, each written once as its tier is spread): measured from 134 to 190 ns on variants of
  15 to 25 cells, where the cost per board and cell went from 12.4 to 2.95 ns; the rest of a build (merge into code order, the
  SQLite file, its digest) :data:`WRITE_SECONDS` per canonical row; each process
  :data:`START_SECONDS` and its tier tables (:data:`TABLE_SECONDS` per entry); a verify
  :data:`VERIFY_SECONDS` per row.
- Disk: every build solves into a scratch folder; at its peak it holds
  :data:`SCRATCH_ROW_BYTES` a canonical row, two tiers' result bytes (a byte a board) and the
  images of the widest tier in the exchange (:data:`EXCHANGE_BYTES` a legal position), beside
  the database file's :data:`FILE_ROW_BYTES` a row.
- Memory: a process holds :data:`PROCESS_BYTES`, its tier tables (:data:`TABLE_BYTES` per high
  half code and tier) and a chunk of at most :data:`MAX_CHUNK` boards at
  :data:`BYTES_PER_BOARD` each.

Pure Python (no numpy): the error of a missing database, on the command line's lookup path,
says what building it takes.
"""

from __future__ import annotations

from math import comb
from typing import TYPE_CHECKING, NamedTuple

from . import compiled_loops
from .memory import machine_memory, size_text

if TYPE_CHECKING:
    from ..game.variant import Variant

# Measured with benchmarks/measure_build_costs.py (docs/engine.md, "The cost model").
SOLVE_SECONDS = 170e-9  # CPU per legal position solved, every process of the tier pipeline (numpy's passes)
# The same with the compiled passes (numba's then, now the C extension's: the same loops, as fast),
# whose gain shrinks as the tiers outgrow the caches:
# 104.5 ns on 5x5k4's plies 25 to 22 on 2 Dask workers (measure_build_costs.py 5x5k4 --tiers 4
# --engine dask --workers 2: 119.9 s of CPU, less the plan's starts and tier tables), 38 to 54 ns
# on 3x6k4 in one process. Set from the 5x5k4 run, as the plans that matter (5x5k4, 4x6k4 on a
# cluster) are in that regime: a plan of 3x6k4 says about 2x its solve.
SOLVE_SECONDS_COMPILED = 105e-9
# CPU per canonical row: merge, SQLite file, digest (3x6k4 with the [fast] extra, its rows merged
# through files under --memory 700MB: 440 and 455 ns in two runs; merged in memory, as a budget of
# twice its rows' 18 bytes lets it, 376 ns). Set from the merge through files, the regime of the
# shards of a build on a cluster. SQLite's own inserts are about 280 ns of it
# (docs/performance.md, "The rest of the build").
WRITE_SECONDS = 450e-9
START_SECONDS = 0.5  # CPU of a process's start: the interpreter and the imports
TABLE_SECONDS = 150e-9  # CPU per entry of a process's tier tables (5x5k4: 6.2 s for 41 million)
VERIFY_SECONDS = 1350e-9  # CPU per row of ``ttt-lookup verify`` (and of a resumed build's proof)
VERIFY_SECONDS_COMPILED = 950e-9  # the same with the compiled passes (3x6k4: 778 to 1,058 ns, by its budget)
# The scratch folder at its peak, per canonical row (beside two tiers' result bytes): the tiers'
# column files and the merge's, 18 bytes a row each (3x6k4 at --memory 700MB: 51.2 bytes a row
# with the database file's 16.8).
SCRATCH_ROW_BYTES = 36
FILE_ROW_BYTES = 18  # the SQLite file, per canonical row
# The exchange of the tier being solved, per legal position: its image (a rank and a result byte,
# ttt_solver.engine.shuffle.IMAGE_BYTES) in a chunk file until its range is gathered. 5x5k4's
# plies 25 to 21 peaked at 42.2 GB of scratch, 13.8 GB of it ply 21's 2.76 billion images.
EXCHANGE_BYTES = 5
# Bytes a board of a chunk costs while it is solved (its halves, codes and images as it is
# enumerated, and for a canonical one its moves' ranks and scores): measured as the peak of a
# build against its budget (benchmarks/bench_build_memory.py), rounded up.
BYTES_PER_BOARD = 160
MIN_CHUNK = 256
# Boards per chunk at most, whatever the budget: bigger chunks no longer pay for themselves
# (their arrays leave the CPU caches) and only raise the peak.
MAX_CHUNK = 1 << 21
MEMORY_CAP = 8 << 30  # a build's default budget is what the machine can spare, at most this
# A process's tier tables (ttt_solver.solver.tiers) per high half code and tier: peak RSS grew
# by 59 bytes (4x5k4: 73 MB) and 55 bytes (3x8k4: 732 MB) for each, measured with resource.getrusage.
TABLE_BYTES = 60
PROCESS_BYTES = 300_000_000  # a build's process beside its chunk and tables (Python, numpy, SQLite)


class Cost(NamedTuple):
    """A build's CPU seconds, its peak memory (one process), its peak disk (scratch folder and
    database file) and its file, in bytes."""

    seconds: float
    memory: int
    disk: int
    file: int

    def __str__(self) -> str:
        seconds = "under 1 s" if self.seconds < 1 else f"about {duration(self.seconds)}"
        return (
            f"{seconds} of CPU, {size_text(self.memory)} of memory, {size_text(self.disk)} of disk"
            f" at the peak and a {size_text(self.file)} file"
        )


def tier_sizes(variant: Variant) -> list[int]:
    """The boards of each tier ``p`` (``p`` pieces, X having ``(p + 1) // 2`` of them, O
    ``p // 2``): the sizes :class:`ttt_solver.solver.tiers.Tiers` counts, without its tables
    (seconds and 2 GB for 25 cells)."""
    n = variant.cells
    return [comb(n, (p + 1) // 2) * comb(n - (p + 1) // 2, p // 2) for p in range(n + 1)]


def tier_boards(variant: Variant) -> int:
    """The boards of every tier (see :func:`tier_sizes`)."""
    return sum(tier_sizes(variant))


def rough_rows(variant: Variant) -> int:
    """Canonical rows, roughly: the boards over the symmetries (3x6k4: 21.6 million for 20.8;
    5x5k4: 20% more; the plan samples each tier for a closer count)."""
    return tier_boards(variant) // len(variant.symmetries)


def solve_seconds(legal: int) -> float:
    """CPU seconds of solving tiers of ``legal`` legal positions, every process counted."""
    return legal * (SOLVE_SECONDS_COMPILED if compiled_loops.installed() else SOLVE_SECONDS)


def process_seconds(variant: Variant, processes: int = 1) -> float:
    """CPU seconds of starting ``processes`` processes that solve ``variant`` (each builds its
    tier tables)."""
    return processes * (START_SECONDS + TABLE_SECONDS * table_entries(variant))


def build_seconds(variant: Variant, legal: int, rows: int, processes: int = 1) -> float:
    """CPU seconds of a build on ``processes`` processes: solving ``legal`` legal positions,
    then writing ``rows`` canonical rows."""
    return process_seconds(variant, processes) + solve_seconds(legal) + rows * WRITE_SECONDS


def verify_seconds(rows: int) -> float:
    """CPU seconds of ``ttt-lookup verify`` of a database of ``rows`` rows in one process (a
    resumed build's proof) or on an engine, start-up left out."""
    return rows * (VERIFY_SECONDS_COMPILED if compiled_loops.installed() else VERIFY_SECONDS)


def scratch_bytes(rows: int, boards: int) -> int:
    """Bytes of the scratch folder for ``rows`` canonical rows and the result bytes of a tier
    of ``boards`` boards (a byte a board, and one more)."""
    return rows * SCRATCH_ROW_BYTES + boards + 1


def disk_bytes(rows: int, widest: int, exchanged: int | None = None) -> int:
    """Bytes a build writes at its peak (its scratch folder and the database file), for ``rows``
    canonical rows, a widest tier of ``widest`` boards and at most ``exchanged`` legal positions
    in a tier (default ``widest``: every board legal), whose images are in the exchange at once."""
    images = EXCHANGE_BYTES * (widest if exchanged is None else exchanged)
    return scratch_bytes(rows, widest) + widest + 1 + images + file_bytes(rows)


def file_bytes(rows: int) -> int:
    """Bytes of the database file of ``rows`` canonical rows."""
    return rows * FILE_ROW_BYTES


def table_entries(variant: Variant) -> int:
    """The entries of a process's tier tables: one per high half code for each tier."""
    return int(pow(3, variant.cells - variant.cells // 2)) * (variant.cells + 1)


def table_bytes(variant: Variant) -> int:
    """A build process's tier tables."""
    return TABLE_BYTES * table_entries(variant)


def worker_memory(variant: Variant) -> int:
    """The peak of a process that solves ``variant``'s chunks: the largest chunk (a tier at
    most), the tier tables and the process."""
    chunk = min(MAX_CHUNK, max(tier_sizes(variant)))
    return chunk * BYTES_PER_BOARD + table_bytes(variant) + PROCESS_BYTES


def one_machine_memory(variant: Variant) -> int:
    """The least memory a build of ``variant`` in one process keeps: the result bytes of its two
    widest tiers side by side (and the smallest chunk: kilobytes), its tier tables and the process."""
    return 2 * (max(tier_sizes(variant)) + 1) + table_bytes(variant) + PROCESS_BYTES


def build_memory(variant: Variant) -> int:
    """The peak of a build of ``variant`` in one process with the default budget: a worker's
    (:func:`worker_memory`) and the result bytes of its two widest tiers."""
    return worker_memory(variant) + 2 * (max(tier_sizes(variant)) + 1)


def fits_one_machine(variant: Variant) -> bool:
    """Whether this machine's memory holds a build of ``variant`` in one process (else it
    takes ``--engine``)."""
    memory = machine_memory()
    return memory is None or one_machine_memory(variant) <= memory


def estimate(variant: Variant, legal: int | None = None, rows: int | None = None, exchanged: int | None = None) -> Cost:
    """What a build of ``variant`` in one process takes, for ``legal`` legal positions (default:
    every board, at most 20% too many) in ``rows`` canonical rows (default: :func:`rough_rows`),
    at most ``exchanged`` legal positions in a tier (default: every board of the widest)."""
    sizes = tier_sizes(variant)
    legal = sum(sizes) if legal is None else legal
    rows = rough_rows(variant) if rows is None else rows
    seconds = build_seconds(variant, legal, rows)
    return Cost(seconds, build_memory(variant), disk_bytes(rows, max(sizes), exchanged), file_bytes(rows))


def duration(seconds: float) -> str:
    """Seconds in words: ``34 s``, ``12 min``, ``3.5 h``, or hours and days on one core."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 3600:,.0f} h ({seconds / 86400:,.0f} days on one core)"
