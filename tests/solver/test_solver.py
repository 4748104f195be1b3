"""The memoised canonical solver against published facts and an independent minimax."""

from __future__ import annotations

import pytest
from support import negamax

from ttt_solver.game import rules
from ttt_solver.game.symmetry import canonical, canonical_text
from ttt_solver.solver.reference import solve


@pytest.fixture(scope="module")
def table():
    return solve()


def test_765_canonical_positions_standing_for_5478(table):
    assert len(table) == 765
    assert sum(s.orbit for s in table.values()) == 5478
    assert sum(1 for s in table.values() if not s.moves) == 138


def test_the_empty_board_is_a_draw_in_9_and_every_opening_draws(table):
    empty = table["........."]
    assert (empty.value, empty.remoteness) == (0, 9)
    assert [(m.cell, m.value, m.remoteness) for m in empty.moves] == [(cell, 0, 9) for cell in range(9)]
    assert empty.best_moves == tuple(range(9))


def test_finished_positions(table):
    assert table[canonical_text("XXXOO....")].value == -1  # the previous player just won
    assert table[canonical_text("XOXXOOOXX")].value == 0  # full, drawn
    assert all(s.remoteness == 0 for s in table.values() if not s.moves)


def test_every_legal_position_against_an_independent_minimax(table):
    for text in rules.all_boards():
        form = canonical(text)
        solution = table[form.text]
        value, remoteness, moves = negamax.solve(negamax.from_text(text))
        assert (solution.value, solution.remoteness) == (value, remoteness), text
        assert {form.to_real(m.cell): (m.value, m.remoteness) for m in solution.moves} == moves, text
        assert {form.to_real(c) for c in solution.best_moves} == {c for c, (v, _) in moves.items() if v == value}


def test_a_forced_win_is_taken_fastest_and_a_loss_delayed(table):
    # X to move can win at once on cell 2 (and could also win later elsewhere).
    won = table[canonical_text("XX.OO....")]
    assert (won.value, won.remoteness) == (1, 1)
    # O to move faces two threats: every move loses, the best delays to the end.
    lost = table[canonical_text("XX.XO...O")]
    assert (lost.value, lost.remoteness) == (-1, 2) == (-1, max(m.remoteness for m in lost.moves))
