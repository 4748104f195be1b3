"""A named query never answers from a damaged database: it answers as the intact database
does, or refuses in one line with the command that rebuilds it."""

from __future__ import annotations

import random
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.damage import copy_with, set_number

from ttt_solver.audit import verify
from ttt_solver.cli import cli
from ttt_solver.lookup import named_queries as queries

PARAMS = {"positions_at_ply": ["--param", "ply=4"]}
REBUILD = "rebuild it with: ttt-lookup build --variant 3x3 --db "


def run(db: Path, name: str, *options: str) -> Any:
    return CliRunner().invoke(cli, ["query", name, *PARAMS.get(name, []), *options, "--db", str(db), "--json"])


def assert_refused_with_the_rebuild_command(result: Any) -> None:
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 1 and result.stdout == "", (result.exit_code, result.stdout[:200])
    assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1, result.stderr
    assert REBUILD in result.stderr and result.stderr.endswith(" --force\n"), result.stderr


class Intact(dict[str, Any]):
    def __repr__(self) -> str:  # Hypothesis prints the arguments of a failing example
        return "<the intact 3x3 database and its answers>"


@pytest.fixture(scope="module")
def intact(db_path: Path) -> dict[str, Any]:
    answers = {name: run(db_path, name).stdout for name in queries.names()}
    assert all(answers.values())
    return Intact(bytes=db_path.read_bytes(), answers=answers)


@pytest.mark.long
@settings(max_examples=60, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**64))
def test_no_query_answers_from_a_damaged_byte(
    intact: dict[str, Any], tmp_path_factory: pytest.TempPathFactory, seed: int
) -> None:
    # One byte anywhere in the file (uniform: a seeded generator, not Hypothesis's own offsets).
    rng = random.Random(seed)
    content = bytearray(intact["bytes"])
    content[rng.randrange(len(content))] = rng.randrange(256)
    copy = tmp_path_factory.mktemp("damaged") / "ttt.sqlite"
    copy.write_bytes(bytes(content))
    for name, answer in intact["answers"].items():
        result = run(copy, name)
        if result.exit_code == 0:
            assert result.stdout == answer, name
        elif "not a readable ttt-solver database" not in result.stderr:  # its meta table no longer says it is ours
            assert_refused_with_the_rebuild_command(result)


FIRST_PLY_3 = "(SELECT min(code) FROM positions WHERE ply = 3)"


@pytest.mark.parametrize(
    "statement, name, why",
    [
        (
            f"UPDATE positions SET {set_number('orbit', 'orbit + 1')} WHERE board = '....X....'",
            "ply_counts",
            "orbits sum to 5,479",
        ),
        (
            f"UPDATE positions SET {set_number('value', '1 - value')} WHERE code = {FIRST_PLY_3}",
            "traps",
            "value not what the children imply",
        ),
        ("ALTER TABLE positions DROP COLUMN winner", "only_moves", "generated columns"),
        ("UPDATE moves SET value = -value WHERE rowid = 100", "rule_of_thumb", "moves rows differ"),
        ("UPDATE meta SET value = '0' WHERE key = 'moves_stored'", "opening", "meta says no moves are stored"),
    ],
)
def test_a_changed_row_stops_every_query(db_path, tmp_path, statement, name, why):
    copy = copy_with(db_path, tmp_path, statement)
    for each in (name, "longest_wins"):
        result = run(copy, each)
        assert_refused_with_the_rebuild_command(result)
        assert "is damaged, so no query answers from it" in result.stderr and why in result.stderr


def test_a_malformed_table_gives_the_rebuild_command(db_path, tmp_path):
    copy = tmp_path / "copy.sqlite"
    shutil.copyfile(db_path, copy)
    with closing(sqlite3.connect(copy)) as conn:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'positions'").fetchone()[0]
    content = bytearray(copy.read_bytes())
    content[(root - 1) * page_size] = 0  # the page type of the table's root: no b-tree page
    copy.write_bytes(bytes(content))
    for command in (["query", "ply_counts"], ["analyze", "X........"], ["verify"]):
        result = CliRunner().invoke(cli, [*command, "--db", str(copy)])
        assert result.exit_code == 1 and "malformed" in result.stderr, (command, result.stderr)
        assert REBUILD in result.stderr and result.stderr.endswith(" --force\n"), (command, result.stderr)


@pytest.mark.long
def test_a_sound_big_database_answers_its_queries(db_4x4):
    result = CliRunner().invoke(cli, ["query", "ply_counts", "--variant", "4x4", "--db", str(db_4x4), "--csv"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[1] == "0,X,1,0,1,0,0,1"  # the empty board: a draw


@pytest.mark.parametrize("key", ["built_at", "variant", "digest"])
def test_a_meta_text_no_longer_utf8_is_damage_with_the_rebuild_command(db_path, tmp_path, key):
    """A damaged byte can leave a meta text that is not UTF-8: the rest of the table still says
    the file is ours, so the error names the rebuild (and the variant, read from the bytes)."""
    copy = copy_with(
        db_path, tmp_path, f"UPDATE meta SET value = CAST(X'ff' || CAST(value AS BLOB) AS TEXT) WHERE key = '{key}'"
    )
    for command in (["query", "ply_counts"], ["analyze", "X...O...."], ["verify"]):
        result = CliRunner().invoke(cli, [*command, "--db", str(copy)])
        assert_refused_with_the_rebuild_command(result)
        assert "is damaged (Could not decode to UTF-8" in result.stderr


def test_a_meta_table_that_does_not_say_ttt_solver_gets_no_advice_to_overwrite(db_path, tmp_path):
    copy = copy_with(db_path, tmp_path, "UPDATE meta SET value = CAST(X'ff' AS TEXT) WHERE key = 'generator'")
    result = CliRunner().invoke(cli, ["query", "ply_counts", "--db", str(copy)])
    assert result.exit_code == 1 and result.stderr.count("\n") == 1 and "--force" not in result.stderr
    assert "is not a readable ttt-solver database (Could not decode to UTF-8" in result.stderr


@pytest.mark.parametrize("digits", ["²", "7²", "⑧"])  # str.isdigit takes them, int() refuses them
def test_a_count_in_other_digits_is_damage_never_a_traceback(db_path, tmp_path, digits):
    copy = copy_with(
        db_path, tmp_path, f"UPDATE meta SET value = '{digits}' WHERE key IN ('positions', 'schema_version')"
    )
    for command in (["query", "ply_counts"], ["verify", "--quiet"], ["analyze", "X...O...."]):
        result = CliRunner().invoke(cli, [*command, "--db", str(copy)])
        assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
        assert result.exit_code == 1 and result.stderr.count("\n") == 1, result.stderr
        assert REBUILD in result.stderr and result.stderr.endswith(" --force\n"), result.stderr
    copy = copy_with(db_path, tmp_path, f"UPDATE meta SET value = '{digits}' WHERE key = 'positions'")
    result = CliRunner().invoke(cli, ["verify", "--db", str(copy), "--quiet"])
    assert result.exit_code == 1 and f"meta.positions is {digits!r}, not a count" in result.stdout


def test_a_cache_folder_that_cannot_be_written_only_costs_time(db_path, tmp_path, monkeypatch):
    """The check of a file is remembered in the cache folder (the same path for every size of
    file: 3x3 here, where 4x4's proof took seconds a query); where that folder cannot be made
    (here XDG_CACHE_HOME names a file), the query is checked and answered all the same."""
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    for _ in range(2):
        result = CliRunner().invoke(cli, ["query", "ply_counts", "--db", str(db_path), "--csv"])
        assert (result.exit_code, result.stderr) == (0, ""), result.stderr
        assert result.stdout.splitlines()[1] == "0,X,1,0,1,0,0,1"
    assert blocked.read_text() == ""


def test_a_small_files_passed_check_is_remembered_and_a_write_to_it_checked_again(db_path, tmp_path, monkeypatch):
    """The check of a small file is remembered as a big one's is, per state of the file: a
    write in place (the same inode, new change times) is checked again before any answer."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    copy = tmp_path / "copy.sqlite"
    shutil.copyfile(db_path, copy)
    assert run(copy, "ply_counts").exit_code == 0
    remembered = sorted(path.name for path in cache.rglob("checked-*.json"))
    assert len(remembered) == 1 and f"-{copy.stat().st_ino}-" in remembered[0]
    with closing(sqlite3.connect(copy)) as conn, conn:
        conn.execute(f"UPDATE positions SET {set_number('value', '1 - value')} WHERE code = {FIRST_PLY_3}")
    result = run(copy, "ply_counts")
    assert_refused_with_the_rebuild_command(result)
    assert "value not what the children imply" in result.stderr


def test_a_damaged_files_failed_check_is_remembered_with_what_it_found(db_path, tmp_path, monkeypatch):
    """Each query on a damaged file is refused; the check that found the damage runs once per
    state of the file, and the next query says what it found without checking again."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    copy = tmp_path / "copy.sqlite"
    shutil.copyfile(db_path, copy)
    with closing(sqlite3.connect(copy)) as conn, conn:
        conn.execute(f"UPDATE positions SET {set_number('value', '1 - value')} WHERE code = {FIRST_PLY_3}")
    first = run(copy, "ply_counts")
    assert_refused_with_the_rebuild_command(first)
    assert "value not what the children imply" in first.stderr

    def not_again(*_args: Any, **_kwargs: Any) -> None:
        raise AssertionError("checked again")

    monkeypatch.setattr(verify, "_verify", not_again)
    for name in ("ply_counts", "traps"):
        again = run(copy, name)
        assert (again.exit_code, again.stderr) == (1, first.stderr)
