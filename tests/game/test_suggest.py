"""Did you mean ...? Only close names are suggested: typos of commands, options and queries."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from ttt_solver.cli import cli
from ttt_solver.game.suggest import close_names, did_you_mean

COMMANDS = ["analyze", "best", "build", "compare", "help", "play", "query", "serve", "stats", "tournament", "verify"]
BUILD = ["--color", "--db", "--force", "--help", "--json", "--memory", "--no-color", "--quiet", "--variant"]
SERVE = ["--access-log", "--cache-size", "--cors-origin", "--db", "--help", "--host", "--port", "--time-limit"]
PLAY = ["--as", "--db", "--help", "--seed", "--skill", "--variant"]
ANALYZE = ["--color", "--db", "--help", "--json", "--moves", "--no-color", "--variant"]


@pytest.mark.parametrize(
    ("typed", "names", "expected"),
    [
        ("--varient", BUILD, ["--variant"]),  # not '--quiet': the '--' both share is no likeness
        ("--qiet", BUILD, ["--quiet"]),
        ("--forse", BUILD, ["--force"]),
        ("--memroy", BUILD, ["--memory"]),
        ("--prot", SERVE, ["--port"]),  # not '--host'
        ("--hots", SERVE, ["--host"]),  # not '--port'
        ("--cache", SERVE, ["--cache-size"]),  # not '--help'
        ("--tim", SERVE, ["--time-limit"]),  # the start of a name
        ("--skil", PLAY, ["--skill"]),  # not '--as'
        ("--sead", PLAY, ["--seed"]),  # not '--db' or '--as'
        ("--colour", ANALYZE, ["--color"]),  # not '--no-color' too
        ("--db-path", ANALYZE, ["--db"]),  # a name's first word
        ("--vary", ANALYZE, ["--variant"]),
        ("verfy", COMMANDS, ["verify"]),  # not 'query'
        ("anlyze", COMMANDS, ["analyze"]),
        ("BEST", COMMANDS, ["best"]),
        ("tourn", COMMANDS, ["tournament"]),
        ("trp", ["traps", "opening", "ply_counts"], ["traps"]),
        ("min_lose", ["min_losing"], ["min_losing"]),
        ("--x", BUILD, []),
        ("zzz", COMMANDS, []),
    ],
)
def test_only_close_names_are_suggested(typed, names, expected):
    assert close_names(typed, names) == expected


def test_at_most_three_suggestions_likest_first():
    assert close_names("cat", ["cut", "cab", "dog", "car"]) == ["cut", "cab", "car"]
    assert close_names("cat", ["cut", "cab", "cart", "car"]) == ["cart"]  # the others are much less alike
    assert did_you_mean("--sead", PLAY) == "did you mean '--seed'?"
    assert did_you_mean("--colr", ["--color", "--colour"]) == "did you mean '--color' or '--colour'?"


@pytest.mark.parametrize(
    ("args", "hint"),
    [
        (["build", "--varient", "3x3"], "unknown option '--varient': did you mean '--variant'?"),
        (["serve", "--prot", "8001"], "unknown option '--prot': did you mean '--port'?"),
        (["serve", "--tim", "3"], "unknown option '--tim': did you mean '--time-limit'?"),  # click offers none
        (["play", "--sead", "1"], "unknown option '--sead': did you mean '--seed'?"),
        (["analyze", "--x"], "unknown option '--x'"),
    ],
)
def test_the_command_line_suggests_only_close_options(args, hint):
    result = CliRunner().invoke(cli, args, prog_name="ttt-lookup")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"Error: {hint} (see 'ttt-lookup {args[0]} --help')\n"
