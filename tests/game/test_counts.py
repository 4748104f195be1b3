"""The independent position counter (``tests/support/counting.py``) against published facts, against
games actually played out, and against the solver, ply by ply.

Three methods that share no code: the counter (legality as a rule, canonical forms by
Burnside's lemma), a plain enumeration of every board that real games reach (below: play every
move from the empty board, stop at the first completed line, keep the smallest image of each
board), and the solver's tables (``len(tables)`` canonical rows, ``legal_positions`` the sum of
their orbits). The 20-cell counts are in ``tests/lookup/test_twenty.py`` (not run by default).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from support.counting import count_positions

from ttt_solver.game.variant import Variant


@pytest.mark.parametrize(
    ("variant", "legal", "canonical"),
    [
        ("3x3", 5_478, 765),  # every tic-tac-toe position; 765 up to symmetry
        ("3x3-misere", 5_478, 765),  # misère changes who wins, not which positions exist
        ("4x4", 9_722_011, 1_217_977),
    ],
)
def test_published_counts(variant, legal, canonical):
    counts = count_positions(variant)
    assert (counts.legal, counts.canonical) == (legal, canonical)


def played_out(variant: Variant) -> tuple[Counter[int], Counter[int]]:
    """Legal and canonical boards by ply, found by playing every game from the empty board."""
    seen = {"." * variant.cells}
    stack = list(seen)
    while stack:
        board = stack.pop()
        last = "X" if board.count("X") > board.count("O") else "O"  # who just moved
        if any(all(board[cell] == last for cell in line) for line in variant.lines):
            continue  # the game is over
        mover = "O" if last == "X" else "X"
        for cell in range(variant.cells):
            if board[cell] == ".":
                child = board[:cell] + mover + board[cell + 1 :]
                if child not in seen:
                    seen.add(child)
                    stack.append(child)
    smallest = {min("".join(board[i] for i in perm) for perm in variant.symmetries) for board in seen}

    def ply(board: str) -> int:
        return variant.cells - board.count(".")

    return Counter(map(ply, seen)), Counter(map(ply, smallest))


@pytest.mark.parametrize("name", ["3x3", "2x4k3", "4x2k3", "1x7k3", "1x9k4"])
def test_the_rule_counts_what_games_reach(name):
    variant = Variant.parse(name)
    legal, canonical = played_out(variant)
    counts = count_positions(variant)
    plies = range(variant.cells + 1)
    assert counts.legal_by_ply == tuple(legal[ply] for ply in plies)
    assert counts.canonical_by_ply == tuple(canonical[ply] for ply in plies)


# A spread of shapes: square and not, k below the long side, one row, one column, misère.
AGAINST_THE_SOLVER = [
    "3x3-misere", "3x4k3", "4x3k3", "3x4k3-misere", "3x4", "2x5k3", "5x2k3", "2x6k3",
    "1x7k3", "7x1k3", "1x9k4", "3x5k3",
]  # fmt: skip


@pytest.mark.parametrize("name", AGAINST_THE_SOLVER)
def test_the_counter_agrees_with_the_solver_ply_by_ply(name, solved):
    tables = solved(name)
    counts = count_positions(name)
    assert (counts.canonical, counts.legal) == (len(tables), tables.legal_positions)
    ply, orbit = tables.ply.astype(np.int64), tables.orbit.astype(np.int64)
    cells = Variant.parse(name).cells
    assert counts.canonical_by_ply == tuple(np.bincount(ply, minlength=cells + 1).tolist())
    assert counts.legal_by_ply == tuple(np.bincount(ply, weights=orbit, minlength=cells + 1).astype(np.int64).tolist())


def test_misere_changes_no_position():
    assert count_positions("3x4k3-misere").legal_by_ply == count_positions("3x4k3").legal_by_ply


def test_the_counter_is_independent_of_the_solver():
    """It reads the rules' geometry only: counting loads no solver, codec, lookup or store module."""
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import sys; from support import counting; counting.count_positions('3x3');"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('ttt_solver'))))"
    )
    folder = Path(__file__).resolve().parents[1]  # tests/, where the support package is
    done = subprocess.run([sys.executable, "-c", code], cwd=folder, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [
        "ttt_solver",
        "ttt_solver.errors",
        "ttt_solver.game",
        "ttt_solver.game.suggest",  # a mistyped variant name's did-you-mean
        "ttt_solver.game.variant",
        "ttt_solver.version",
    ]
