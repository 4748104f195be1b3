"""One wording for the command line: bad values, usage errors, did-you-mean, help, the command list."""

from __future__ import annotations

import math
import re

import click
import pytest
from click.testing import CliRunner, Result
from hypothesis import given
from hypothesis import strategies as st

from ttt_solver.cli import cli
from ttt_solver.errors import InvalidVariantError
from ttt_solver.game.variant import MAX_CELLS, Variant


def run(*args: str) -> Result:
    return CliRunner(env={"TTT_DB": None}).invoke(cli, list(args), prog_name="ttt-lookup")


def commands() -> dict[str, click.Command]:
    with click.Context(cli) as ctx:
        found = {name: cli.get_command(ctx, name) for name in cli.list_commands(ctx)}
    return {name: command for name, command in found.items() if command is not None}


def assert_one_error(result: Result, message: str, code: int = 2) -> None:
    assert (result.exit_code, result.stdout, result.stderr) == (code, "", f"Error: {message}\n")


# -- a bad value of any option or argument: invalid WHAT 'VALUE': what is expected ----------------
# A bad value for every option that takes one, by option (a new option must be added here).
BAD_VALUES = {
    "--games": ("0", "invalid --games '0': expected a whole number from 1 to 10,000,000"),
    "--seed": ("-1", "invalid --seed '-1': expected a whole number from 0 to 9,223,372,036,854,775,807"),
    "--positions": ("x", "invalid --positions 'x': expected a whole number of at least 1"),
    "--skill": ("1.5", "invalid --skill '1.5': expected a number from 0 to 1"),
    "--as": ("Z", "invalid --as 'Z': expected X or O"),
    "--port": ("65536", "invalid --port '65536': expected a whole number from 0 to 65,535"),
    "--time-limit": ("nan", "invalid --time-limit 'nan': expected a number of at least 0.1"),
    "--cache-size": ("-1", "invalid --cache-size '-1': expected a size: ASCII digits and a unit, K, M, G or T"),
    "--memory": ("1K", "invalid --memory '1K': expected a size from 64KB to "),
    "--cors-origin": ("example.org", "invalid --cors-origin 'example.org': expected scheme://host[:port]"),
    "--plot": ("chart.txt", "invalid --plot 'chart.txt': the name must end in .png, "),
    "--variant": ("3x3k4", "invalid variant '3x3k4': on a 3x3 board k must be 3, not 4"),
    "--db": ("sqlite://", "invalid database 'sqlite://': a SQLite URL must name a file"),
    "--moves": ("4,a", "invalid moves '4,a': expected cell numbers separated by commas"),
    "--agents": ("random,bogus", "invalid agent 'bogus': unknown agent"),
    "--param": ("min_losing", "invalid --param 'min_losing': expected KEY=VALUE"),
    "--engine": ("ray", "invalid --engine 'ray': expected dask"),
    "--workers": ("0", "invalid --workers '0': expected a whole number from 1 to 1,024"),
    "--shards": ("11", "invalid --shards '11': expected a whole number from 1 to 10"),
    "--address": ("10.0.0.1", "invalid --address '10.0.0.1': expected [scheme://]host:port"),
    "--storage": ("memory://x", "invalid --storage 'memory://x': a memory:// file system lives inside one process"),
}
# Any text parses: the server reports an address it cannot bind.
ANY_TEXT = {"--host"}
# What each command needs besides the bad value to get as far as reading it.
NEEDS = {"analyze": ["X...O...."], "best": ["X...O...."], "compare": ["think1", "random"], "query": ["traps"]}


def value_options() -> list[tuple[str, str]]:
    return [
        (name, max(param.opts, key=len))
        for name, command in commands().items()
        for param in command.params
        if isinstance(param, click.Option) and not param.is_flag and param.name not in ("help",)
    ]


def test_every_option_that_takes_a_value_is_tried_here():
    assert {option for _name, option in value_options()} == set(BAD_VALUES) | ANY_TEXT


@pytest.mark.parametrize(
    ("command", "option"),
    [  # serve checks for its extra before its options
        pytest.param(*case, marks=[pytest.mark.web] if case[0] == "serve" else [])
        for case in value_options()
        if case[1] not in ANY_TEXT
    ],
)
def test_a_bad_option_value_is_said_one_way(command, option):
    value, message = BAD_VALUES[option]
    if option == "--moves":  # instead of BOARD
        args = [command, option, value]
    else:
        args = [command, *NEEDS.get(command, []), option, value]
    result = run(*args)
    assert (result.exit_code, result.stdout) == (2, ""), result.output
    assert result.stderr.startswith(f"Error: {message}") and result.stderr.count("\n") == 1, result.stderr
    assert re.fullmatch(r"Error: invalid [-\w]+ '[^']*': [^\n]+\n", result.stderr), result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["analyze", "XO"], "invalid board 'XO': expected 9 cells, got 2"),
        (["compare", "thnk1", "random"], "invalid agent 'thnk1': unknown agent"),
        (["play", "--seed", "9" * 60], f"invalid --seed '{'9' * 56}...: expected a whole number"),  # errors.shown
        (
            ["query", "longest_wins", "-p", "limit=x"],
            "invalid --param 'limit=x': query 'longest_wins' expects an integer",
        ),
    ],
)
def test_a_bad_argument_value_is_said_the_same_way(args, message):
    result = run(*args)
    assert result.exit_code == 2 and result.stderr.startswith(f"Error: {message}") and result.stderr.count("\n") == 1


# -- click's usage errors in the same words ---------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["analyze", "--jsn"], "unknown option '--jsn': did you mean '--json'? (see 'ttt-lookup analyze --help')"),
        (["analyze", "X...O....", "X"], "got unexpected extra argument (X) (see 'ttt-lookup analyze --help')"),
        (["compare", "think1"], "missing argument 'B' (see 'ttt-lookup compare --help')"),
        (["anlyze", "X...O...."], "unknown command 'anlyze': did you mean 'analyze'? (see 'ttt-lookup --help')"),
        (["analyse"], "unknown command 'analyse': did you mean 'analyze'? (see 'ttt-lookup --help')"),
        (["BEST"], "unknown command 'BEST': did you mean 'best'? (see 'ttt-lookup --help')"),
        (["xyzzy"], "unknown command 'xyzzy' (see 'ttt-lookup --help')"),
        (["help", "anlyze"], "unknown command 'anlyze': did you mean 'analyze'? (see 'ttt-lookup --help')"),
        (["query", "trap"], "unknown query 'trap': did you mean 'traps'? (see ttt-lookup query --list)"),
        (["query", "TRAPS"], "unknown query 'TRAPS': did you mean 'traps'? (see ttt-lookup query --list)"),
        (["query", "nope"], "unknown query 'nope': see ttt-lookup query --list"),
        (
            ["query", "traps", "-p", "min_lose=2"],
            "unknown parameter 'min_lose' for query 'traps': did you mean 'min_losing'? (it takes: min_losing)",
        ),
        (["compare", "a", "b", "--exact", "--games", "9"], "--games only applies to sampled runs; drop it or --exact"),
    ],
)
def test_usage_errors_and_did_you_mean(args, message):
    assert_one_error(run(*args), message)


def test_no_message_keeps_clicks_capitals_or_full_stops():
    for args in (["analyze", "--jsn"], ["compare"], ["best", "X", "Y"], ["compare", "a", "b", "--games"]):
        line = run(*args).stderr
        assert "Invalid value" not in line and not line[7].isupper() and ".\n" not in line, line


# -- help ---------------------------------------------------------------------------------------------
def test_help_is_the_same_as_dash_dash_help():
    assert run("help").stdout == run("--help").stdout
    for name in commands():
        done = run("help", name)
        assert (done.exit_code, done.stdout) == (0, run(name, "--help").stdout), name


def test_the_command_list_shows_each_summary_whole():
    listing = " ".join(run("--help").stdout.split("Commands:")[1].split())
    assert "..." not in listing
    for name, command in commands().items():
        summary = " ".join((command.help or "").split("\n\n")[0].split())
        assert f"{name} {summary}" in listing, name


# -- what k may be, said for the board at hand -------------------------------------------------------
def allowed_in(message: str) -> set[int]:
    """The values of k a message says the board allows."""
    if "too small" in message:
        return set()
    found = re.search(r"k must be (?:from (\d+) to (\d+)|(\d+) or (\d+)|(\d+)),", message)
    assert found, message
    low, high, one, two, only = found.groups()
    return set(range(int(low), int(high) + 1)) if low else {int(one), int(two)} if one else {int(only)}


def test_the_k_message_says_what_that_board_allows():
    for rows in range(1, MAX_CELLS + 1):
        for cols in range(1, MAX_CELLS // rows + 1):
            allowed = set()
            for k in range(MAX_CELLS + 2):
                try:
                    Variant(rows, cols, k)
                    allowed.add(k)
                except InvalidVariantError as error:
                    message = str(error)
                    assert "from 3 to 3" not in message and "from 3 to 4" not in message, message
                    assert allowed_in(message) == {n for n in range(MAX_CELLS + 2) if 3 <= n <= max(rows, cols)}, (
                        message
                    )
                    assert f"{rows}x{cols} board" in message and (f"not {k}" in message or "too small" in message)
            assert allowed == set(range(3, max(rows, cols) + 1))


# -- the value types parse any text into a number in range, or refuse it in the one wording -------
@given(st.one_of(st.text(max_size=12), st.integers().map(str), st.floats().map(str)))
def test_a_number_option_takes_any_text_or_refuses_it_in_one_line(text):
    from ttt_solver.cli.params import BadValue, Number, Whole

    games = click.Option(["--games"])
    for kind, parse, low, high in ((Whole(1, 10), int, 1, 10), (Number(0, 1), float, 0, 1)):
        try:
            value = kind.convert(text, games, None)
        except BadValue as error:
            message = error.format_message()
            assert message.startswith("invalid --games ") and ": expected " in message and "\n" not in message
            try:
                number = parse(text)
            except (ValueError, OverflowError):
                continue
            assert math.isnan(number) or not low <= number <= high
        else:
            assert value == parse(text) and low <= value <= high
