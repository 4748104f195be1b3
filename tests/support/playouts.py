"""Sample boards for the tests."""

from __future__ import annotations

import random

from ttt_solver.game import rules
from ttt_solver.game.variant import Variant


def playouts(variant: Variant, count: int, seed: int) -> list[str]:
    """Legal boards at every depth (finished games included), from random games cut at a random ply."""
    rng = random.Random(seed)
    boards = []
    for _ in range(count):
        board = rules.EMPTY * variant.cells
        for _ in range(rng.randrange(variant.cells + 1)):
            free = rules.legal_moves(board, variant)
            if not free:
                break
            board = rules.play(board, rng.choice(free), variant)
        boards.append(board)
    return boards
