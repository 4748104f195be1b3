"""``--db`` implies the variant: every command reads it from the database's meta table, and a
``--variant`` that contradicts the database is one error line naming both."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from ttt_solver import Oracle
from ttt_solver.cli import cli

# Each command that reads a database, run on the 3x4k3 one without --variant, and what its
# output must show for the answer to be about 3x4k3 (12 cells, k = 3).
ON_3X4K3 = {
    "analyze": (["analyze", "X...O.......", "--json"], lambda out: json.loads(out)["board"] == "X...O......."),
    "best": (["best", "--moves", "0,4,1", "--json"], lambda out: json.loads(out)["board"] == "XX..O......."),
    "stats": (["stats", "--json"], lambda out: json.loads(out)["variant"] == "3x4k3"),
    "query": (["query", "ply_counts", "--json"], lambda out: len(json.loads(out)) == 13),  # plies 0 to 12
    "verify": (["verify", "--json"], lambda out: json.loads(out)["variant"] == "3x4k3"),
    "compare": (
        ["compare", "perfect", "random", "--games", "2", "--seed", "1", "--json"],
        lambda out: json.loads(out)["games"] == 2,
    ),
    "tournament": (
        ["tournament", "--agents", "random,perfect", "--games", "1", "--seed", "1", "--positions", "5", "--json"],
        lambda out: json.loads(out)["agents"] == ["random", "perfect"],
    ),
    "play": (["play", "--seed", "1"], lambda out: "a free cell 0-11" in out),
}


def invoke(args: list[str], env: dict[str, str | None] | None = None, stdin: str | None = None) -> Result:
    return CliRunner(env={"TTT_DB": None, **(env or {})}).invoke(cli, args, input=stdin)


def reading_commands() -> list[str]:
    """Every command that takes ``--db`` and ``--variant`` for one database (serve takes many)."""
    with click.Context(cli) as ctx:
        found = []
        for name in cli.list_commands(ctx):
            command = cli.get_command(ctx, name)
            assert command is not None
            options = {opt for param in command.params for opt in param.opts}
            if {"--db", "--variant"} <= options and name not in ("serve", "build"):
                found.append(name)
        return found


def test_every_command_that_reads_a_database_is_checked_here():
    assert sorted(reading_commands()) == sorted(ON_3X4K3)


@pytest.mark.parametrize("name", sorted(ON_3X4K3))
def test_db_alone_gives_the_variant(variant_db, name):
    args, shows_3x4k3 = ON_3X4K3[name]
    result = invoke([*args, "--db", str(variant_db("3x4k3"))], stdin="q\n")
    assert result.exit_code == 0, result.output
    assert shows_3x4k3(result.stdout), result.stdout


def test_the_environment_variable_implies_the_variant_too(variant_db):
    result = invoke(["best", "X...O......."], env={"TTT_DB": str(variant_db("3x4k3"))})
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == f"{Oracle.load(variant_db('3x4k3'), '3x4k3').best_move('X...O.......')}\n"


def test_a_misere_database_answers_as_misere(variant_db):
    db = variant_db("3x3-misere")
    data = json.loads(invoke(["analyze", ".........", "--json", "--db", str(db)]).stdout)
    assert data["best_moves"] == [4]  # published: the centre is the only opening that does not lose


@pytest.mark.parametrize("name", sorted(ON_3X4K3))
def test_a_variant_the_database_does_not_hold_is_one_error_naming_both(variant_db, name):
    db = variant_db("3x4k3")
    args, _ = ON_3X4K3[name]
    # A 9-cell board: the variant is refused before the board is read for it.
    args = ["analyze", "X...O...."] if name == "analyze" else args
    result = invoke([*args, "--variant", "3x3", "--db", str(db)], stdin="q\n")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        f"Error: database '{db}' holds variant '3x4k3', not '3x3': drop --variant (--db implies the variant),"
        " or build the 3x3 database with: ttt-lookup build --variant 3x3\n"
    )


def test_the_same_variant_given_both_ways_is_fine(variant_db):
    result = invoke(["best", "X...O.......", "--variant", "3X4K3", "--db", str(variant_db("3x4k3"))])
    assert result.exit_code == 0, result.output


def test_a_rebuild_keeps_the_variant_of_the_database_it_replaces(variant_db, tmp_path):
    db = Path(shutil.copy(variant_db("3x3-misere"), tmp_path / "mine.sqlite"))
    result = invoke(["build", "--db", str(db), "--quiet", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["variant"] == "3x3-misere"
    fresh = invoke(["build", "--db", str(tmp_path / "new.sqlite"), "--quiet", "--json"])
    assert json.loads(fresh.stdout)["variant"] == "3x3"  # nothing to read: the default


def test_a_database_that_cannot_say_keeps_its_own_error(tmp_path):
    missing = tmp_path / "nowhere.sqlite"
    result = invoke(["stats", "--db", str(missing)])
    assert result.stderr == (
        f"Error: no database at '{missing}'; build it with: ttt-lookup build --variant 3x3 --db {missing}\n"
    )


def test_a_board_of_another_size_names_the_variant_db_holds(variant_db):
    db = str(variant_db("3x4k3"))
    result = invoke(["analyze", "--db", db, "X...O...."])
    assert (result.exit_code, result.stdout) == (2, "")
    assert (
        result.stderr
        == f"Error: invalid board 'X...O....': expected 12 cells (the variant 3x4k3 of --db {db!r}), got 9\n"
    )


def test_a_board_of_another_size_without_db_keeps_the_short_message(variant_db):
    # --variant given by the user (even with --db): the user named the variant, nothing to add.
    db = str(variant_db("3x4k3"))
    for args in (["--variant", "3x4k3"], ["--variant", "3x4k3", "--db", db]):
        result = invoke(["analyze", "X...O....", *args])
        assert (result.exit_code, result.stderr) == (2, "Error: invalid board 'X...O....': expected 12 cells, got 9\n")
