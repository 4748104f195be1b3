"""``verify`` proves every table that exists, whatever the meta table says, and checks every
meta value against the tables (or, where no table can confirm it, its form)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from support.damage import copy_with

from ttt_solver import Oracle
from ttt_solver.cli import cli
from ttt_solver.errors import DatabaseError
from ttt_solver.store import META_KEYS


def failures(copy: Path) -> list[str]:
    """verify's FAIL lines; and it exits 1 with one Error line, as Oracle.load(verify=True) raises."""
    result = CliRunner().invoke(cli, ["verify", "--quiet", "--db", str(copy)])
    assert result.exit_code == 1 and result.stderr.count("\n") == 1, (result.stdout, result.stderr)
    assert result.stderr.startswith("Error: ") and result.stderr.endswith("--force\n"), result.stderr
    with pytest.raises(DatabaseError, match="fails verification"):
        Oracle.load(copy, verify=True)
    return [line.strip()[len("FAIL  ") :] for line in result.stdout.splitlines() if line.startswith("  FAIL  ")]


def test_a_negated_moves_table_is_proved_though_meta_says_none_is_stored(db_path, tmp_path):
    copy = copy_with(
        db_path, tmp_path, "UPDATE moves SET value = -value", "UPDATE meta SET value = '0' WHERE key = 'moves_stored'"
    )
    found = failures(copy)
    assert "meta says no moves are stored, but the moves table has 2,270 rows" in found
    assert any(line.startswith("1,") and "moves rows differ from the children's rows" in line for line in found)


def test_a_sound_moves_table_that_meta_denies_is_reported(db_path, tmp_path):
    copy = copy_with(db_path, tmp_path, "UPDATE meta SET value = '0' WHERE key = 'moves_stored'")
    assert failures(copy) == ["meta says no moves are stored, but the moves table has 2,270 rows"]


def test_a_missing_moves_table_is_reported_when_meta_says_it_is_stored(db_path, tmp_path):
    copy = copy_with(db_path, tmp_path, "DROP TABLE moves")
    found = failures(copy)
    assert "meta says the moves are stored, but there is no moves table" in found
    assert "0 rows in moves as meta says" in found


def test_moves_rows_that_meta_does_not_count_are_reported(db_path, tmp_path):
    copy = copy_with(db_path, tmp_path, "DELETE FROM moves WHERE rowid = (SELECT max(rowid) FROM moves)",
                   "UPDATE meta SET value = '2270' WHERE key = 'moves'")  # fmt: skip
    assert "2,269 rows in moves as meta says" in failures(copy)


def test_a_variant_without_a_moves_table_passes(variant_db, tmp_path):
    # 4x4 stores no moves: meta says 0, and an empty or missing table agrees.
    result = CliRunner().invoke(
        cli, ["verify", "--quiet", "--variant", "3x3-misere", "--db", str(variant_db("3x3-misere"))]
    )
    assert result.exit_code == 0, result.stdout
    copy = copy_with(
        variant_db("3x3-misere"), tmp_path, "DROP TABLE moves",
        "UPDATE meta SET value = '0' WHERE key IN ('moves_stored', 'moves')",
    )  # fmt: skip
    result = CliRunner().invoke(cli, ["verify", "--quiet", "--variant", "3x3-misere", "--db", str(copy)])
    assert result.exit_code == 0 and "no moves stored" in result.stdout, result.stdout


@pytest.mark.parametrize(
    "statement, expected",
    [
        ("UPDATE meta SET value = '766' WHERE key = 'positions'", "765 rows in positions as meta says"),
        ("UPDATE meta SET value = '5477' WHERE key = 'legal_positions'", "orbits sum to 5,478 legal positions"),
        ("UPDATE meta SET value = '2271' WHERE key = 'moves'", "2,270 rows in moves as meta says"),
        ("UPDATE meta SET value = 'x' WHERE key = 'moves'", "meta.moves is 'x', not a count"),
        ("UPDATE meta SET value = '2' WHERE key = 'moves_stored'", "meta.moves_stored is '2', not 0 or 1"),
        ("UPDATE meta SET value = '' WHERE key = 'solver_version'", "meta.solver_version is '', not a version"),
        ("UPDATE meta SET value = 'yesterday' WHERE key = 'built_at'", "meta.built_at is 'yesterday'"),
        ("UPDATE meta SET value = '2024-01-01T00:00:00' WHERE key = 'built_at'", "not a time with its zone"),
        ("UPDATE meta SET value = '0' || value WHERE key = 'digest'", "packed arrays: the content digest"),
        ("INSERT INTO meta VALUES ('owner', 'me')", "meta holds 'owner', a key ttt-solver never writes"),
        ("UPDATE meta SET key = 'Moves' WHERE key = 'moves'", "meta has no 'moves'"),
        ("DROP TABLE packed", "there is no packed table"),
    ],
)
def test_every_meta_value_is_checked(db_path, tmp_path, statement, expected):
    assert any(expected in line for line in failures(copy_with(db_path, tmp_path, statement)))


@pytest.mark.parametrize(
    "key", [key for key in META_KEYS if key not in ("generator", "schema_version", "variant", "moves_stored")]
)
def test_each_missing_meta_key_is_reported(db_path, tmp_path, key):
    assert f"meta has no {key!r}" in failures(copy_with(db_path, tmp_path, f"DELETE FROM meta WHERE key = '{key}'"))


def test_a_missing_moves_stored_is_reported(db_path, tmp_path):
    found = failures(copy_with(db_path, tmp_path, "DELETE FROM meta WHERE key = 'moves_stored'"))
    assert "meta has no 'moves_stored'" in found


def test_what_the_reader_checks_refuses_the_database_in_one_line(db_path, tmp_path):
    # generator, schema_version and variant are checked when the database is opened, by every command.
    for key in ("generator", "schema_version", "variant"):
        copy = copy_with(db_path, tmp_path, f"DELETE FROM meta WHERE key = '{key}'")
        result = CliRunner().invoke(cli, ["verify", "--quiet", "--db", str(copy)])
        assert result.exit_code == 1 and result.stdout == "" and result.stderr.count("\n") == 1, key
