"""What the database holds, independent of how it is stored: rows, digest, meta keys."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping

from .. import board as rules
from ..solver import Solution
from ..variant import Variant

SCHEMA_VERSION = "1"
GENERATOR = "ttt-solver"

PositionRow = tuple[str, int, str, int, int, str, int, "str | None"]
MoveRow = tuple[str, int, int, int]

POSITION_COLUMNS = ("board", "ply", "to_move", "value", "remoteness", "best_moves", "orbit", "winner")
MOVE_COLUMNS = ("board", "cell", "value", "remoteness")


def position_rows(solutions: Mapping[str, Solution], variant: Variant) -> list[PositionRow]:
    """One row per canonical position, sorted by board."""
    return [
        (
            text,
            rules.ply(text),
            rules.to_move(text),
            solution.value,
            solution.remoteness,
            ",".join(map(str, solution.best_moves)),
            solution.orbit,
            rules.winner(text, variant) if not solution.moves else None,
        )
        for text, solution in sorted(solutions.items())
    ]


def move_rows(solutions: Mapping[str, Solution]) -> list[MoveRow]:
    """One row per legal move of each canonical position, sorted by board then cell."""
    return [
        (text, move.cell, move.value, move.remoteness)
        for text, solution in sorted(solutions.items())
        for move in solution.moves
    ]


def content_digest(variant_name: str, positions: Iterable[tuple], moves: Iterable[tuple]) -> str:
    """SHA-256 of the table contents in a fixed order (never of build time or file bytes)."""
    digest = hashlib.sha256(f"ttt-solver schema {SCHEMA_VERSION} variant {variant_name}\n".encode())
    for row in sorted(positions):
        digest.update(("P" + "|".join("" if v is None else str(v) for v in row) + "\n").encode())
    for row in sorted(moves):
        digest.update(("M" + "|".join(str(v) for v in row) + "\n").encode())
    return digest.hexdigest()


def rebuild_hint(target: str, variant_name: str = "3x3") -> str:
    variant = "" if variant_name == "3x3" else f" --variant {variant_name}"
    return f"rebuild it with: python -m ttt_solver.build --db {target}{variant} --force"
