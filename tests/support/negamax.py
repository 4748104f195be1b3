"""An independent plain minimax for 3x3, written from the rules alone.

No symmetry, no shared code with the package: boards are 9-tuples of 'X'/'O'/' ', and
remoteness follows the textbook rule (winners hurry, losers stall). Used to check the
solver, the database and the oracle on every legal position.
"""

from __future__ import annotations

from functools import cache

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def has_line(cells: tuple[str, ...], mark: str) -> bool:
    return any(cells[a] == cells[b] == cells[c] == mark for a, b, c in LINES)


def mover(cells: tuple[str, ...]) -> str:
    return "X" if cells.count("X") == cells.count("O") else "O"


@cache
def solve(cells: tuple[str, ...]) -> tuple[int, int, dict[int, tuple[int, int]]]:
    """(value, remoteness, {cell: (value for mover, remoteness)}) for the side to move."""
    me = mover(cells)
    other = "O" if me == "X" else "X"
    if has_line(cells, other):
        return -1, 0, {}
    if " " not in cells:
        return 0, 0, {}
    moves = {}
    for cell in range(9):
        if cells[cell] == " ":
            child = cells[:cell] + (me,) + cells[cell + 1 :]
            value, remoteness, _ = solve(child)
            moves[cell] = (-value, remoteness + 1)
    value = max(v for v, _ in moves.values())
    plies = [r for v, r in moves.values() if v == value]
    return value, (min(plies) if value == 1 else max(plies)), moves


def from_text(text: str) -> tuple[str, ...]:
    return tuple(" " if c == "." else c for c in text)
