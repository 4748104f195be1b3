"""Build the solved database: solve, write all-or-nothing, summarise.

``python build_db.py [--db PATH_OR_URL] [--variant V] [--force]`` (or
``python -m ttt_solver.build``) runs :func:`main`; :func:`build` is the library call.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .errors import TTTError
from .paths import default_database
from .solver import SOLVER_VERSION, solve
from .store import Target
from .variant import STANDARD, Variant


@dataclass(frozen=True)
class BuildReport:
    target: str
    variant: str
    legal_positions: int
    canonical_positions: int
    moves: int
    outcomes: dict[str, int]  # win/draw/loss for the side to move, over all legal boards
    digest: str
    seconds: float

    def summary(self) -> str:
        o = self.outcomes
        return (
            f"built {self.target} ({self.variant}): {self.legal_positions:,} positions in"
            f" {self.canonical_positions:,} canonical rows, {self.moves:,} moves;"
            f" side to move wins {o['win']:,} / draws {o['draw']:,} / loses {o['loss']:,};"
            f" {self.seconds:.2f} s"
        )


def build(target: str | Path | None = None, variant: Variant = STANDARD, force: bool = False) -> BuildReport:
    """Solve ``variant`` and write it to ``target`` (default: :func:`default_database`)."""
    from .store.content import move_rows, position_rows
    from .store.writer import write

    started = time.perf_counter()
    where = Target.parse(target if target is not None else default_database(variant))
    solutions = solve(variant)
    positions = position_rows(solutions, variant)
    moves = move_rows(solutions)
    legal = sum(s.orbit for s in solutions.values())
    meta = write(
        where,
        variant.name,
        positions,
        moves,
        {"legal_positions": str(legal), "solver_version": SOLVER_VERSION},
        force=force,
    )
    outcomes = {"win": 0, "draw": 0, "loss": 0}
    for solution in solutions.values():
        outcomes[("loss", "draw", "win")[solution.value + 1]] += solution.orbit
    return BuildReport(
        str(where), variant.name, legal, len(positions), len(moves), outcomes, meta["digest"],
        time.perf_counter() - started,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="build_db.py",
        description="Solve tic-tac-toe exhaustively and write the database.",
        epilog="Example: python build_db.py --db data/ttt.sqlite",
    )
    parser.add_argument("--db", metavar="PATH_OR_URL", help="SQLite file or SQLAlchemy URL (default: data/ttt.sqlite)")
    parser.add_argument("--variant", default="3x3", help="board variant, e.g. 3x3 (default)")
    parser.add_argument("--force", action="store_true", help="overwrite a target ttt-solver did not make")
    args = parser.parse_args(argv)
    try:
        report = build(args.db, Variant.parse(args.variant), force=args.force)
    except TTTError as error:
        print(f"Error: {error}", file=sys.stderr)
        return 1
    print(report.summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
