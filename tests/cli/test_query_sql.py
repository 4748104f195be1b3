"""``ttt-lookup query "SELECT ..."``: the user's own SQL beside the named queries, on a connection
that only reads, in the same output formats; whatever the database refuses is one line, exit 2."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import given
from hypothesis import strategies as st

from ttt_solver.cli import cli
from ttt_solver.errors import shown
from ttt_solver.lookup import named_queries as queries


@pytest.fixture
def db(db_path, tmp_path) -> Path:
    """A private copy of the session's 3x3 database, to see that nothing changes it."""
    return Path(shutil.copy(db_path, tmp_path / "ttt.sqlite"))


def run(db: Path, *args: str) -> Result:
    return CliRunner(env={"TTT_DB": None}).invoke(cli, ["query", *args, "--db", str(db)])


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- answers, in each output format -------------------------------------------------------------------
def test_a_select_prints_a_table(db):
    result = run(db, "select count(*) from positions")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "count(*)\n--------\n     765\n", "")


def test_a_select_prints_json_and_csv(db):
    sql = "SELECT ply, count(*) AS n FROM positions WHERE ply < :below GROUP BY ply ORDER BY ply"
    assert (
        run(db, sql, "-p", "below=3", "--json").stdout
        == '[\n  {"ply": 0, "n": 1},\n  {"ply": 1, "n": 3},\n  {"ply": 2, "n": 12}\n]\n'
    )
    assert run(db, sql, "-p", "below=3", "--csv").stdout == "ply,n\n0,1\n1,3\n2,12\n"


def test_a_blob_is_written_as_sql_writes_one(db):
    result = run(db, "SELECT x'0aff' AS b", "--json")
    assert (result.exit_code, result.stdout) == (0, '[\n  {"b": "X\'0aff\'"}\n]\n')


def test_the_answer_is_what_sqlite3_gives_on_the_file_as_it_is(db):
    # The file is plain SQLite: the sqlite3 program (or Python's module, or datasette) opens it.
    sql = "SELECT ply, count(*) FROM positions GROUP BY ply ORDER BY ply"
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        rows = conn.execute(sql).fetchall()
    assert run(db, sql, "--csv").stdout == "ply,count(*)\n" + "".join(f"{a},{b}\n" for a, b in rows)
    if shutil.which("sqlite3"):
        shown = subprocess.run(["sqlite3", "-csv", str(db), sql], capture_output=True, text=True, check=True)
        assert shown.stdout == "".join(f"{a},{b}\n" for a, b in rows)


# -- what the database refuses: one line, exit 2, the file unchanged ------------------------------------
REFUSED = "query only reads: no changes, ATTACH or PRAGMA settings (not authorized)"


@pytest.mark.parametrize(
    ("sql", "why"),
    [
        ("DELETE FROM positions", REFUSED),
        ("INSERT INTO meta VALUES ('x', 'y')", REFUSED),
        ("UPDATE meta SET value = 'x'", REFUSED),
        ("DROP TABLE moves", REFUSED),
        ("CREATE TEMP TABLE t (x)", REFUSED),
        ("PRAGMA user_version = 3", REFUSED),
        ("PRAGMA query_only = 0", REFUSED),
        ("PRAGMA writable_schema = 1", REFUSED),
        # A table-valued PRAGMA function never sets: SQLite reads its argument as a schema's name.
        ("SELECT * FROM pragma_journal_mode('wal')", "unknown database 'wal'"),
        ("SELECT * FROM pragma_user_version(3)", "too many arguments on pragma_user_version() - max 0"),
        ("UPDATE sqlite_master SET sql = 'x'", "table sqlite_master may not be modified"),
        ("selec 1", 'near "selec": syntax error'),
        ("SELECT * FROM nowhere", "no such table: nowhere"),
        ("SELECT 1; SELECT 2", "You can only execute one statement at a time."),
    ],
)
def test_what_the_database_refuses_is_one_line(db, sql, why):
    before = digest(db)
    result = run(db, sql)
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"Error: invalid SQL {sql!r}: {why}\n")
    assert digest(db) == before and sorted(p.name for p in db.parent.iterdir()) == ["ttt.sqlite"]


def test_attach_creates_no_file(db, tmp_path):
    sql = f"ATTACH DATABASE '{tmp_path / 'new.db'}' AS other"
    result = run(db, sql)
    assert (result.exit_code, result.stderr) == (2, f"Error: invalid SQL {shown(sql)}: {REFUSED}\n")
    assert not (tmp_path / "new.db").exists()


def test_a_describing_pragma_reads(db):
    result = run(db, "PRAGMA table_info(meta)", "--csv")
    assert result.exit_code == 0 and result.stdout.startswith("cid,name,type,notnull,dflt_value,pk\n0,key,")


def test_a_table_valued_pragma_that_describes_reads(db):
    # The first on a connection: SQLite sets the function up (asking the authorizer as it does).
    result = run(db, "select name from pragma_table_info('positions') where name in ('code', 'data')", "--csv")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "name\ncode\ndata\n", "")
    for sql in ("SELECT * FROM pragma_user_version", "SELECT count(*) FROM pragma_index_list('positions')"):
        assert run(db, sql).exit_code == 0, sql


def test_a_placeholder_without_its_param_is_one_line(db):
    result = run(db, "SELECT :x")
    assert (result.exit_code, result.stderr) == (2, "Error: query 'SQL' needs parameter 'x': pass --param x=VALUE\n")


def test_blank_sql_is_no_query(db):
    result = run(db, " ")
    assert (result.exit_code, result.stderr) == (
        2,
        "Error: no query given: pass a NAME (see ttt-lookup query --list) or a SELECT statement\n",
    )


def test_a_word_is_still_a_name_with_its_suggestion(db):
    result = run(db, "trap")
    assert (result.exit_code, result.stderr) == (
        2,
        "Error: unknown query 'trap': did you mean 'traps'? (see ttt-lookup query --list)\n",
    )


# -- what parses the input: a word names a query, anything else is SQL ----------------------------------
WORD = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]*", fullmatch=True)


@given(WORD)
def test_a_word_is_a_name(text):
    assert queries.is_name(text)


@given(st.text(min_size=1).filter(lambda text: not queries.is_name(text) and text.strip()))
def test_any_other_text_is_the_users_sql_as_it_is(text):
    asked = queries.question(text)
    assert (asked.users, asked.sql, asked.name, asked.variants) == (True, text, queries.USER_SQL, ())


@given(st.text(alphabet=" \t\n", min_size=1))
def test_blank_text_is_no_query(text):
    with pytest.raises(queries.QueryError, match="^no query given"):
        queries.question(text)


@given(WORD.filter(lambda name: name not in queries.names()))
def test_a_word_that_is_no_query_is_refused_by_name(name):
    with pytest.raises(queries.QueryError, match=f"^unknown query {name!r}"):
        queries.question(name)
