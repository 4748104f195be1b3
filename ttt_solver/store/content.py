"""What the database holds, independent of how it is stored: rows, digest, meta keys."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from .. import board as rules
from ..solver import Solution
from ..variant import Variant

if TYPE_CHECKING:
    from ..backward import Tables


# Every CLI lookup checks the digest: CPython's built-in SHA-256 module loads in about 1 ms,
# hashlib's OpenSSL binding in about 10 ms. Same algorithm, same digest.
if TYPE_CHECKING:
    from hashlib import sha256
else:
    try:
        from _sha256 import sha256  # CPython 3.11
    except ImportError:  # pragma: no cover - other versions and interpreters
        try:
            from _sha2 import sha256  # CPython 3.12+
        except ImportError:
            from hashlib import sha256

SCHEMA_VERSION = "1"
GENERATOR = "ttt-solver"

PositionRow = tuple[str, int, str, int, int, str, int, "str | None"]
MoveRow = tuple[str, int, int, int]
Row = tuple[Any, ...]  # a row of either table, as read back from a database

POSITION_COLUMNS = ("board", "ply", "to_move", "value", "remoteness", "best_moves", "orbit", "winner")
MOVE_COLUMNS = ("board", "cell", "value", "remoteness")
_DIGEST_CHUNK = 4096


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


def table_position_rows(tables: Tables) -> list[PositionRow]:
    """:func:`position_rows` from the vectorised solver's tables: the same rows, built with
    numpy column by column instead of a Python loop over positions."""
    import numpy as np

    from ..backward import decode

    texts = decode(tables.codes, tables.variant)
    parity = tables.ply % 2
    to_move = np.array([rules.X, rules.O], dtype=object)[parity]
    masks, which = np.unique(tables.best, return_inverse=True)
    labels = np.array(
        [",".join(str(cell) for cell in range(tables.variant.cells) if mask >> cell & 1) for mask in masks.tolist()],
        dtype=object,
    )
    # A finished game with a nonzero value was won: by the side to move when the value is +1
    # (misère), else by the player who just moved.
    won = (tables.remoteness == 0) & (tables.value != 0)
    winner_index = np.where(won, np.where(tables.value > 0, parity, 1 - parity) + 1, 0)
    winner = np.array([None, rules.X, rules.O], dtype=object)[winner_index]
    return list(
        zip(
            texts,
            tables.ply.tolist(),
            to_move.tolist(),
            tables.value.tolist(),
            tables.remoteness.tolist(),
            labels[which.ravel()].tolist(),
            tables.orbit.tolist(),
            winner.tolist(),
        )
    )


def table_move_rows(tables: Tables, texts: list[str] | None = None) -> list[MoveRow]:
    """:func:`move_rows` from the vectorised solver's tables (``texts``: the decoded codes)."""
    import numpy as np

    from ..backward import decode, move_table

    parent, cells, value, remoteness = move_table(tables)
    boards = np.array(texts if texts is not None else decode(tables.codes, tables.variant), dtype=object)
    return list(zip(boards[parent].tolist(), cells.tolist(), value.tolist(), remoteness.tolist()))


def move_count(tables: Tables) -> int:
    """How many rows the moves table would have: one per empty cell of each unfinished position."""
    live = tables.remoteness > 0
    return int((tables.variant.cells - tables.ply[live].astype("int64")).sum())


def content_digest(variant_name: str, positions: Iterable[Row], moves: Iterable[Row]) -> str:
    """SHA-256 of the table contents in a fixed order (never of build time or file bytes)."""
    digest = sha256(f"ttt-solver schema {SCHEMA_VERSION} variant {variant_name}\n".encode())
    # Hashed a chunk of rows at a time: the same bytes as row by row, a few times faster
    # (this runs on every verified load), and bounded memory for big variants.
    rows = sorted(positions)
    for start in range(0, len(rows), _DIGEST_CHUNK):
        chunk = rows[start : start + _DIGEST_CHUNK]
        digest.update(
            "".join(["P" + "|".join(["" if v is None else str(v) for v in row]) + "\n" for row in chunk]).encode()
        )
    rows = sorted(moves)
    for start in range(0, len(rows), _DIGEST_CHUNK):
        chunk = rows[start : start + _DIGEST_CHUNK]
        digest.update("".join(["M" + "|".join(map(str, row)) + "\n" for row in chunk]).encode())
    return digest.hexdigest()


def rebuild_hint(target: str, variant_name: str = "3x3") -> str:
    variant = "" if variant_name == "3x3" else f" --variant {variant_name}"
    return f"rebuild it with: python -m ttt_solver.build --db {target}{variant} --force"
