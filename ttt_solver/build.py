"""Build the solved database: solve, write all-or-nothing, summarise.

``python build_db.py [--db PATH_OR_URL] [--variant V] [--force] [--quiet]`` (or
``python -m ttt_solver.build``) runs :func:`main`; :func:`build` is the library call.

Every variant goes through the vectorised backward induction of :mod:`ttt_solver.backward`
(the recursive solver of :mod:`ttt_solver.solver` stays as the independent reference in the
tests). The ``moves`` table is written only when it is small (:data:`MOVES_STORED_LIMIT`);
for bigger variants the oracle derives each move's value from the child positions.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .errors import TTTError
from .paths import default_database
from .solver import SOLVER_VERSION
from .store import Target
from .variant import STANDARD, Variant

Progress = Callable[[str], None]

MOVES_STORED_LIMIT = 250_000
"""Most move rows a database stores (3x3: 2,270; 3x4: 148,906; 4x4: 6,460,008). Above it the
moves table would dominate the file and the build, and the oracle derives moves instead."""


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
) -> BuildReport:
    """Solve ``variant`` and write it to ``target`` (default: :func:`default_database`).

    ``store_moves``: write the moves table (default: when it has at most
    :data:`MOVES_STORED_LIMIT` rows). ``progress`` receives one line per stage.
    """
    from .backward import solve_tables
    from .store.content import move_count, table_move_rows, table_position_rows
    from .store.writer import check_target, write

    started = time.perf_counter()
    where = Target.parse(target if target is not None else default_database(variant))
    check_target(where, force)
    tables = solve_tables(variant, progress)
    stored = move_count(tables) <= MOVES_STORED_LIMIT if store_moves is None else store_moves
    if progress:
        progress(f"{variant}: making {len(tables.codes):,} position rows" + (" and the move rows" if stored else ""))
    with _paused_gc():
        positions = table_position_rows(tables)
        moves = table_move_rows(tables, [row[0] for row in positions]) if stored else []
        extra = {
            "legal_positions": str(int(tables.orbit.sum(dtype="int64"))),
            "solver_version": SOLVER_VERSION,
            "moves_stored": "1" if stored else "0",
        }
        meta = write(where, variant.name, positions, moves, extra, force=force, progress=progress)
    weights = tables.orbit.astype("int64")
    outcomes = {
        name: int(weights[tables.value == value].sum()) for name, value in (("win", 1), ("draw", 0), ("loss", -1))
    }
    return BuildReport(
        str(where),
        variant.name,
        int(weights.sum()),
        len(positions),
        len(moves),
        outcomes,
        meta["digest"],
        time.perf_counter() - started,
    )


@contextmanager
def _paused_gc() -> Iterator[None]:
    """Millions of row tuples would set off a full collection every few thousand allocations
    (doubling the time to make the rows); they hold no cycles, so collect afterwards instead."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="build_db.py",
        description="Solve tic-tac-toe (or a variant) exhaustively and write the database.",
        epilog="Example: python build_db.py --variant 4x4   (writes data/4x4.sqlite)",
    )
    parser.add_argument(
        "--db",
        metavar="PATH_OR_URL",
        help="SQLite file or SQLAlchemy URL (default: data/ttt.sqlite for 3x3, data/VARIANT.sqlite otherwise)",
    )
    parser.add_argument(
        "--variant", default="3x3", help="RxC with optional kK and -misere, e.g. 4x4, 3x3-misere (default: 3x3)"
    )
    parser.add_argument("--force", action="store_true", help="overwrite a target ttt-solver did not make")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")
    args = parser.parse_args(argv)
    progress = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    try:
        report = build(args.db, Variant.parse(args.variant), force=args.force, progress=progress)
    except TTTError as error:
        print(f"Error: {error}", file=sys.stderr)
        return 1
    print(report.summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
