"""The oracle against an independent minimax on every legal board, and its API contract."""

from __future__ import annotations

import random
import sqlite3
from collections import Counter

import numpy as np
import pytest
from support import negamax
from support.boards import legal_boards
from support.damage import copy_with, set_number
from support.parse_spy import count_parses

from ttt_solver import Oracle
from ttt_solver.builder.first_use import FirstUseBuild, shared_oracle
from ttt_solver.errors import DatabaseError, DatabaseMissingError, GameOverError, InvalidBoardError
from ttt_solver.game import codec, rules
from ttt_solver.game.rules import Board
from ttt_solver.game.variant import STANDARD
from ttt_solver.lookup.analysis import analyze
from ttt_solver.solver.reference import rank, solve
from ttt_solver.store import paths

LEGAL = legal_boards()


@pytest.fixture(scope="module")
def oracle(db_path) -> Oracle:
    return Oracle.load(db_path)


def test_every_legal_board_against_an_independent_minimax(oracle):
    for text in LEGAL:
        value, remoteness, moves = negamax.solve(negamax.from_text(text))
        assert (oracle.value(text), oracle.remoteness(text)) == (value, remoteness), text
        assert oracle.best_moves(text) == sorted(c for c, (v, _) in moves.items() if v == value), text
        assert {m.cell: (m.value, m.remoteness) for m in oracle.moves(text)} == moves, text
        fastest = min((rank(v, r) for v, r in moves.values()), default=None)
        preferred = sorted(c for c, (v, r) in moves.items() if rank(v, r) == fastest)
        assert oracle.preferred_moves(text) == preferred == list(oracle.probe(text).preferred_moves), text
        if moves:
            assert oracle.best_move(text) == preferred[0]


def test_moves_are_listed_best_first(oracle):
    moves = oracle.moves("X.X.O..O.")  # O to move, X threatens cell 1
    assert next(m.cell for m in moves) == 1
    keys = [(*rank(m.value, m.remoteness), m.cell) for m in moves]
    assert keys == sorted(keys)


def test_the_published_example(oracle):
    assert oracle.value("X...O....") == 0
    assert oracle.remoteness("X...O....") == 7
    assert oracle.best_moves("X...O....") == [1, 2, 3, 5, 6, 7, 8]


def test_a_board_can_be_text_a_board_object_or_numbers(oracle):
    forms = [
        "x...o....",
        "X../.O./...",
        Board("X...O...."),
        [1, 0, 0, 0, -1, 0, 0, 0, 0],
        (1, 0, 0, 0, -1, 0, 0, 0, 0),
        np.array([1, 0, 0, 0, -1, 0, 0, 0, 0], dtype=np.int8),
    ]
    assert {oracle.remoteness(form) for form in forms} == {7}


def test_finished_boards_have_a_value_and_no_moves(oracle):
    assert (oracle.value("XXXOO...."), oracle.remoteness("XXXOO...."), oracle.moves("XXXOO....")) == (-1, 0, [])
    assert oracle.best_moves("XOXXOOOXX") == [] and oracle.value("XOXXOOOXX") == 0
    assert oracle.line("XXXOO....") == []
    with pytest.raises(GameOverError, match="no move on 'XXXOO....': the game is over"):
        oracle.best_move("XXXOO....")


@pytest.mark.parametrize("bad", ["XXXXXXXXX", "XX", "XXq......", [2] * 9, [1, 0]])
def test_illegal_boards_raise_and_the_get_forms_return_the_default(oracle, bad):
    with pytest.raises(InvalidBoardError):
        oracle.value(bad)
    assert oracle.get_value(bad) is None
    assert oracle.get_remoteness(bad, default=-9) == -9
    assert oracle.get_best_moves(bad, default=[]) == []
    assert oracle.get_preferred_moves(bad, default=[]) == []
    assert oracle.get_best_move(bad, default=-1) == -1


def test_get_forms_answer_legal_boards(oracle):
    assert oracle.get_value("X...O....") == 0 and oracle.get_remoteness("X...O....") == 7
    assert oracle.get_best_move("XXXOO....", default="over") == "over"
    assert oracle.get_best_move("XX.OO....") == 2
    assert oracle.get_preferred_moves("XX.O.O...") == [2]  # X wins at 2 at once (at 4 it would only block)


def test_a_board_of_another_variant_is_rejected(oracle):
    from ttt_solver.game.variant import Variant

    with pytest.raises(InvalidBoardError, match="is a 3x3-misere board"):
        oracle.value(Board("X...O....", Variant.parse("3x3-misere")))


def test_best_move_breaks_ties_uniformly_with_either_kind_of_rng(oracle):
    board = "........."  # every cell draws in 9
    for rng in (random.Random(3), np.random.default_rng(3)):
        counts = Counter(oracle.best_move(board, rng) for _ in range(9000))
        assert set(counts) == set(range(9))
        assert all(800 < n < 1200 for n in counts.values())


def test_best_move_prefers_the_fastest_win(oracle):
    # X can win now on 2, or set up a later win elsewhere: it must take the win now.
    assert oracle.probe("XX..O.O..").preferred_moves == (2,)


def test_line_plays_perfectly_to_the_end(oracle):
    for text in random.Random(0).sample(LEGAL, 300):
        line = oracle.line(text, random.Random(1))
        assert len(line) == oracle.remoteness(text)
        board = text
        for cell in line:
            assert cell in oracle.probe(board).preferred_moves
            board = rules.play(board, cell)
        assert rules.terminal_value(board) is not None


def test_a_line_proves_each_row_it_reaches(db_path, tmp_path):
    # The row four plies down the line is read by no proof of the first position (its children's
    # rows, their children's): the line proves it, or the row above it, when it gets there.
    board = "X...O...."
    cells = Oracle.load(db_path, eager=False).line(board)
    deep = board
    for cell in cells[:4]:
        deep = rules.play(deep, cell)
    code, _perm = codec.canonical(deep, STANDARD)
    damage = f"UPDATE positions SET {set_number('remoteness', 'remoteness + 2')} WHERE code = {code}"
    oracle = Oracle.load(copy_with(db_path, tmp_path, damage), eager=False)
    assert oracle.probe(board).preferred_moves[0] == cells[0]  # the first position's proof passes
    with pytest.raises(DatabaseError, match="contradicts itself"):
        oracle.line(board)


def test_batch_lookups_match_the_single_ones(oracle):
    texts = LEGAL
    array = np.array([rules.to_array(t) for t in texts], dtype=np.int8)
    assert oracle.value_batch(array).tolist() == [oracle.value(t) for t in texts]
    assert oracle.value_batch(array.astype(np.int64)).tolist() == [oracle.value(t) for t in texts]
    assert oracle.best_move_batch(array).tolist() == [
        oracle.probe(t).preferred_moves[0] if oracle.probe(t).preferred_moves else -1 for t in texts
    ]
    chosen = oracle.best_move_batch(array, np.random.default_rng(0)).tolist()
    for text, cell in zip(texts, chosen):
        assert cell in (oracle.probe(text).preferred_moves or (-1,))
    many = oracle.best_move_batch(np.zeros((9000, 9), dtype=np.int8), np.random.default_rng(1))
    assert sorted(Counter(many.tolist())) == list(range(9))


@pytest.mark.parametrize(
    "boards, message",
    [
        (np.zeros((3, 8), dtype=np.int8), r"expected an array of shape \(N, 9\), got \(3, 8\)"),
        (np.zeros(9, dtype=np.int8), r"expected an array of shape \(N, 9\), got \(9,\)"),
        (np.zeros((2, 9)), "expected integers"),
        (np.array([[0] * 9, [0, 0, 3, 0, 0, 0, 0, 0, 0]]), r"row 1 has a value other than \+1, -1 or 0"),
        (np.array([[0] * 9, [1, 1, 0, 0, 0, 0, 0, 0, 0]]), r"row 1 \('XX.......'\) is illegal: wrong piece counts"),
    ],
)
def test_batch_rejects_bad_arrays(oracle, boards, message):
    with pytest.raises(InvalidBoardError, match=message):
        oracle.value_batch(boards)


def test_an_empty_batch(oracle):
    assert oracle.value_batch(np.zeros((0, 9), dtype=np.int8)).shape == (0,)


def test_from_solutions_agrees_with_the_database(oracle):
    memory = Oracle.from_solutions(solve())
    assert memory.all_positions() == oracle.all_positions()
    assert len(oracle.all_positions()) == 5478


def test_lazy_and_eager_oracles_agree(oracle, db_path):
    with Oracle.load(db_path, eager=False) as lazy:
        for text in LEGAL:
            assert lazy.probe(text) == oracle.probe(text)


def test_loading_never_builds_the_default_database(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(paths, "data_folder", lambda: str(tmp_path / "data"))
    with pytest.raises(DatabaseMissingError, match=r"^no 3x3 database at .*; build it with: ttt-lookup build \("):
        Oracle.load()
    assert not (tmp_path / "data").exists()
    with pytest.warns(FirstUseBuild, match="building the 3x3 database at "):
        fresh = shared_oracle()  # above the read layer: a small variant is built on first use
    assert (tmp_path / "data" / "ttt.sqlite").is_file()
    assert fresh.value(".........") == 0
    assert capsys.readouterr().err == ""  # the library never prints


def test_an_incomplete_database_is_reported(db_path, tmp_path):
    copy = tmp_path / "copy.sqlite"
    copy.write_bytes(db_path.read_bytes())
    with sqlite3.connect(copy) as conn:
        conn.execute(f"DELETE FROM positions WHERE code = {codec.canonical_code('X........', STANDARD)}")
    with pytest.raises(DatabaseError, match="has no row for board '........X': it is incomplete"):
        Oracle.load(copy, eager=False).value(".........")
    with pytest.raises(DatabaseError, match="fails verification"):
        Oracle.load(copy, verify=True)


def test_an_oracle_closes_and_is_a_context_manager(db_path):
    with Oracle.load(db_path, eager=False) as oracle:
        assert oracle.value("X........") == 0
    with pytest.raises(DatabaseError, match="is closed"):
        oracle.value("O...X....")
    eager = Oracle.load(db_path)
    eager.close()
    assert eager.value("O...X....") is not None  # an eager oracle keeps answering from memory


def test_repr(oracle):
    assert repr(oracle).startswith("Oracle(variant='3x3', source=")


def test_text_is_parsed_once_a_call_and_a_board_never(oracle, monkeypatch):
    parsed = count_parses(monkeypatch)
    assert analyze(oracle, "x../.o./...")["board"] == "X...O...."  # the probe and its line
    assert parsed == ["x../.o./..."]
    board = Board("..x/.o./...")
    parsed.clear()
    assert oracle.best_move(board) == oracle.preferred_moves(board)[0]
    assert oracle.line(board) and oracle.probe(board).board == board.text
    assert analyze(oracle, board)["board"] == board.text
    assert parsed == []


def test_a_row_keeps_its_best_moves_as_the_stored_mask(db_path):
    # A lookup reads a few hundred rows (the grandchildren that prove its children) but shows
    # the best moves of a few: a row keeps the stored mask, read as cells only where shown or
    # proved, so no row's cells are listed for nothing (nor a table of them built to do it faster).
    with Oracle.load(db_path, eager=False) as lazy:
        code, perm = codec.canonical("X...O....", lazy.variant)
        row = lazy.source.fetch([code])[code]
        assert isinstance(row.best, int)
        shown = lazy.probe("X...O....").best_moves
        assert sorted(perm[cell] for cell in range(9) if row.best >> cell & 1) == list(shown)
    with Oracle.load(db_path) as eager:  # the arrays in memory hand out the same rows
        assert eager.arrays().fetch([code])[code] == row
