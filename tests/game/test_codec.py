"""The codec: codes of text and arrays, canonical codes, and the vectorised rules against the
pure-Python rules of ttt_solver.game.rules on every board of small variants."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ttt_solver.game import array_rules, codec, rules
from ttt_solver.game.symmetry import images
from ttt_solver.game.variant import Variant

VARIANTS = ["3x3", "3x3-misere", "3x4k3", "2x5k3", "1x7k3", "4x4"]


def random_boards(variant: Variant, count: int, seed: int = 0) -> list[str]:
    """Arbitrary (not necessarily legal) boards."""
    rng = random.Random(seed)
    return ["".join(rng.choice("XO.") for _ in range(variant.cells)) for _ in range(count)]


def test_the_code_of_a_board_reads_it_in_base_3_with_o_0_empty_1_x_2():
    assert codec.encode(".........") == codec.offset(9) == (3**9 - 1) // 2
    assert codec.encode("X........") == codec.offset(9) + 3**8
    assert codec.encode("........O") == codec.offset(9) - 1
    assert codec.encode("OOOOOOOOO") == 0 and codec.encode("XXXXXXXXX") == 3**9 - 1


@pytest.mark.parametrize("name", VARIANTS)
def test_text_array_and_code_forms_agree(name):
    variant = Variant.parse(name)
    boards = random_boards(variant, 300)
    codes = array_rules.encode_texts(boards, variant)
    assert codes.tolist() == [codec.encode(b) for b in boards]
    assert array_rules.decode_texts(codes, variant) == boards
    assert [codec.decode(c, variant.cells) for c in codes.tolist()] == boards
    arrays = np.array([rules.to_array(b) for b in boards], dtype=np.int8)
    assert array_rules.codes_of_arrays(arrays, variant).tolist() == codes.tolist()


@pytest.mark.parametrize("name", VARIANTS)
def test_the_canonical_code_is_the_smallest_image_code(name):
    variant = Variant.parse(name)
    boards = random_boards(variant, 300, seed=1)
    expected = [min(codec.encode(image) for image in images(board, variant)) for board in boards]
    assert array_rules.canonical_codes(array_rules.encode_texts(boards, variant), variant).tolist() == expected
    assert [codec.canonical_code(b, variant) for b in boards] == expected
    for board in boards[:50]:
        code, perm = codec.canonical(board, variant)
        assert code == codec.encode("".join(board[i] for i in perm))
        assert codec.canonical_text(board, variant) == codec.decode(code, variant.cells)


@pytest.mark.parametrize("name", ["3x3", "3x3-misere", "3x4k3", "2x5k3", "1x7k3"])
def test_legal_and_terminal_match_the_rules_on_every_board(name):
    variant = Variant.parse(name)
    codes = np.arange(3**variant.cells, dtype=np.int64)
    texts = array_rules.decode_texts(codes, variant)
    legal = array_rules.legal(codes, variant)
    assert legal.tolist() == [rules.legality_error(t, variant) is None for t in texts]
    terminal = array_rules.terminal_values(codes[legal], variant).tolist()
    expected = [rules.terminal_value(t, variant) for t, ok in zip(texts, legal.tolist()) if ok]
    assert terminal == [codec.PLAYING if v is None else v for v in expected]


def test_children_are_the_canonical_results_of_every_move():
    variant = Variant.parse("3x4k3")
    boards = [b for b in random_boards(variant, 400, seed=2) if rules.legality_error(b, variant) is None]
    boards = [b for b in boards if rules.terminal_value(b, variant) is None]
    rows, cells, children = array_rules.children(array_rules.encode_texts(boards, variant), variant)
    expected = [
        (i, cell, codec.canonical_code(rules.play(b, cell, variant), variant))
        for i, b in enumerate(boards)
        for cell in rules.legal_moves(b, variant)
    ]
    assert list(zip(rows.tolist(), cells.tolist(), children.tolist())) == expected


@pytest.mark.parametrize("name", ["3x3", "3x4k3", "4x4"])
def test_the_proofs_children_are_the_canonical_results_of_every_move(name):
    # The pure-Python form a lookup's proof uses, against playing each move and canonicalising.
    variant = Variant.parse(name)
    boards = [b for b in random_boards(variant, 300, seed=4) if rules.legality_error(b, variant) is None]
    for board in boards:
        mover = rules.to_move(board)
        expected = tuple(
            (cell, codec.canonical_code(f"{board[:cell]}{mover}{board[cell + 1 :]}", variant))
            for cell, mark in enumerate(board)
            if mark == rules.EMPTY
        )
        assert codec.canonical_children(board, mover, variant) == expected, board


def test_orbits_count_distinct_images():
    variant = Variant.parse("4x4")
    boards = random_boards(variant, 300, seed=3)
    found = array_rules.orbits(array_rules.encode_texts(boards, variant), variant).tolist()
    assert found == [len(set(images(b, variant))) for b in boards]


@given(st.text(alphabet="XO.", min_size=9, max_size=9))
def test_encode_and_decode_round_trip(text):
    assert codec.decode(codec.encode(text), 9) == text
