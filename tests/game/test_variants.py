"""Variants through the database: published facts, the recursive solver as reference, and the
ways the oracle reads a big variant (proven per-lookup queries, compact arrays, batches)."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from support.damage import set_number
from support.playouts import playouts

from ttt_solver import Oracle
from ttt_solver.builder.build import MOVES_STORED_LIMIT, build
from ttt_solver.builder.first_use import FirstUseBuild, shared_oracle
from ttt_solver.cli import cli
from ttt_solver.errors import DatabaseError, InvalidBoardError, InvalidVariantError
from ttt_solver.game import codec, rules
from ttt_solver.game.variant import Variant
from ttt_solver.solver.reference import rank, solve
from ttt_solver.store import paths

ROOT = Path(__file__).resolve().parents[2]
V4X4 = Variant.parse("4x4")


def rows(path: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute(sql).fetchall()


# --- published facts, through the database ------------------------------------------------


def test_4x4_has_9722011_legal_positions_and_is_a_draw(db_4x4):
    path = db_4x4
    assert rows(path, "SELECT count(*), sum(orbit) FROM positions") == [(1_217_977, 9_722_011)]
    assert rows(
        path, f"SELECT board, value, remoteness, best_moves FROM positions WHERE code = {codec.offset(16)}"
    ) == [("................", 0, 16, ",".join(map(str, range(16))))]
    meta = dict(rows(path, "SELECT key, value FROM meta"))
    keys = ("variant", "legal_positions", "moves_stored", "moves")
    assert tuple(meta[k] for k in keys) == ("4x4", "9722011", "0", "0")


def test_4x4_best_moves_column_against_derived_moves(db_4x4, eager_4x4):
    for board, listed in rows(db_4x4, "SELECT board, best_moves FROM positions WHERE ply IN (3, 9, 14) LIMIT 300"):
        assert listed == ",".join(map(str, eager_4x4.best_moves(board))), board


@pytest.mark.long
def test_4x4k3_is_a_first_player_win(variant_db):
    path = variant_db("4x4k3")
    assert rows(path, "SELECT value FROM positions WHERE board = '................'") == [(1,)]
    oracle = Oracle.load(path, "4x4k3")
    assert oracle.value(rules.EMPTY * 16) == 1 and oracle.best_moves(rules.EMPTY * 16)


def test_3x3_misere_is_a_draw_only_with_the_centre(variant_db):
    path = variant_db("3x3-misere")
    oracle = Oracle.load(path, "3x3-misere")
    assert oracle.value(".........") == 0
    assert [m.cell for m in oracle.moves(".........") if m.value >= 0] == [4]
    assert all(m.value == -1 for m in oracle.moves(".........") if m.cell != 4)
    assert oracle.best_moves(".........") == [4]


# --- the vectorised build against the recursive solver ------------------------------------


@pytest.mark.parametrize("name", ["3x3", "3x3-misere", "3x4k3", "4x3k3"])
def test_database_matches_the_recursive_solver(variant_db, name):
    variant = Variant.parse(name)
    path = variant_db(name)
    solutions = solve(variant)
    found = rows(path, "SELECT board, value, remoteness, best_moves, orbit, wins, draws, losses FROM positions")
    expected = [
        (
            board, s.value, s.remoteness, ",".join(map(str, s.best_moves)), s.orbit,
            sum(m.value > 0 for m in s.moves), sum(m.value == 0 for m in s.moves), sum(m.value < 0 for m in s.moves),
        )
        for board, s in solutions.items()
    ]  # fmt: skip
    assert sorted(found) == sorted(expected)
    moves = rows(path, "SELECT p.board, m.cell, m.value, m.remoteness FROM moves m JOIN positions p ON p.code = m.code")
    assert sorted(moves) == sorted((b, m.cell, m.value, m.remoteness) for b, s in solutions.items() for m in s.moves)
    assert dict(rows(path, "SELECT key, value FROM meta"))["moves_stored"] == "1"


def test_moves_are_stored_only_for_small_variants(tmp_path):
    assert 148_906 <= MOVES_STORED_LIMIT < 1_064_087  # the move rows of 3x4 (stored) and 2x7k3 (not)
    report = build(tmp_path / "a.sqlite", Variant.parse("2x7k3"))
    assert report.moves == 0
    assert rows(tmp_path / "a.sqlite", "SELECT value FROM meta WHERE key = 'moves_stored'") == [("0",)]
    report = build(tmp_path / "b.sqlite", Variant.parse("2x5k3"))
    assert report.moves == 13_436


# --- the oracle on a big variant ----------------------------------------------------------


def test_lazy_and_eager_4x4_oracles_agree(eager_4x4, lazy_4x4):
    assert not eager_4x4.exhaustive and not lazy_4x4.exhaustive
    for board in playouts(V4X4, 400, seed=1):
        assert lazy_4x4.probe(board) == eager_4x4.probe(board), board


def test_4x4_probe_is_consistent(eager_4x4):
    for board in playouts(V4X4, 200, seed=2):
        position = eager_4x4.probe(board)
        if not position.moves:
            assert position.remoteness == 0 and rules.terminal_value(board, V4X4) is not None
            continue
        best = min(position.moves, key=lambda m: rank(m.value, m.remoteness))
        assert (position.value, position.remoteness) == (best.value, best.remoteness)
        for move in position.moves:  # each move's result is its child's answer, negated
            child = eager_4x4.probe(rules.play(board, move.cell, V4X4))
            assert (move.value, move.remoteness) == (-child.value, child.remoteness + 1)


def test_4x4_lookups_take_every_board_form(eager_4x4):
    board = "X...O..........."
    array = rules.to_array(board)
    assert eager_4x4.probe(array) == eager_4x4.probe(board) == eager_4x4.probe(rules.Board(board, V4X4))
    assert eager_4x4.line(board) and len(eager_4x4.line(board)) == eager_4x4.remoteness(board)
    with pytest.raises(InvalidBoardError, match="expected 16 cells"):
        eager_4x4.value("X...O....")
    assert eager_4x4.get_value("XX..............") is None


@pytest.mark.long
def test_4x4_batches_match_the_single_lookups(eager_4x4, lazy_4x4):
    boards = playouts(V4X4, 1500, seed=3)
    array = np.array([rules.to_array(board) for board in boards], dtype=np.int8)
    positions = [eager_4x4.probe(board) for board in boards]
    assert eager_4x4.value_batch(array).tolist() == [p.value for p in positions]
    assert eager_4x4.remoteness_batch(array).tolist() == [p.remoteness for p in positions]
    assert lazy_4x4.value_batch(array.astype(np.int64)).tolist() == [p.value for p in positions]
    assert eager_4x4.best_move_batch(array).tolist() == [
        p.preferred_moves[0] if p.preferred_moves else -1 for p in positions
    ]
    chosen = eager_4x4.best_move_batch(array, np.random.default_rng(0)).tolist()
    assert all(cell in (p.preferred_moves or (-1,)) for cell, p in zip(chosen, positions))
    spread = eager_4x4.best_move_batch(np.zeros((4000, 16), dtype=np.int8), np.random.default_rng(1))
    assert sorted(set(spread.tolist())) == list(range(16))


def test_4x4_batches_read_any_layout_and_leave_it_unchanged(eager_4x4):
    """16-cell codes are read from the boards' bytes (two 64-bit words a board): any integer
    type, Fortran order or a strided view answers the same, on threads past a pass of 65,536."""
    array = np.array([rules.to_array(board) for board in playouts(V4X4, 1500, seed=4)], dtype=np.int8)
    values = eager_4x4.value_batch(array)
    big = np.tile(array, (100, 1))  # 150,000 rows
    kept = big.copy()
    for layout in (big, np.asfortranarray(big), big.astype(np.int64), np.repeat(big, 2, axis=0)[::2]):
        assert eager_4x4.value_batch(layout).tolist() == np.tile(values, 100).tolist()
        assert eager_4x4.best_move_batch(layout).tolist() == np.tile(eager_4x4.best_move_batch(array), 100).tolist()
    assert np.array_equal(big, kept)


def test_4x4_batch_errors(eager_4x4):
    bad = np.zeros((3, 16), dtype=np.int8)
    bad[2, :2] = 1
    with pytest.raises(InvalidBoardError, match=r"row 2 \('XX..............'\) is illegal: wrong piece counts"):
        eager_4x4.value_batch(bad)
    with pytest.raises(InvalidBoardError, match=r"expected an array of shape \(N, 16\)"):
        eager_4x4.value_batch(np.zeros((3, 9), dtype=np.int8))
    with pytest.raises(InvalidBoardError, match="expected integers"):
        eager_4x4.value_batch(np.zeros((3, 16), dtype=bool))
    with pytest.raises(InvalidVariantError, match="millions of them"):
        eager_4x4.all_positions()


def test_a_lazy_lookup_imports_neither_numpy_nor_sqlalchemy(db_4x4):
    code = (
        f"from ttt_solver import Oracle\no = Oracle.load({str(db_4x4)!r}, '4x4', eager=False)\n"
        "print(o.best_move('X...O...........'))\n"
        "import sys\nprint('numpy' in sys.modules, 'sqlalchemy' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["1", "False", "False"]


def test_a_changed_row_is_caught_by_the_lookups_that_show_it(db_4x4, tmp_path):
    """The issue's repro: a drawn child of the empty board made 'a loss in 3' for O."""
    copy = tmp_path / "4x4.sqlite"
    shutil.copyfile(db_4x4, copy)
    child = codec.canonical_code("..........X.....", V4X4)
    with sqlite3.connect(copy) as conn:
        conn.execute(f"UPDATE positions SET {set_number('value', '-1')} WHERE code = {child}")
        conn.execute(f"UPDATE positions SET {set_number('remoteness', '3')} WHERE code = {child}")
    lazy = Oracle.load(copy, "4x4", eager=False)
    for board in ("................", "..........X....."):
        with pytest.raises(DatabaseError, match="contradicts itself at board") as caught:
            lazy.probe(board)
        assert str(caught.value).endswith(f"rebuild it with: ttt-lookup build --variant 4x4 --db {copy} --force")
    assert lazy.value("XO..............") == 0  # rows the damage does not reach still answer
    # An eager load trusts the digest-checked packed arrays, which still hold the truth (and
    # ttt-lookup verify finds the changed table: tests/audit/test_verify.py).
    assert Oracle.load(copy, "4x4").value("..........X.....") == 0
    with pytest.raises(DatabaseError, match="holds variant '4x4', not '4x4k3'"):
        Oracle.load(copy, "4x4k3", eager=False)


def test_lazy_and_eager_agree_on_every_misere_board(tmp_path):
    variant = Variant.parse("3x3-misere")
    path = tmp_path / "misere.sqlite"
    build(path, variant, store_moves=False)  # no moves table: the oracle derives them
    eager = Oracle.load(path, variant)
    lazy = Oracle.load(path, variant, eager=False)
    reference = Oracle.from_solutions(solve(variant), variant)
    for board in rules.all_boards(variant):
        assert lazy.probe(board) == eager.probe(board) == reference.probe(board), board


def test_a_missing_default_database_is_built_on_first_use_with_a_warning(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(paths, "data_folder", lambda: str(tmp_path / "data"))
    with pytest.warns(FirstUseBuild, match="building the 2x7k3 database at "):
        oracle = shared_oracle(Variant.parse("2x7k3"), eager=False)
    assert (tmp_path / "data" / "2x7k3.sqlite").is_file()
    assert capsys.readouterr().err == ""  # the library never prints
    assert oracle.value(rules.EMPTY * 14) == 0


def test_the_command_line_says_when_it_builds_on_first_use(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "data_folder", lambda: str(tmp_path / "data"))
    result = CliRunner().invoke(cli, ["best", "..............", "--variant", "2x7k3"])
    assert result.exit_code == 0 and result.stdout.strip().isdigit()
    assert "building the 2x7k3 database" in result.stderr


# --- the build command ----------------------------------------------------------------------


def test_the_default_path_of_a_variant(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "data_folder", lambda: str(tmp_path / "data"))
    assert paths.database_file(V4X4) == str(tmp_path / "data" / "4x4.sqlite")
    assert paths.database_file(Variant()) == str(tmp_path / "data" / "ttt.sqlite")
    result = CliRunner().invoke(cli, ["build", "--variant", "2x5k3", "--quiet"])
    assert result.exit_code == 0
    assert (tmp_path / "data" / "2x5k3.sqlite").is_file()
    assert result.stderr == "" and "(2x5k3): 15,983 positions" in result.stdout


@pytest.mark.parametrize(
    "name, message",
    [
        ("6x5", "Error: invalid variant '6x5': a 6x5 board has 30 cells; the most is 25"),
        (
            "4x4k5",
            "Error: invalid variant '4x4k5': on a 4x4 board k must be 3 or 4, not 5 (k runs from 3 to the longer side)",
        ),
        ("4by4", "Error: invalid variant '4by4': expected RxC with optional kK and -misere"),
    ],
)
def test_a_bad_variant_is_one_line_and_exit_2(tmp_path, name, message):
    result = CliRunner().invoke(cli, ["build", "--variant", name, "--db", str(tmp_path / "x.sqlite")])
    assert result.exit_code == 2
    assert result.stdout == "" and result.stderr.startswith(message) and result.stderr.count("\n") == 1
    assert not (tmp_path / "x.sqlite").exists()


def test_a_bad_variant_from_the_script(tmp_path):
    script = [sys.executable, str(ROOT / "build_db.py"), "--variant", "9x9"]
    run = subprocess.run(script, capture_output=True, text=True, check=False)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.startswith("Error: invalid variant '9x9'") and run.stderr.count("\n") == 1
