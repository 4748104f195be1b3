"""The stored rows of each tier, as an audit holds them while it proves a table: in memory
when they fit the budget, else in column files of a temporary folder (the files an engine's
proof tasks read, :mod:`.proof_tasks`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine import read_range
from ..solver import COLUMNS, Solved
from .proof_tasks import column_file, tier_rows

if TYPE_CHECKING:
    from ..game.variant import Variant

HELD_ROWS = 1 << 22  # most rows held at once to check a moves table against


class HeldTiers:
    """The stored rows of each tier, in code order: lists of arrays, or files in ``folder``."""

    def __init__(self, variant: Variant, folder: str | None) -> None:
        self.variant = variant
        self.folder = folder
        self.blocks: dict[int, list[Solved]] = {}
        self.files: dict[int, list[Any]] = {}
        self.counts = [0] * (variant.cells + 1)

    def append(self, ply: int, rows: Solved) -> None:
        self.counts[ply] += len(rows)
        if self.folder is None:
            self.blocks.setdefault(ply, []).append(rows)
            return
        if ply not in self.files:
            self.files[ply] = [open(column_file(self.folder, ply, name), "wb") for name, _dtype in COLUMNS]  # noqa: SIM115
        for handle, column, (_name, dtype) in zip(self.files[ply], rows, COLUMNS):
            handle.write(np.ascontiguousarray(column, dtype=dtype).tobytes())

    def rows(self, ply: int) -> Solved:
        """The rows of tier ``ply`` (read as often as needed; memory-mapped from their files
        when they are in a folder)."""
        if self.folder is None:
            blocks = self.blocks.get(ply, [])
            if len(blocks) != 1:  # joined once: a packed part's check reads a tier for every piece
                self.blocks[ply] = blocks = [Solved.concatenate(blocks)]
            return blocks[0]
        for handle in self.files.pop(ply, []):
            handle.close()
        return tier_rows(self.folder, ply, self.counts[ply])

    def read(self, ply: int, start: int, stop: int) -> Solved:
        """Rows ``start`` to ``stop`` of tier ``ply``, in memory (from their files, if there: no
        page of a file stays mapped once read)."""
        return read_range(self.rows(ply), start, stop)

    def close(self) -> None:
        """Every tier's files complete on disk (for an engine's tasks to read)."""
        for ply in list(self.files):
            for handle in self.files.pop(ply):
                handle.close()

    def everything(self) -> Solved | None:
        """Every row in code order, when there are few enough to hold at once (a table of up to
        :data:`ttt_solver.builder.build.MOVES_STORED_LIMIT` moves belongs to one)."""
        if sum(self.counts) > HELD_ROWS:
            return None
        rows = Solved.concatenate([self.rows(ply) for ply in range(self.variant.cells + 1)])
        return rows.take(np.argsort(rows.code, kind="stable"))
