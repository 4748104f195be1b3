"""A variant's tiers solved, and the budgets they are solved under.

:func:`solve_tables` is the tables product: every tier solved in memory, from the last ply to
the first, a chunk at a time (small variants, the tests, an oracle without a database). A
build solves its tiers on an engine instead, into a scratch folder it resumes from
(:func:`ttt_solver.engine.solving.solve_tiers`); both run the same passes
(:mod:`ttt_solver.solver.passes`). The budgets here size their chunks, by the cost model's bytes
a board (:mod:`ttt_solver.system.cost_model`).

Values are +1 win, 0 draw, -1 loss for the side to move (see :mod:`ttt_solver.game.values`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..game import array_rules, codec
from ..game.variant import Variant
from ..system.cost_model import BYTES_PER_BOARD, MAX_CHUNK, MEMORY_CAP, MIN_CHUNK
from .passes import Solved, new_tier, solve_chunk, spread
from .tiers import tiers

Note = Callable[[str], None]  # one line about the run
Steps = Callable[[str, int, int], None]  # (phase, units just done, units in the phase)

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


def chunk_boards(variant: Variant, memory: int) -> int:
    """Boards per chunk under a budget of ``memory`` bytes, once the widest two tiers' result
    bytes are set aside."""
    found = tiers(variant)
    widest = 2 * int(found.sizes.max()) + 2
    return max(MIN_CHUNK, min(MAX_CHUNK, (memory - widest) // BYTES_PER_BOARD))


def task_boards(memory: int) -> int:
    """Boards per chunk of an engine's task under a budget of ``memory`` bytes: the tiers'
    result bytes are memory-mapped files there, so the chunk has it all."""
    return max(MIN_CHUNK, min(MAX_CHUNK, memory // BYTES_PER_BOARD))


def task_chunks(variant: Variant, ply: int, memory: int) -> list[tuple[int, int]]:
    """The chunks (first and last rank) of tier ``ply`` for an engine's tasks under a budget
    of ``memory`` bytes (:func:`task_boards` each): the build solves, and verify proves, these."""
    size, chunk = tiers(variant).size(ply), task_boards(memory)
    return [(start, min(size, start + chunk)) for start in range(0, size, chunk)]


def smallest_task_memory() -> int:
    """The smallest budget of a Dask worker's tasks: the smallest chunk."""
    return MIN_CHUNK * BYTES_PER_BOARD


def smallest_memory(variant: Variant) -> int:
    """The smallest budget a build of ``variant`` in one process keeps: the result bytes of its
    two widest tiers (the tier below's mapped, the tier's own gathered) and the smallest chunk."""
    return 2 * int(tiers(variant).sizes.max()) + 2 + MIN_CHUNK * BYTES_PER_BOARD


def solve_tables(variant: Variant, progress: Note | None = None, memory: int | None = None) -> Tables:
    """Solve every legal position of ``variant`` in memory (canonical forms only), a tier at a
    time from the last ply, each tier a chunk at a time; ``progress`` hears a line a tier."""
    found = tiers(variant)
    chunk = chunk_boards(variant, memory or default_memory())
    solved_chunks: list[Solved] = []
    below = None
    for ply in range(variant.cells, -1, -1):
        out = new_tier(found, ply)
        size = found.size(ply)
        tier = [solve_chunk(found, ply, start, min(size, start + chunk), below) for start in range(0, size, chunk)]
        for solved in tier:
            spread(found, ply, solved, out)
        solved_chunks.extend(tier)
        below = out
        if progress:
            progress(tier_solved(variant, ply, sum(len(chunk) for chunk in tier)))
    solved = Solved.concatenate(solved_chunks)
    return Tables(variant, solved.take(np.argsort(solved.code, kind="stable")))


def tier_solved(variant: Variant, ply: int, rows: int) -> str:
    """The line that says a tier is solved, whichever engine solved it."""
    return f"{variant}: ply {ply}: {rows:,} position{'' if rows == 1 else 's'}"
