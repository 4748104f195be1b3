"""Any value in any column of a 3x3 database, and any byte of the file, changed: ``verify``
reports it (FAIL lines, exit 1, the rebuild command), ``Oracle.load(..., verify=True)`` raises
a DatabaseError, and every lookup that shows the row answers as before or refuses in one line.
Never a traceback, never a wrong answer; a change that left the content as it was passes."""

from __future__ import annotations

import random
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ttt_solver import Oracle
from ttt_solver.cli import cli
from ttt_solver.errors import DatabaseError, TTTError
from ttt_solver.game import rules

# The stored columns of each table (positions' others are generated from code and data: SQLite
# refuses to set them, so an example drawing one would test nothing).
COLUMNS = {
    "positions": ("code", "data"),
    "moves": ("code", "cell", "value", "remoteness"),
    "packed": ("name", "dtype", "data"),
    "meta": ("key", "value"),
}  # fmt: skip
# Meta values that nothing in the tables can confirm: any well-formed one passes.
FREE_META = ("generator_version", "solver_version", "built_at")

VALUES = st.one_of(
    st.integers(-3, 40),
    st.sampled_from([19_682, 19_683, 10**6, 2**31 - 1, 2**31, 2**40, 2**63 - 1, -(2**63), -1_000_000]),
    st.floats(allow_nan=False),
    st.sampled_from(["", "1", " 1", "x", "X", "O", "0,4", "4,0", "0,0", "9", "0,9", ".........", "XXXXXXXXX", "é"]),
    st.text(max_size=12),
    st.binary(max_size=12),
    st.none(),
)
SETTINGS = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def cell(conn: sqlite3.Connection, table: str, column: str, rowid: int) -> tuple[str, Any] | None:
    found = conn.execute(f"SELECT typeof({column}), {column} FROM {table} WHERE rowid = ?", (rowid,)).fetchone()
    return None if found is None else (found[0], found[1])


def parent_of(board: str) -> str | None:
    last = rules.O if rules.to_move(board) == rules.X else rules.X
    for index, mark in enumerate(board):
        if mark == last:
            before = board[:index] + rules.EMPTY + board[index + 1 :]
            if rules.legality_error(before) is None and rules.terminal_value(before) is None:
                return before
    return None


def analyze(db: Path, board: str) -> Any:
    return CliRunner().invoke(cli, ["analyze", board, "--db", str(db), "--json"])


def assert_one_error_line(result: Any) -> None:
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 1 and result.stdout == "", (result.exit_code, result.stdout)
    assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1, result.stderr


def assert_reported(db: Path) -> None:
    """verify fails in one line on stderr, the failed checks on stdout and the rebuild command;
    or the reader refuses to open the database (its meta table names no ttt-solver database)."""
    result = CliRunner().invoke(cli, ["verify", "--quiet", "--db", str(db)])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 1, (result.exit_code, result.stdout)
    assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1, result.stderr
    if result.stdout:
        assert "  FAIL  " in result.stdout and result.stdout.rstrip().endswith("--force"), result.stdout
        assert result.stderr.rstrip().endswith("--force"), result.stderr
    with pytest.raises(DatabaseError):
        Oracle.load(db, verify=True).close()


def assert_passes(db: Path) -> None:
    result = CliRunner().invoke(cli, ["verify", "--quiet", "--db", str(db)])
    assert result.exit_code == 0 and result.stdout.endswith("the table is proved\n"), result.stdout
    Oracle.load(db, verify=True).close()


class Original(dict[str, Any]):
    def __repr__(self) -> str:  # Hypothesis prints the arguments of a failing example
        return "<the intact 3x3 database>"


@pytest.fixture(scope="module")
def original(db_path: Path) -> dict[str, Any]:
    """The database's bytes, each table's rowids, and the answers of lookups (filled as asked)."""
    with closing(sqlite3.connect(db_path)) as conn:
        rowids = {table: [r for (r,) in conn.execute(f"SELECT rowid FROM {table} ORDER BY rowid")] for table in COLUMNS}
        boards = dict(conn.execute("SELECT code, board FROM positions"))
    return Original(bytes=db_path.read_bytes(), rowids=rowids, boards=boards, answers={}, db=db_path)


def answer(original: dict[str, Any], board: str) -> str:
    """The intact database's analyze --json of a board (kept between examples)."""
    answers = original["answers"]
    if board not in answers:
        answers[board] = analyze(original["db"], board).stdout
    return str(answers[board])


def assert_lookups_right_or_refused(db: Path, original: dict[str, Any], boards: list[str]) -> None:
    for board in boards:
        result = analyze(db, board)
        if result.exit_code == 0:
            assert result.stdout == answer(original, board), board
        else:
            assert_one_error_line(result)


@pytest.mark.long
@SETTINGS
@given(
    table=st.sampled_from(sorted(COLUMNS)),
    data=st.data(),
    value=VALUES,
)
@pytest.mark.long
def test_any_value_in_any_column_is_reported_or_changes_nothing(
    original: dict[str, Any], tmp_path_factory: pytest.TempPathFactory, table: str, data: Any, value: Any
) -> None:
    column = data.draw(st.sampled_from(COLUMNS[table]), label="column")
    rowid = data.draw(st.sampled_from(original["rowids"][table]), label="rowid")
    copy = tmp_path_factory.mktemp("value") / "ttt.sqlite"
    copy.write_bytes(original["bytes"])
    with closing(sqlite3.connect(copy)) as conn:
        before = cell(conn, table, column, rowid)
        key = conn.execute("SELECT key FROM meta WHERE rowid = ?", (rowid,)).fetchone() if table == "meta" else None
        try:
            with conn:
                conn.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (value, rowid))
        except sqlite3.Error:  # a key that exists already, a text for the rowid: SQLite refuses it
            return
        after = cell(conn, table, column, value if table == "positions" and column == "code" else rowid)
    if after == before:
        assert_passes(copy)
    elif table == "meta" and column == "value" and key is not None and key[0] in FREE_META:
        CliRunner().invoke(
            cli, ["verify", "--quiet", "--db", str(copy)]
        )  # passes if well formed, else reports: no traceback
    else:
        assert_reported(copy)
    if table == "positions":
        code = rowid  # the rowid is the code
        board = original["boards"][code]
        assert_lookups_right_or_refused(copy, original, [b for b in (board, parent_of(board)) if b is not None])


@pytest.mark.long
@settings(SETTINGS, max_examples=150)
@given(seed=st.integers(0, 2**64), count=st.sampled_from([1, 1, 2, 4]))
def test_any_damaged_bytes_are_reported_or_change_nothing(
    original: dict[str, Any], tmp_path_factory: pytest.TempPathFactory, seed: int, count: int
) -> None:
    # Offsets from a seeded generator, uniform over the file (Hypothesis would favour its start).
    rng = random.Random(seed)
    content = bytearray(original["bytes"])
    for _ in range(count):
        content[rng.randrange(len(content))] = rng.randrange(256)
    copy = tmp_path_factory.mktemp("bytes") / "ttt.sqlite"
    copy.write_bytes(bytes(content))
    result = CliRunner().invoke(cli, ["verify", "--quiet", "--db", str(copy)])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    if result.exit_code == 0:
        assert dump(copy) == dump(original["db"])  # it passed: the data is what was built
        Oracle.load(copy, verify=True).close()
    else:
        assert result.exit_code == 1 and result.stderr.count("\n") == 1, result.stderr
        with pytest.raises(TTTError):
            Oracle.load(copy, verify=True).close()
    assert_lookups_right_or_refused(copy, original, [".........", "X...O....", "XO..X...."])


def dump(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, with each value's type: the data, not the file's layout."""
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        return {
            table: conn.execute(
                f"SELECT {', '.join(f'typeof({c}), {c}' for c in columns)} FROM {table} ORDER BY rowid"
            ).fetchall()
            for table, columns in COLUMNS.items()
        }
