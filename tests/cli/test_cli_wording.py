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
from ttt_solver.cli.bounded_params import Number, OneOf, Size, Whole
from ttt_solver.cli.engine_params import Address, StorageRoot
from ttt_solver.cli.params import PATH, TEXT, BadValue, FileName, Tidy
from ttt_solver.errors import InvalidVariantError, shown
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
    games = click.Option(["--games"])
    for kind, parse, low, high in ((Whole(1, 10), int, 1, 10), (Number(0, 1), float, 0, 1)):
        try:
            value = kind(text, games, None)
        except BadValue as error:
            message = error.format_message()
            assert message.startswith("invalid --games ") and ": expected " in message and "\n" not in message
            if not text.strip().isascii():
                continue  # the one rule: numbers in ASCII digits
            try:
                number = parse(text)
            except (ValueError, OverflowError):
                continue
            assert math.isnan(number) or not low <= number <= high
        else:
            assert text.strip().isascii() and value == parse(text) and low <= value <= high


# -- one rule for every parameter's text: whitespace around it dropped, numbers in ASCII digits ----
SPACES = st.text(alphabet=" \t\n\u3000\u00a0", max_size=3)
TYPES = {
    "--workers": (Whole(1, 1024), st.integers(1, 1024).map(str)),
    "--skill": (Number(0, 1), st.floats(0, 1).map(str)),
    "--memory": (
        Size(),
        st.tuples(st.integers(0, 10**6).map(str), st.sampled_from(["", "K", "mb", "GiB"])).map("".join),
    ),
    "--as": (OneOf(["X", "O"], case_sensitive=False), st.sampled_from(["X", "o"])),
    "--address": (Address(), st.integers(1, 65535).map(lambda port: f"tcp://10.0.0.1:{port}")),
    "--variant": (TEXT, st.text(min_size=1).map(str.strip).filter(bool)),
}


@pytest.mark.parametrize("option", sorted(TYPES))
@given(data=st.data())
def test_whitespace_around_any_value_is_dropped(option, data):
    kind, values = TYPES[option]
    value = data.draw(values)
    param = click.Option([option])
    assert kind(data.draw(SPACES) + value + data.draw(SPACES), param, None) == kind(value, param, None)


@given(st.integers(0, 10**6), st.sampled_from(["--workers", "--skill", "--memory"]))
def test_a_number_in_other_digits_is_refused_by_every_number_option(number, option):
    kind, _values = TYPES[option]
    fullwidth = str(number).translate({ord(d): 0xFF10 + int(d) for d in "0123456789"})
    with pytest.raises(BadValue, match="^expected "):
        kind(fullwidth, click.Option([option]), None)


@given(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1), SPACES, SPACES)
def test_a_path_is_taken_as_given(name, before, after):
    # A file may be named ' a.sqlite': a path keeps its spaces (numbers and names drop them).
    path = before + name + after
    for kind, option in ((PATH, "--db"), (FileName(), "--plot"), (StorageRoot(), "--storage")):
        if kind is not PATH and not path.strip():
            continue  # an empty file name is refused on its own
        assert kind(path, click.Option([option]), None) == path


def test_every_parameter_of_every_command_follows_the_rule():
    untidy = [
        (name, param.name)
        for name, command in commands().items()
        for param in command.params
        if not (isinstance(param, click.Option) and param.is_flag) and not isinstance(param.type, Tidy)
    ]
    assert untidy == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["best", "X...O....", "--variant", "3x3 "], None),
        (["best", "X...O....", "--variant", " 3X3\t"], None),
        (["build", "--plan", "--db", "x.sqlite", "--memory", " 1G"], None),
        (
            ["build", "--plan", "--db", "x.sqlite", "--workers", "２"],
            "invalid --workers '２': expected a whole number from 1 to 1,024",
        ),
        (
            ["build", "--plan", "--db", "x.sqlite", "--memory", "１G"],
            "invalid --memory '１G': expected a size: ASCII digits",
        ),
        (
            ["compare", "random", "random", "--games", "٣"],
            "invalid --games '٣': expected a whole number from 1 to 10,000,000",
        ),
    ],
)
def test_options_agree_on_whitespace_and_digits(args, message, db_path):
    result = CliRunner(env={"TTT_DB": None}).invoke(
        cli, [*args, *(["--db", str(db_path)] if "--db" not in args else [])]
    )
    if message is None:
        assert (result.exit_code, result.stderr) == (0, ""), result.output
    else:
        assert (result.exit_code, result.stdout) == (2, "") and result.stderr.startswith(f"Error: {message}"), (
            result.stderr
        )
        assert result.stderr.count("\n") == 1


# -- a mistyped variant gets a suggestion, as a mistyped command or option does ----------------------
@pytest.mark.parametrize(
    ("typed", "hint"),
    [
        ("3x3misere", "did you mean '3x3-misere'?"),
        ("3X3 MISERE", "did you mean '3x3-misere'?"),
        ("5x5misère", "did you mean '5x5-misere'?"),
        ("4x4k3misere", "did you mean '4x4k3-misere' or '4x4-misere'?"),
        ("33x", "did you mean '3x3'?"),
    ],
)
def test_a_mistyped_variant_gets_a_suggestion(typed, hint):
    assert_one_error(
        run("analyze", "X...O....", "--variant", typed),
        f"invalid variant {typed!r}: expected RxC with optional kK and -misere, e.g. 4x4k3; {hint}",
    )


def test_a_variant_with_nothing_close_gets_no_suggestion():
    assert_one_error(
        run("analyze", "X...O....", "--variant", "xyzzy"),
        "invalid variant 'xyzzy': expected RxC with optional kK and -misere, e.g. 4x4k3",
    )


def test_a_number_too_big_is_said_as_given():
    assert_one_error(
        run("analyze", "X...O....", "--variant", "99999999999999999999x3k3"),
        "invalid variant '99999999999999999999x3k3': rows must be from 1 to 25, not 99999999999999999999",
    )


@given(
    st.integers(1, 5), st.integers(1, 5), st.booleans(), SPACES, SPACES, st.integers(0, 3), st.sampled_from(["x", "X"])
)
def test_a_variant_name_round_trips_with_spaces_zeros_and_case(rows, cols, misere, before, after, zeros, cross):
    if max(rows, cols) < 3:
        return
    variant = Variant(rows, cols, max(rows, cols), misere)
    typed = f"{before}{'0' * zeros}{rows}{cross}{cols}{'-MISERE' if misere else ''}{after}"
    assert Variant.parse(typed) == variant and Variant.parse(variant.name) == variant


@given(st.text(alphabet="0123456789xkmiser-", min_size=1, max_size=30))
def test_any_variant_text_parses_or_is_refused_in_one_line_naming_what_was_typed(text):
    try:
        Variant.parse(text)
    except InvalidVariantError as error:
        message = str(error)
        assert "\n" not in message and message.startswith(f"invalid variant {shown(text)}: ")
        assert "999" not in message.replace(text, "") or "999" in text


@pytest.mark.parametrize(
    ("command", "default"),
    [("build", "the scratch folder beside the target"), ("verify", "a temporary folder, in TMPDIR")],
)
def test_storage_help_names_its_default(command, default):
    # The generated command reference (docs/cli-reference.md, mkdocs-click) shows this same text.
    shown = " ".join(run(command, "--help").stdout.split())
    assert f"(the [s3] extra; default: {default})." in shown and "{" not in shown


def test_a_database_named_with_spaces_around_is_found(db_path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / " a.sqlite ").write_bytes(db_path.read_bytes())
    result = CliRunner(env={"TTT_DB": None}).invoke(cli, ["best", "X...O....", "--db", " a.sqlite "])
    assert (result.exit_code, result.stderr) == (0, ""), result.output
    missing = CliRunner(env={"TTT_DB": None}).invoke(cli, ["best", "X...O....", "--db", "a.sqlite"])
    assert missing.exit_code == 1 and "no database at 'a.sqlite'" in missing.stderr
