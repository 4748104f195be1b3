"""Exhaustive memoised negamax over canonical positions (the recursive solver).

Values are +1/0/-1 for the side to move (see :mod:`ttt_solver.game.rules`). Remoteness counts
plies to the end under perfect play: the winner wins as fast as possible, the loser loses
as slowly as possible; a drawn game always runs until the board is full. Each position is
solved once, on its canonical board, so 3x3 costs 765 evaluations, not the 549,946 nodes
of the full game tree.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..game import rules
from ..game.symmetry import canonical_text, orbit_size
from ..game.variant import STANDARD, Variant


@dataclass(frozen=True)
class MoveResult:
    cell: int  # in the canonical board's own numbering
    value: int  # for the player making the move
    remoteness: int  # plies from the position (before the move) to the end


@dataclass(frozen=True)
class Solution:
    value: int
    remoteness: int
    moves: tuple[MoveResult, ...]  # ascending by cell; empty when the game is over
    orbit: int

    @property
    def best_moves(self) -> tuple[int, ...]:
        """Cells whose move keeps the value."""
        return tuple(move.cell for move in self.moves if move.value == self.value)


def rank(value: int, remoteness: int) -> tuple[int, int]:
    """Sort key, best first: win before draw before loss, fast wins, slow losses."""
    return (-value, remoteness if value > 0 else -remoteness)


def combine(moves: tuple[MoveResult, ...]) -> tuple[int, int]:
    """A position's (value, remoteness) from its moves' results."""
    best = min(moves, key=lambda move: rank(move.value, move.remoteness))
    return best.value, best.remoteness


def solve(variant: Variant = STANDARD) -> dict[str, Solution]:
    """Solve every legal position reachable from the empty board, keyed by canonical text."""
    table: dict[str, Solution] = {}

    def visit(text: str) -> Solution:
        found = table.get(text)
        if found is not None:
            return found
        terminal = rules.terminal_value(text, variant)
        if terminal is not None:
            solution = Solution(terminal, 0, (), orbit_size(text, variant))
        else:
            mark = rules.to_move(text)
            moves = []
            for cell, here in enumerate(text):
                if here != rules.EMPTY:
                    continue
                child = visit(canonical_text(text[:cell] + mark + text[cell + 1 :], variant))
                moves.append(MoveResult(cell, -child.value, child.remoteness + 1))
            result = tuple(moves)
            value, remoteness = combine(result)
            solution = Solution(value, remoteness, result, orbit_size(text, variant))
        table[text] = solution
        return solution

    visit(rules.EMPTY * variant.cells)
    return table
