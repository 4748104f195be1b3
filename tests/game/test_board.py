"""Board notation and legality, over the whole 3^9 space."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from ttt_solver.errors import GameOverError, InvalidBoardError
from ttt_solver.game import rules
from ttt_solver.game.rules import Board
from ttt_solver.game.variant import Variant

FIRST = "but X moves first so X must have as many marks as O or one more"
ALL_TEXTS = ["".join(cells) for cells in itertools.product("XO.", repeat=9)]


@pytest.fixture(scope="module")
def legal() -> list[str]:
    return [text for text in ALL_TEXTS if rules.legality_error(text) is None]


def test_exactly_5478_of_the_3_pow_9_boards_are_legal(legal):
    assert len(ALL_TEXTS) == 3**9
    assert len(legal) == 5478


def test_legal_boards_are_exactly_those_reached_by_play(legal):
    assert sorted(rules.all_boards()) == sorted(legal)


def test_finished_and_unfinished_counts(legal):
    finished = Counter(rules.winner(t) or "draw" for t in legal if rules.terminal_value(t) is not None)
    assert sum(finished.values()) == 958
    assert finished == {"X": 626, "O": 316, "draw": 16}
    assert sum(1 for t in legal if rules.terminal_value(t) is None) == 4520


def test_every_illegal_board_gets_a_specific_reason():
    reasons = Counter()
    for text in ALL_TEXTS:
        reason = rules.legality_error(text)
        if reason is not None:
            reasons[reason.split(":")[0].split(" (")[0]] += 1
    assert reasons == {
        "wrong piece counts": 13637,
        "both X and O have 3 in a row": 156,
        "X has 3 in a row but O moved last": 316,
        "O has 3 in a row but X moved last": 96,
    }


@pytest.mark.parametrize(
    "text, message",
    [
        ("XXX......", "wrong piece counts: X has 3 and O has 0, " + FIRST),
        ("OO.......", "wrong piece counts: X has 0 and O has 2, " + FIRST),
        ("XXXOOO...", "both X and O have 3 in a row"),
        ("XXXOO.O..", "X has 3 in a row but O moved last (X has 3, O has 3): the game was already over"),
        ("OOOXX.X.X", "O has 3 in a row but X moved last (X has 4, O has 3): the game was already over"),
    ],
)
def test_illegal_boards_name_what_is_wrong(text, message):
    with pytest.raises(InvalidBoardError) as error:
        rules.parse(text)
    assert str(error.value) == f"illegal board {text!r}: {message}"


def test_separate_lines_mean_a_move_after_the_game_ended():
    # Impossible on 3x3 with fitting counts; 4x4 with k = 3 has room for it.
    variant = Variant.parse("4x4k3")
    text = "XXX.OOO.XXX.OO.."
    assert "both X and O" in rules.legality_error(text, variant)
    text = "XXX.OO.OXXX.OO.."
    assert rules.legality_error(text, variant) == "X has two separate lines: a move was made after the game ended"


@pytest.mark.parametrize(
    "text, message",
    [
        ("XXq......", "bad character 'q' at position 2 (use X, O and . for empty)"),
        ("X...O...", "expected 9 cells, got 8"),
        ("X...O.....", "expected 9 cells, got 10"),
        ("", "expected 9 cells, got 0"),
    ],
)
def test_bad_text_is_rejected_with_the_reason(text, message):
    with pytest.raises(InvalidBoardError, match="^invalid board") as error:
        rules.parse(text)
    assert str(error.value) == f"invalid board {text!r}: {message}"


def test_non_text_is_rejected():
    with pytest.raises(InvalidBoardError, match="expected text"):
        rules.normalize(123)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "spelling", ["x...o....", "X---O----", "X___O____", "X../.O./...", "X..|.O.|...", " X..\n.O.\n... "]
)
def test_accepted_spellings_normalise(spelling):
    assert rules.parse(spelling) == "X...O...."


def test_text_and_array_forms_round_trip(legal):
    for text in legal:
        array = rules.to_array(text)
        assert set(array) <= {-1, 0, 1}
        assert rules.from_array(array) == text
        assert rules.parse(rules.pretty(text)) == text
        assert Board(text).text == text
        assert eval(repr(Board(text))) == Board(text)


@pytest.mark.parametrize(
    "cells, message",
    [
        ([1, 0, 0], "expected 9 cells, got 3"),
        ([2, 0, 0, 0, 0, 0, 0, 0, 0], "bad value 2 (use +1, -1 or 0)"),
        (["a"] * 9, "expected integers +1, -1 or 0"),
        (None, "expected integers +1, -1 or 0"),
    ],
)
def test_bad_arrays_are_rejected(cells, message):
    with pytest.raises(InvalidBoardError, match=message.replace("(", r"\(").replace(")", r"\)").replace("+", r"\+")):
        rules.from_array(cells)


def test_moves_play_from_the_empty_board():
    assert rules.parse_moves("4,0,8") == "O...X...X"
    assert Board.from_moves([4, 0]).text == "O...X...."
    assert Board.empty().legal_moves() == list(range(9))


@pytest.mark.parametrize(
    "spec, message",
    [
        ("4,4", "invalid move 4: cell 4 of '....X....' is taken"),
        ("9", "invalid move 9: cells are 0 to 8"),
        ("-1", "invalid move -1: cells are 0 to 8"),
        ("0,3,1,4,2,5", "invalid move 5: the game on 'XXXOO....' is already over"),
        ("a,b", "invalid moves 'a,b': expected cell numbers separated by commas, e.g. 4,0,8"),
    ],
)
def test_bad_move_lists_are_rejected(spec, message):
    with pytest.raises(InvalidBoardError) as error:
        rules.parse_moves(spec)
    assert str(error.value) == message


def test_board_object_reports_the_game_state():
    board = Board("XXX/OO./...")
    assert (board.is_over, board.winner, board.to_move, board.ply) == (True, "X", "O", 5)
    assert board.legal_moves() == []
    assert Board("XOXXOOOXX").winner is None and Board("XOXXOOOXX").is_over
    assert board.pretty() == "XXX\nOO.\n..."
    assert str(Board.from_array([1, 0, 0, 0, -1, 0, 0, 0, 0])) == "X...O...."
    assert Board("X...O....").play(8) == Board("X...O...X")


def test_game_over_error_is_a_value_error():
    assert issubclass(GameOverError, ValueError) and issubclass(InvalidBoardError, ValueError)
