"""Proof against damage: every stored number of a 3x3 database changed in turn must be caught
by ``verify`` and by every lookup that shows it; on 4x4, 50 changed rows at once; any value in
any stored column; files of older schemas, missing and extra rows, wrong orbits, wrong digests."""

from __future__ import annotations

import dataclasses
import json
import random
import shutil
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from support.damage import set_number

from ttt_solver.audit.moves_check import compare_moves
from ttt_solver.audit.report import Report
from ttt_solver.audit.retrograde import chunks, plies, prove_arrays, prove_chunk
from ttt_solver.audit.verify import verify_source
from ttt_solver.cli import cli
from ttt_solver.errors import DatabaseError
from ttt_solver.game import codec, rules
from ttt_solver.game.variant import STANDARD, Variant
from ttt_solver.lookup.proof import resolve
from ttt_solver.lookup.rows import DatabaseRows
from ttt_solver.solver.passes import Solved, new_tier, spread
from ttt_solver.solver.tiers import tiers
from ttt_solver.store import Target
from ttt_solver.store.arrays import Arrays
from ttt_solver.store.reader import Reader

V4X4 = Variant.parse("4x4")


def sql(path: Path, *statements: str) -> None:
    with closing(sqlite3.connect(path)) as conn, conn:
        for statement in statements:
            conn.execute(statement)


def verify(path: Path, variant: Variant = STANDARD) -> Report:
    with Reader(Target.parse(path), variant.name) as reader:
        return verify_source(DatabaseRows(reader, variant))


def parent_of(board: str, variant: Variant) -> str | None:
    """A legal unfinished board one move before ``board`` (None for the empty board)."""
    last = rules.O if rules.to_move(board) == rules.X else rules.X
    for cell, mark in enumerate(board):
        if mark == last:
            before = board[:cell] + rules.EMPTY + board[cell + 1 :]
            if rules.legality_error(before, variant) is None and rules.terminal_value(before, variant) is None:
                return before
    return None


@pytest.fixture(scope="module")
def stored(db_path):
    """The 3x3 positions as the lookups read them, and the moves table."""
    with Reader(Target.parse(db_path), "3x3") as reader:
        source = DatabaseRows(reader, STANDARD)
        return source.arrays(), [row for block in reader.move_blocks(1000) for row in block]


def caught_by_lookups(arrays: Arrays, board: str) -> bool:
    """Whether a proven lookup of ``board`` reports the damage in ``arrays``."""
    try:
        resolve(board, arrays.variant, arrays.fetch, "<test>", lambda: "rebuild it", prove=True)
    except DatabaseError as error:
        return "contradicts itself" in str(error)
    return False


def flips(arrays: Arrays) -> list[tuple[int, str, Callable[[Arrays], Arrays]]]:
    """Every stored number of every row, each changed alone: (row, what, change)."""
    found = []

    def set_column(name: str, row: int, value: int) -> Callable[[Arrays], Arrays]:
        def change(a: Arrays) -> Arrays:
            column = getattr(a, name).copy()
            column[row] = value
            return dataclasses.replace(a, **{name: column})

        return change

    cells = arrays.variant.cells
    for row in range(len(arrays)):
        value, remoteness = int(arrays.value[row]), int(arrays.remoteness[row])
        found.append((row, "value", set_column("value", row, (value + 2) % 3 - 1)))
        found.append((row, "remoteness", set_column("remoteness", row, remoteness + 1)))
        best = int(arrays.best[row])
        board = codec.decode(int(arrays.code[row]), cells)
        for cell in range(cells):  # every best-moves entry dropped, and every other empty cell added
            if best >> cell & 1 or (board[cell] == rules.EMPTY and rules.terminal_value(board) is None):
                found.append((row, f"best cell {cell}", set_column("best", row, best ^ (1 << cell))))
        if row % 3 == 0:  # the move counts and orbits, which no lookup shows: every third row
            for name in ("wins", "draws", "losses", "orbit"):
                found.append((row, name, set_column(name, row, int(getattr(arrays, name)[row]) + 1)))
    return found


@pytest.fixture(scope="module")
def tier_inputs(stored):
    """What the whole-table proof hands the proof of each 3x3 tier of the sound table: the
    tier's stored rows and the result bytes of the tier below (spread from its stored rows)."""
    arrays, _moves = stored
    found = tiers(STANDARD)
    solved = solved_of(arrays)
    ply = plies(solved.code, STANDARD)
    rows, below = {}, {}
    for p in range(9, -1, -1):
        assert chunks(STANDARD, p, None) == [(0, found.size(p))]  # each 3x3 tier is proved in one chunk
        rows[p] = solved.take(np.flatnonzero(ply == p))
        below[p - 1] = new_tier(found, p)
        spread(found, p, rows[p], below[p - 1])
    return found, ply, rows, below


@pytest.mark.long
@pytest.mark.parametrize("part", range(2))  # every row whose number % 2 is part: two tests for two workers
def test_every_changed_number_is_caught_by_verify_and_by_every_lookup_that_shows_it(stored, tier_inputs, part):
    """Each changed number alone: the proof of its tier (what ``prove_tiers`` runs for it, the
    tiers below being unchanged) lists its row; every 16th change goes through the whole proof;
    every lookup that shows the number (its board's, its parent's) reports the damage."""
    arrays, _moves = stored
    found, ply, rows, below = tier_inputs
    assert prove_arrays(arrays, Report("3x3", "<test>", "")).report.ok
    assert all(not prove_chunk(found, p, 0, found.size(p), below.get(p), rows[p]).findings.bad for p in rows)
    checked = whole = 0
    for n, (row, what, change) in enumerate(flips(arrays)):
        if row % 2 != part:
            continue
        damaged = change(arrays)
        board, code, p = codec.decode(int(arrays.code[row]), 9), int(arrays.code[row]), int(ply[row])
        tier = solved_of(damaged).take(np.flatnonzero(ply == p))
        assert code in prove_chunk(found, p, 0, found.size(p), below.get(p), tier).findings.bad, (board, what)
        if n % 16 == part:
            report = prove_arrays(damaged, Report("3x3", "<test>", "")).report
            assert not report.ok and code in report.bad, (board, what)
            whole += 1
        if what in ("wins", "draws", "losses", "orbit"):
            continue  # no lookup shows these: verify alone answers for them
        assert caught_by_lookups(damaged, board), (board, what)
        parent = parent_of(board, STANDARD)
        if parent is not None:  # the parent shows this row as one of its moves
            assert caught_by_lookups(damaged, parent), (board, what, parent)
        checked += 1
    assert checked > 765 * 3 // 2 and whole > 100


@pytest.mark.long
def test_every_changed_moves_row_is_caught_by_verify(stored):
    """The moves rows are compared row by row: each changed alone (a sample of 200), and all of
    them changed at once, which must count every row."""
    arrays, moves = stored
    rows = solved_of(arrays)
    report = Report("3x3", "<test>", "")
    compare_moves([moves], rows, STANDARD, report)
    assert report.ok and len(moves) == 2270
    changes = (lambda v, r: ((v + 2) % 3 - 1, r), lambda v, r: (v, r + 1))
    for i in random.Random(5).sample(range(len(moves)), 200):
        code, cell, value, remoteness = moves[i]
        for change in changes:
            report = Report("3x3", "<test>", "")
            compare_moves(
                [moves[:i], [(code, cell, *change(value, remoteness))], moves[i + 1 :]], rows, STANDARD, report
            )
            assert not report.ok and report.found == 1, (code, cell)
    for change in changes:
        report = Report("3x3", "<test>", "")
        compare_moves([[(code, cell, *change(v, r)) for code, cell, v, r in moves]], rows, STANDARD, report)
        assert report.found == len(moves)


def solved_of(arrays: Arrays) -> Solved:
    none = np.zeros(len(arrays.code), dtype=np.uint32)
    return Solved(*(none if name == "preferred" else getattr(arrays, name) for name in Solved._fields))


def test_a_sample_of_changes_through_the_file_and_the_command_line(db_path, tmp_path):
    rng = random.Random(7)
    rows = sql_rows(db_path, "SELECT code, board, value, remoteness FROM positions WHERE ply BETWEEN 1 AND 7")
    for code, board, value, remoteness in rng.sample(rows, 12):
        copy = tmp_path / "copy.sqlite"
        shutil.copyfile(db_path, copy)
        sql(copy, f"UPDATE positions SET {set_number('remoteness', str(remoteness + 2))} WHERE code = {code}")
        runner = CliRunner()
        for shown in (board, parent_of(board, STANDARD)):
            result = runner.invoke(cli, ["analyze", shown, "--db", str(copy)])
            assert result.exit_code == 1 and result.stdout == "", (board, shown)
            assert "contradicts itself at board" in result.stderr and result.stderr.count("\n") == 1
        result = runner.invoke(cli, ["verify", "--db", str(copy), "--quiet"])
        assert result.exit_code == 1 and "remoteness not what the children imply" in result.stdout
        assert result.stderr.startswith("Error: ") and result.stderr.endswith("--force\n")
        assert code in verify(copy).bad


def sql_rows(path: Path, statement: str) -> list[tuple]:
    with closing(sqlite3.connect(path)) as conn:
        return conn.execute(statement).fetchall()


def test_verify_proves_a_sound_database(db_path):
    result = CliRunner().invoke(cli, ["verify", "--db", str(db_path), "--quiet"])
    assert result.exit_code == 0 and result.stderr == ""
    assert result.stdout.splitlines()[-1] == "the table is proved"
    assert "ok    value of every row from its children" in result.stdout
    data = json.loads(CliRunner().invoke(cli, ["verify", "--db", str(db_path), "--json"]).stdout)
    assert data["ok"] is True and data["contradictions"] == 0 and len(data["checks"]) >= 15


EDGE = "board = '........X'"  # a canonical ply-1 row


@pytest.mark.parametrize(
    "statements, message",
    [
        (
            ["DELETE FROM positions WHERE code = (SELECT min(code) FROM positions WHERE ply = 2)"],
            "rows in positions as meta says",
        ),
        (
            [
                "UPDATE meta SET value = '764' WHERE key = 'positions'",
                "DELETE FROM positions WHERE code = (SELECT max(code) FROM positions WHERE ply = 9)",
            ],
            "a canonical legal position with no row",
        ),
        ([f"INSERT INTO positions (code, data) VALUES ({codec.encode('XX.......')}, 1)"], "no legal position"),
        ([f"INSERT INTO positions (code, data) VALUES ({codec.encode('X........')}, 1)"], "not canonical"),
        ([f"UPDATE positions SET {set_number('orbit', '3')} WHERE {EDGE}"], "wrong orbit"),
        (
            [f"UPDATE positions SET {set_number('best', '((data >> 26) | 1) - ((data >> 26) & 1)')} WHERE {EDGE}"],
            "best moves not what",
        ),
        (["UPDATE meta SET value = 'ab' WHERE key = 'digest'"], "packed arrays: the content digest is"),
        (["UPDATE packed SET data = x'00' WHERE name = 'value'"], "packed arrays:"),
        (["UPDATE packed SET part = 3 WHERE name = 'orbit'"], "packed arrays:"),
        (["UPDATE moves SET remoteness = 3 WHERE code = (SELECT min(code) FROM moves)"], "moves rows differ"),
        (
            ["UPDATE meta SET value = '0' WHERE key = 'moves_stored'", "UPDATE moves SET value = -value"],
            "meta says no moves are stored",
        ),
        (
            ["UPDATE meta SET value = '0' WHERE key = 'moves_stored'", "UPDATE moves SET value = -value"],
            "moves rows differ",
        ),
        (["DELETE FROM moves"], "0 rows in moves as meta says"),
        (["ALTER TABLE positions DROP COLUMN winner"], "the positions table and its generated columns"),
        # The repro: a code pushed out of range (3**9 + ...), and any value in data.
        (["UPDATE positions SET code = code + 1000000 WHERE board = '....O...X'"], "a code out of range"),
        ([f"UPDATE positions SET data = 'x' WHERE {EDGE}"], "no packing of a row's numbers"),
        ([f"UPDATE positions SET data = 0.5 WHERE {EDGE}"], "no packing of a row's numbers"),
        ([f"UPDATE positions SET data = x'07' WHERE {EDGE}"], "no packing of a row's numbers"),
        ([f"UPDATE positions SET data = -2 WHERE {EDGE}"], "no packing of a row's numbers"),
        ([f"UPDATE positions SET data = 9223372036854775807 WHERE {EDGE}"], "no packing of a row's numbers"),
        ([f"UPDATE positions SET data = '{'9' * 40}' WHERE {EDGE}"], "no packing of a row's numbers"),
        ([f"UPDATE positions SET data = data | 3 WHERE {EDGE}"], "no packing of a row's numbers"),  # value bits 3
        ([f"UPDATE positions SET data = data | (1 << 35) WHERE {EDGE}"], "no packing of a row's numbers"),  # cell 9
    ],
)
def test_verify_reports_each_kind_of_damage(db_path, tmp_path, statements, message):
    copy = tmp_path / "copy.sqlite"
    shutil.copyfile(db_path, copy)
    sql(copy, *statements)
    report = verify(copy)
    assert not report.ok
    assert any(message in line for line in report.contradictions), report.contradictions
    with pytest.raises(DatabaseError, match="fails verification"):
        report.raise_for_contradictions()


def test_an_index_someone_added_does_not_change_what_verify_reads(db_path, tmp_path):
    # verify reads the table in rowid (code) order whatever indexes a user adds beside it.
    copy = tmp_path / "copy.sqlite"
    shutil.copyfile(db_path, copy)
    sql(copy, "CREATE INDEX by_board ON positions (board, to_move, best_moves, winner, value, remoteness, data)")
    assert verify(copy).ok


def test_a_schema_1_file_says_to_rebuild(tmp_path):
    old = tmp_path / "old.sqlite"
    sql(
        old,
        "CREATE TABLE positions (board TEXT PRIMARY KEY, value INTEGER)",
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)",
        "INSERT INTO meta VALUES ('generator', 'ttt-solver'), ('schema_version', '1'), ('variant', '3x3')",
    )
    for command in (["analyze", "X........"], ["verify"], ["stats"], ["query", "traps"]):
        result = CliRunner().invoke(cli, [*command, "--db", str(old)])
        assert result.exit_code == 1 and result.stdout == ""
        assert result.stderr == (
            f"Error: database '{old}' was built by an older version of ttt-solver (schema 1);"
            f" rebuild it with: ttt-lookup build --variant 3x3 --db {old} --force\n"
        )


@pytest.mark.long
def test_50_changed_4x4_rows_are_all_found(db_4x4, tmp_path):
    copy = tmp_path / "4x4.sqlite"
    shutil.copyfile(db_4x4, copy)
    rng = random.Random(11)
    codes = rng.sample([code for (code,) in sql_rows(copy, "SELECT code FROM positions")], 200)
    rows = sql_rows(
        copy,
        "SELECT code, board, value, remoteness FROM positions WHERE ply BETWEEN 2 AND 14"
        f" AND code IN ({', '.join(map(str, codes))})",
    )
    changed = rng.sample(rows, 50)
    sql(
        copy,
        *(f"UPDATE positions SET {set_number('value', str((v + 2) % 3 - 1))} WHERE code = {code}"
          for code, _b, v, _r in changed[:25]),
        *(f"UPDATE positions SET {set_number('remoteness', str(r + 1))} WHERE code = {code}"
          for code, _b, _v, r in changed[25:]),
    )  # fmt: skip
    report = verify(copy, V4X4)
    assert {code for code, *_ in changed} <= report.bad
    runner = CliRunner()
    for _code, board, _v, _r in changed:
        for shown in (board, parent_of(board, V4X4)):
            result = runner.invoke(cli, ["analyze", shown, "--variant", "4x4", "--db", str(copy), "--json"])
            assert result.exit_code == 1 and result.stdout == "", (board, shown)
            assert "--variant 4x4" in result.stderr and result.stderr.count("\n") == 1


def test_eager_loads_prove_small_tables_whole(db_path, tmp_path):
    """A changed packed array with a matching digest is still caught: an eager load of a small
    variant proves the whole table against the rules."""
    from ttt_solver import Oracle
    from ttt_solver.store.content import PACKED, digest, pack_blob

    copy = tmp_path / "copy.sqlite"
    shutil.copyfile(db_path, copy)
    with Reader(Target.parse(copy), "3x3") as reader:
        arrays = DatabaseRows(reader, STANDARD).arrays()
    value = arrays.value.copy()
    value[5] = (value[5] + 2) % 3 - 1
    raw = {name: getattr(arrays, name).astype(dtype).tobytes() for name, dtype in PACKED}
    raw["value"] = value.astype("i1").tobytes()
    with closing(sqlite3.connect(copy)) as conn, conn:
        conn.execute("UPDATE packed SET data = ? WHERE name = 'value'", (pack_blob("value", raw["value"]),))
        conn.execute("UPDATE meta SET value = ? WHERE key = 'digest'", (digest("3x3", raw),))
    with pytest.raises(DatabaseError, match="fails verification"):
        Oracle.load(copy)
    assert np.count_nonzero(value != arrays.value) == 1


@pytest.mark.long
@settings(max_examples=100, derandomize=True, deadline=None)
@given(
    st.integers(0, 764),
    st.sampled_from(["code", "data"]),
    st.one_of(
        st.integers(-(2**63), 2**63 - 1),
        st.integers(0, 1 << 40),
        st.floats(allow_nan=False),
        st.text(max_size=8),
        st.binary(max_size=8),
        st.none(),
    ),
)
def test_any_value_in_any_stored_column_is_reported_never_raised(db_path, tmp_path_factory, row, column, value):
    """Item 1 of the issue: whatever a row of ``positions`` holds, verify answers with a
    report (it passes only if the row still says what it said), and ``Oracle.load(verify=True)``
    raises only a DatabaseError."""
    from ttt_solver import Oracle

    copy = tmp_path_factory.mktemp("any") / "copy.sqlite"
    shutil.copyfile(db_path, copy)
    with closing(sqlite3.connect(copy)) as conn, conn:
        code = conn.execute(f"SELECT code FROM positions LIMIT 1 OFFSET {row}").fetchone()[0]
        before = conn.execute("SELECT code, data FROM positions WHERE code = ?", (code,)).fetchone()
        try:
            conn.execute(f"UPDATE positions SET {column} = ? WHERE code = ?", (value, code))
        except sqlite3.Error:  # a code that is no integer, or one taken: SQLite refuses it
            return
        after = conn.execute(
            "SELECT code, data FROM positions WHERE rowid = ?", (value if column == "code" else code,)
        ).fetchone()
    report = verify(copy)
    assert report.ok == (after == before), (before, after, report.contradictions)
    if not report.ok:
        with pytest.raises(DatabaseError):
            Oracle.load(copy, verify=True)
