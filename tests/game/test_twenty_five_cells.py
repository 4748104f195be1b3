"""Boards of 21 to 25 cells (5x5k4, 4x6k4, 3x8k4): parsed, coded, canonicalised and judged by
the rules like any other, checked against a pure-Python reference written here from the
definitions (a code is the base-3 number of the digits O=0 .=1 X=2, cell 0 first)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ttt_solver.game import array_rules, codec, rules
from ttt_solver.game.variant import MAX_CELLS, Variant
from ttt_solver.solver.passes import Solved
from ttt_solver.solver.tiers import Tiers
from ttt_solver.store.row_data import data_limit, pack_data, unpack_data
from ttt_solver.system.cost_model import tier_boards

WIDE = ["5x5k4", "4x6k4", "3x8k4", "6x4k4-misere", "3x7k4", "5x5"]


def reference_code(text: str) -> int:
    return sum("O.X".index(mark) * 3 ** (len(text) - 1 - i) for i, mark in enumerate(text))


def reference_canonical(text: str, variant: Variant) -> int:
    return min(reference_code("".join(text[cell] for cell in perm)) for perm in variant.symmetries)


def legal_boards(variant: Variant, count: int, seed: int) -> list[str]:
    """Boards of random games, stopped at a random ply or where the game ends."""
    rng = random.Random(seed)
    found = []
    for _ in range(count):
        board, stop = "." * variant.cells, rng.randrange(variant.cells + 1)
        for _ply in range(stop):
            if rules.terminal_value(board, variant) is not None:
                break
            board = rules.play(board, rng.choice(rules.legal_moves(board, variant)), variant)
        found.append(board)
    return found


@pytest.fixture(scope="module")
def five_by_five():
    """5x5k4 and its half-code tables (2 s, 500 MB: dropped after this module)."""
    variant = Variant.parse("5x5k4")
    yield variant, array_rules.geometry(variant)
    array_rules.geometry.cache_clear()


@pytest.mark.parametrize("name", WIDE)
def test_boards_of_up_to_25_cells_are_variants(name):
    variant = Variant.parse(name)
    assert 21 <= variant.cells <= MAX_CELLS == 25
    assert Variant.parse(variant.name) == variant
    board = rules.parse("X" + "." * (variant.cells - 1), variant)
    assert rules.legal_moves(board, variant) == list(range(1, variant.cells))


@pytest.mark.parametrize("name", ["5x5k4", "4x6k4", "3x8k4"])
def test_codes_and_canonical_codes_match_the_reference(name):
    variant = Variant.parse(name)
    for board in legal_boards(variant, 200, seed=len(name)):
        code = codec.encode(board)
        assert code == reference_code(board) < 3**25 < np.iinfo(np.int64).max
        assert codec.decode(code, variant.cells) == board
        assert codec.canonical_code(board, variant) == reference_canonical(board, variant)


def test_the_vectorised_rules_at_25_cells_match_the_pure_python_rules(five_by_five):
    variant, _geometry = five_by_five
    boards = legal_boards(variant, 300, seed=25)
    rng = random.Random(5)
    boards += ["".join(rng.choice("XO.") for _ in range(25)) for _ in range(300)]  # mostly illegal
    codes = array_rules.encode_texts(boards, variant)
    assert codes.dtype == np.int64 and codes.tolist() == [reference_code(b) for b in boards]
    assert array_rules.decode_texts(codes, variant) == boards
    assert array_rules.canonical_codes(codes, variant).tolist() == [reference_canonical(b, variant) for b in boards]
    legal = array_rules.legal(codes, variant)
    assert legal.tolist() == [rules.legality_error(b, variant) is None for b in boards]
    terminal = array_rules.terminal_values(codes[legal], variant)
    expected = [rules.terminal_value(b, variant) for b, ok in zip(boards, legal) if ok]
    assert terminal.tolist() == [codec.PLAYING if value is None else value for value in expected]


def test_a_25_cell_row_packs_into_int64_and_back():
    # The best-moves mask of a full 25-cell row is bit 26 to bit 50: within a signed 64-bit integer
    # (SQLite INTEGER, PostgreSQL bigint, numpy int64).
    best = np.array([(1 << 25) - 1, 1 << 24, 0], dtype=np.uint32)
    solved = Solved(
        np.zeros(3, np.int64), np.array([1, 0, -1], np.int8), np.array([25, 3, 0], np.int8), best, best,
        np.array([8, 4, 1], np.int8), np.array([25, 0, 0], np.uint8), np.array([0, 24, 0], np.uint8),
        np.array([0, 1, 0], np.uint8),
    )  # fmt: skip
    data = pack_data(solved)
    assert data.dtype == np.int64 and int(data.max()) < data_limit(25) == 1 << 51
    assert [unpack_data(int(d)) for d in data] == [
        (1, 25, (1 << 25) - 1, 25, 0, 0), (0, 3, 1 << 24, 0, 24, 1), (-1, 0, 0, 0, 0, 0),
    ]  # fmt: skip


def test_the_tiers_of_a_wide_board_number_every_board_with_legal_counts():
    variant = Variant.parse("3x7k4")  # 21 cells: halves of 11 and 10
    found = Tiers(variant)
    assert int(found.sizes.sum()) == tier_boards(variant) == 2_173_243_128  # the issue: 2.2e9
    high, low = found.boards(11, 5_000_000, 5_000_010)
    codes = high * found.geometry.base + low
    assert np.all(np.diff(codes) > 0)
    texts = array_rules.decode_texts(codes, variant)
    assert all(rules.ply(text) == 11 for text in texts)
    assert found.ranks(11, high, low).tolist() == list(range(5_000_000, 5_000_010))
