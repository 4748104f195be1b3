"""Symmetry: the 8 transforms of the square, canonical forms and mapping moves back."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from support.boards import legal_boards

from ttt_solver.game import codec, rules
from ttt_solver.game.symmetry import apply, canonical, canonical_text, images, inverse, orbit_size
from ttt_solver.game.variant import STANDARD, Variant

LEGAL = legal_boards()
boards = st.sampled_from(LEGAL)
symmetries = st.sampled_from(STANDARD.symmetries)


def test_the_square_has_8_symmetries_forming_a_group():
    perms = set(STANDARD.symmetries)
    assert len(perms) == 8 and STANDARD.symmetries[0] == tuple(range(9))
    for p in perms:
        assert inverse(p) in perms
        for q in perms:
            assert tuple(p[q[i]] for i in range(9)) in perms  # closed under composition


def test_rectangles_have_4_symmetries():
    assert len(Variant.parse("3x4k3").symmetries) == 4


def test_765_canonical_positions_of_which_138_finished():
    forms = {canonical_text(text) for text in LEGAL}
    assert len(forms) == 765
    assert sum(1 for text in forms if rules.terminal_value(text) is not None) == 138
    assert sum(orbit_size(text) for text in forms) == 5478


@given(boards)
def test_canonical_is_the_image_with_the_smallest_code(text):
    # Codes compare like the text with O < . < X, cell 0 first (see ttt_solver.game.codec).
    smallest = min(images(text), key=lambda image: image.translate(str.maketrans("O.X", "012")))
    form = canonical(text)
    assert form.text == smallest == canonical_text(text)
    assert form.code == codec.encode(smallest)
    assert apply(form.perm, text) == form.text


@given(boards, symmetries)
def test_every_image_has_the_same_canonical_form(text, perm):
    assert canonical_text(apply(perm, text)) == canonical_text(text)


@given(boards)
def test_the_transform_maps_canonical_cells_back_to_the_real_board(text):
    form = canonical(text)
    assert form.real_board() == text
    for cell in range(9):
        assert form.text[cell] == text[form.to_real(cell)]
        assert form.to_canonical(form.to_real(cell)) == cell


@given(boards, st.integers(0, 8))
def test_a_move_commutes_with_the_symmetry(text, cell):
    if text[cell] != "." or rules.terminal_value(text) is not None:
        return
    form = canonical(text)
    moved = rules.play(text, cell)
    moved_on_canonical = rules.play(form.text, form.to_canonical(cell))
    assert canonical_text(moved) == canonical_text(moved_on_canonical)


@given(boards, symmetries)
def test_symmetries_keep_legality_and_the_winner(text, perm):
    image = apply(perm, text)
    assert rules.legality_error(image) is None
    assert rules.winner(image) == rules.winner(text)
