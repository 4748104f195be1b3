"""Fuzzing board parsing: any input either parses to a legal board or raises InvalidBoardError."""

from __future__ import annotations

from functools import cache

from hypothesis import given
from hypothesis import strategies as st
from support.boards import legal_boards

from ttt_solver.errors import InvalidBoardError, shown
from ttt_solver.game import rules

MARKS = "XOxo.-_"
SEPARATORS = "/| \t\r\n"


@cache
def legal() -> frozenset[str]:
    return frozenset(legal_boards())


def parses_legally_or_says_why(text: str) -> str | None:
    try:
        board = rules.parse(text)
    except InvalidBoardError as error:
        assert str(error).startswith(("invalid board ", "illegal board ")), error
        assert shown(text) in str(error) or "illegal board" in str(error)
        return None
    assert board in legal()
    return board


@given(st.text())
def test_any_text(text):
    parses_legally_or_says_why(text)


@given(st.text(alphabet=MARKS + SEPARATORS + "?#0", max_size=14))
def test_board_like_text(text):
    parses_legally_or_says_why(text)


@given(st.lists(st.sampled_from("XO."), min_size=9, max_size=9).map("".join))
def test_every_nine_cell_text_is_legal_exactly_when_the_rules_say_so(text):
    assert (parses_legally_or_says_why(text) is not None) == (text in legal())


@given(st.sampled_from(sorted(legal_boards())), st.data())
def test_spellings_of_a_legal_board_round_trip(board, data):
    assert rules.parse(rules.pretty(board)) == board
    assert rules.parse(board.lower()) == board
    assert rules.parse("/".join(board[i : i + 3] for i in (0, 3, 6))) == board
    empties = data.draw(st.sampled_from(".-_"))
    assert rules.parse(board.replace(".", empties)) == board


@given(st.lists(st.integers(min_value=-2, max_value=10), max_size=10))
def test_move_lists(cells):
    spec = ",".join(map(str, cells))
    try:
        board = rules.parse_moves(spec)
    except InvalidBoardError as error:
        assert str(error).startswith("invalid move"), error
        return
    assert board in legal() and rules.ply(board) == len(cells)


@given(st.text(alphabet="0123456789, -x", max_size=20))
def test_move_text(spec):
    try:
        board = rules.parse_moves(spec)
    except InvalidBoardError:
        return
    assert board in legal()
