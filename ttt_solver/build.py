"""Build the solved database: solve, write all-or-nothing, summarise.

:func:`build` is the library call; ``ttt-lookup build`` (and ``python build_db.py``, which
runs it) is the command line. Every variant goes through the vectorised backward induction
of :mod:`ttt_solver.solve` (the recursive solver of :mod:`ttt_solver.solver` stays as the
independent reference in the tests). The ``moves`` table is written only when it is small
(:data:`MOVES_STORED_LIMIT`); bigger variants answer every question from ``positions``.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import __version__
from .paths import default_database
from .solver import SOLVER_VERSION
from .store import GENERATOR, SCHEMA_VERSION, Target
from .variant import STANDARD, Variant

if TYPE_CHECKING:
    from .solve import Tables

Progress = Callable[[str], None]
Writing = Callable[[int, int], None]  # (position rows just written, all position rows)

MOVES_STORED_LIMIT = 250_000
"""Most move rows a database stores (3x3: 2,270; 3x4: 148,906; 4x4: 6,460,008). Above it the
moves table would dominate the file and the build; the position rows' move counts and the
children's rows answer the same questions."""


@dataclass(frozen=True)
class BuildReport:
    target: str
    variant: str
    legal_positions: int
    canonical_positions: int
    moves: int  # rows in the moves table (0 when moves are not stored)
    outcomes: dict[str, int]  # win/draw/loss for the side to move, over all legal boards
    digest: str
    seconds: float

    def summary(self) -> str:
        o = self.outcomes
        moves = f"{self.moves:,} moves" if self.moves else "moves derived at lookup"
        return (
            f"built {self.target} ({self.variant}): {self.legal_positions:,} positions in"
            f" {self.canonical_positions:,} canonical rows, {moves};"
            f" side to move wins {o['win']:,} / draws {o['draw']:,} / loses {o['loss']:,};"
            f" {self.seconds:.2f} s"
        )


def build(
    target: str | Path | None = None,
    variant: Variant = STANDARD,
    force: bool = False,
    progress: Progress | None = None,
    store_moves: bool | None = None,
    tables: Tables | None = None,
    writing: Writing | None = None,
) -> BuildReport:
    """Solve ``variant`` and write it to ``target`` (default: :func:`default_database`).

    ``store_moves``: write the moves table (default: when it has at most
    :data:`MOVES_STORED_LIMIT` rows). ``progress`` receives one line per stage. ``tables``:
    the variant already solved (:func:`ttt_solver.solve.solve_tables`), to write it again.
    ``writing(rows, total)`` is called as each block of position rows is written (a progress bar).
    """
    from .solve import solve_tables
    from .store.content import digest, move_blocks, move_count, pack_blob, packed_arrays, position_blocks
    from .store.writer import check_target, write

    started = time.perf_counter()
    where = Target.parse(target if target is not None else default_database(variant))
    check_target(where, force)
    if tables is None:
        tables = solve_tables(variant, progress)
    elif tables.variant != variant:
        raise ValueError(f"tables of {tables.variant} given to build {variant}")
    stored = move_count(tables) <= MOVES_STORED_LIMIT if store_moves is None else store_moves
    if progress:
        progress(f"{variant}: writing {len(tables):,} positions to {where}")
    with _paused_gc():
        arrays = packed_arrays(tables)
        packed = {name: pack_blob(name, raw) for name, raw in arrays.items()}
        moves = move_count(tables) if stored else 0
        meta = {
            "generator": GENERATOR,
            "generator_version": __version__,
            "schema_version": SCHEMA_VERSION,
            "solver_version": SOLVER_VERSION,
            "variant": variant.name,
            "positions": str(len(tables)),
            "legal_positions": str(tables.legal_positions),
            "moves": str(moves),
            "moves_stored": "1" if stored else "0",
            "digest": digest(variant.name, arrays),
            "built_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        blocks = position_blocks(tables)
        if writing is not None:
            blocks = _counted(blocks, len(tables), writing)
        write(where, blocks, move_blocks(tables) if stored else (), packed, meta, force=force)
    weights = tables.orbit.astype("int64")
    outcomes = {
        name: int(weights[tables.value == value].sum()) for name, value in (("win", 1), ("draw", 0), ("loss", -1))
    }
    return BuildReport(
        str(where), variant.name, tables.legal_positions, len(tables), moves, outcomes, meta["digest"],
        time.perf_counter() - started,
    )  # fmt: skip


def _counted(blocks: Iterator[list[list[Any]]], total: int, writing: Writing) -> Iterator[list[list[Any]]]:
    """The blocks, reporting each as written: the writer asks for the next block once it has
    written this one."""
    for block in blocks:
        yield block
        writing(len(block[0]), total)


@contextmanager
def _paused_gc() -> Iterator[None]:
    """Millions of row objects would set off a full collection every few thousand allocations
    (doubling the time to make the rows); they hold no cycles, so collect afterwards instead."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


if __name__ == "__main__":
    import sys

    from .cli import main

    sys.argv[0] = "python -m ttt_solver.build"
    main(["build", *sys.argv[1:]])
