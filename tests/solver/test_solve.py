"""The vectorised solver against the recursive solver and published facts."""

from __future__ import annotations

import random

import numpy as np
import pytest
from support.layered import move_table

from ttt_solver.game import array_rules, codec, rules
from ttt_solver.game.symmetry import canonical_text, images
from ttt_solver.game.variant import Variant
from ttt_solver.solver.reference import solve
from ttt_solver.solver.solve import solve_tables

# Small enough for the recursive solver (about a second each at most).
CROSS_CHECKED = ["3x3", "3x3-misere", "3x4k3", "4x3k3", "3x4", "3x4k3-misere", "2x5k3", "1x7k3"]


def mask_cells(mask: int) -> tuple[int, ...]:
    return tuple(cell for cell in range(32) if mask >> cell & 1)


def random_boards(variant: Variant, count: int, seed: int = 0) -> list[str]:
    """Arbitrary (not necessarily legal) boards."""
    rng = random.Random(seed)
    return ["".join(rng.choice("XO.") for _ in range(variant.cells)) for _ in range(count)]


@pytest.fixture(scope="module")
def tables_3x3():
    return solve_tables(Variant())


def decode(codes, variant):
    return array_rules.decode_texts(codes, variant)


def move_results(tables, text: str) -> list[tuple[int, int, int]]:
    """(cell, value for the mover, remoteness) of each move of a board, from the tables."""
    variant = tables.variant
    results = []
    for cell in rules.legal_moves(text, variant):
        child = codec.canonical_code(rules.play(text, cell, variant), variant)
        index = int(np.searchsorted(tables.codes, child))
        assert tables.codes[index] == child
        results.append((cell, -int(tables.value[index]), int(tables.remoteness[index]) + 1))
    return results


def row(tables, text: str) -> int:
    index = int(np.searchsorted(tables.codes, codec.canonical_code(text, tables.variant)))
    assert codec.decode(int(tables.codes[index]), tables.variant.cells) == codec.canonical_text(text, tables.variant)
    return index


# --- cross-check against the recursive solver ---------------------------------------------


@pytest.mark.long
@pytest.mark.parametrize("name", CROSS_CHECKED)
def test_agrees_with_recursive_solver(name):
    variant = Variant.parse(name)
    expected = solve(variant)
    tables = solve_tables(variant)
    texts = decode(tables.codes, variant)
    assert texts == sorted(expected, key=codec.encode)
    assert np.all(np.diff(tables.codes) > 0)
    solutions = [expected[text] for text in texts]
    assert tables.value.tolist() == [s.value for s in solutions]
    assert tables.remoteness.tolist() == [s.remoteness for s in solutions]
    assert tables.orbit.tolist() == [s.orbit for s in solutions]
    assert tables.ply.tolist() == [rules.ply(text) for text in texts]
    assert [mask_cells(mask) for mask in tables.best.tolist()] == [s.best_moves for s in solutions]
    wins = [sum(m.value > 0 for m in s.moves) for s in solutions]
    losses = [sum(m.value < 0 for m in s.moves) for s in solutions]
    assert tables.wins.tolist() == wins and tables.losses.tolist() == losses
    assert tables.draws.tolist() == [len(s.moves) - w - lo for s, w, lo in zip(solutions, wins, losses)]
    parent, cells, value, remoteness = move_table(tables)
    assert list(zip([texts[i] for i in parent], cells.tolist(), value.tolist(), remoteness.tolist())) == [
        (text, m.cell, m.value, m.remoteness) for text, s in zip(texts, solutions) for m in s.moves
    ]
    rng = random.Random(2)
    for text in rng.sample(texts, min(len(texts), 1500)):
        moves = [(m.cell, m.value, m.remoteness) for m in expected[text].moves]
        assert move_results(tables, text) == moves


def test_move_results_on_every_3x3_board_in_its_own_numbering(tables_3x3):
    table = solve()
    for text in rules.all_boards():
        expected = []
        for cell in rules.legal_moves(text):
            child = table[canonical_text(rules.play(text, cell))]
            expected.append((cell, -child.value, child.remoteness + 1))
        assert move_results(tables_3x3, text) == expected


# --- published facts ----------------------------------------------------------------------


def test_3x3_has_765_canonical_positions_standing_for_5478(tables_3x3):
    assert len(tables_3x3.codes) == 765
    assert int(tables_3x3.orbit.sum()) == 5478
    empty = row(tables_3x3, ".........")
    assert (tables_3x3.value[empty], tables_3x3.remoteness[empty]) == (0, 9)


def test_3x3_misere_is_a_draw_only_with_the_centre():
    tables = solve_tables(Variant.parse("3x3-misere"))
    assert tables.value[row(tables, ".........")] == 0
    results = move_results(tables, ".........")
    assert [cell for cell, value, _ in results if value == 0] == [4]
    assert all(value == -1 for cell, value, _ in results if cell != 4)


def test_4x4k3_is_a_first_player_win(solved):
    tables = solved("4x4k3")
    assert tables.value[row(tables, "................")] == 1
    check_self_consistent(tables, seed=3)


def test_4x4_has_9722011_legal_positions_and_is_a_draw(solved):
    tables_4x4 = solved("4x4")
    assert int(tables_4x4.orbit.astype(np.int64).sum()) == 9_722_011
    empty = row(tables_4x4, "................")
    assert (tables_4x4.value[empty], tables_4x4.remoteness[empty]) == (0, 16)
    assert set(np.unique(tables_4x4.ply).tolist()) == set(range(17))
    check_self_consistent(tables_4x4, seed=4)


def check_self_consistent(tables, seed: int, count: int = 300) -> None:
    """Each sampled position's value is the best of its moves, every child is in the tables,
    its best-move mask lists the moves keeping the value, and its orbit is the number of
    distinct images."""
    variant = tables.variant
    rng = np.random.default_rng(seed)
    picks = rng.choice(len(tables.codes), size=count, replace=False)
    for index, text in zip(picks, decode(tables.codes[picks], variant)):
        assert tables.orbit[index] == len(set(images(text, variant)))
        assert rules.legality_error(text, variant) is None
        results = move_results(tables, text)
        if not results:
            assert tables.remoteness[index] == 0
            assert tables.value[index] == (rules.terminal_value(text, variant) or 0)
            assert tables.best[index] == 0
            continue
        best = min(results, key=lambda m: (-m[1], m[2] if m[1] > 0 else -m[2]))
        assert (tables.value[index], tables.remoteness[index]) == best[1:]
        assert mask_cells(int(tables.best[index])) == tuple(cell for cell, value, _ in results if value == best[1])


def test_progress_reports_each_layer():
    messages: list[str] = []
    solve_tables(Variant(), progress=messages.append)
    assert len(messages) == 10  # plies 9 down to 0: each tier is solved once the one below it is
    assert messages[0] == "3x3: ply 9: 15 positions"
    assert messages[-1] == "3x3: ply 0: 1 position"
