"""Command-line habits from click and sqlite-utils: -h, a bare command, --json, colour, completion, seeds."""

from __future__ import annotations

import json
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner
from support.terminal import drawn_bars

from ttt_solver.cli import cli, contests


@pytest.fixture(scope="module")
def db(db_path) -> str:
    return str(db_path)


def run(*args: str, env: dict[str, str] | None = None, color: bool = False):
    return CliRunner().invoke(cli, list(args), env=env, color=color, prog_name="ttt-lookup")


def commands() -> list[str]:
    with click.Context(cli) as ctx:
        return cli.list_commands(ctx)


@pytest.mark.parametrize("args", [[], *([name] for name in commands())])
def test_dash_h_is_help(args):
    short, long = run(*args, "-h"), run(*args, "--help")
    assert short.exit_code == 0 and short.stdout == long.stdout
    assert short.stdout.startswith("Usage: ttt-lookup")


SHOWN_ALONE_THEN_DASH_H = """\
import sys

import click
from click.testing import CliRunner

from ttt_solver.cli import cli

for name in sys.argv[1:]:
    command = cli.get_command(click.Context(cli), name)
    with click.Context(command) as ctx:  # the command alone, as a documentation generator shows it
        command.get_params(ctx)
    result = CliRunner().invoke(cli, [name, "-h"], prog_name="ttt-lookup")
    print(name, result.exit_code, result.output.splitlines()[0])
"""


def test_dash_h_stays_help_after_a_command_is_shown_on_its_own():
    """Click keeps a command's help option from the first context that asks for it: one of the
    command alone (as a documentation generator makes) left ``cache -h`` an unknown option for
    the rest of the process (a fresh process: the tests above have asked already)."""
    names = ["cache", "help", "analyze"]
    done = subprocess.run(
        [sys.executable, "-c", SHOWN_ALONE_THEN_DASH_H, *names], capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines() == [
        f"{name} 0 Usage: ttt-lookup {name} [OPTIONS]"
        + (" [COMMAND]" if name == "help" else " [BOARD]" if name == "analyze" else "")
        for name in names
    ], done.stdout


def test_a_bare_command_prints_the_help_and_succeeds():
    result = run()
    assert result.exit_code == 0 and result.stderr == ""
    assert result.stdout == run("--help").stdout


def test_best_has_json(db):
    result = run("best", "X...O....", "--json", "--db", db)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"board": "X...O....", "to_move": "X", "move": 1, "value": 0, "remoteness": 7}


def test_every_command_that_prints_data_has_json():
    for name in commands():
        command = cli.get_command(click.Context(cli), name)
        assert command is not None
        flags = {opt for param in command.params for opt in param.opts}
        assert name in ("play", "serve", "help") or "--json" in flags, name  # a game, a server, help: no data


# -- colour: only on a terminal (CliRunner's color=True stands for one) --------------------------
ESC = "\x1b["


@pytest.mark.parametrize(
    ("args", "env", "coloured"),
    [
        ([], {}, True),
        ([], {"NO_COLOR": "1"}, False),
        ([], {"TERM": "dumb"}, False),
        (["--no-color"], {}, False),
        (["--color"], {"NO_COLOR": "1"}, True),
        (["--color"], {"TERM": "dumb"}, True),
    ],
)
def test_colour_on_a_terminal(db, args, env, coloured):
    result = run("analyze", "X...O....", "--db", db, *args, env={"NO_COLOR": "", "TERM": "xterm", **env}, color=True)
    assert result.exit_code == 0, result.output
    assert (ESC in result.stdout) == coloured


def test_the_colour_flag_also_goes_before_the_command(db):
    result = CliRunner().invoke(cli, ["--no-color", "analyze", "X...O....", "--db", db], color=True)
    assert result.exit_code == 0 and ESC not in result.stdout


def test_no_colour_into_a_pipe(db):
    assert ESC not in run("analyze", "X...O....", "--db", db).stdout


# -- shell completion -------------------------------------------------------------------------------
def complete(words: str) -> list[str]:
    """What bash completion offers for the last word of ``words`` (click's bash protocol)."""
    cword = len(words.split()) - (0 if words.endswith(" ") else 1)
    env = {"_TTT_LOOKUP_COMPLETE": "bash_complete", "COMP_WORDS": words, "COMP_CWORD": str(cword)}
    result = run(env=env)
    assert result.exit_code == 0, result.output
    return [line.split(",", 1)[1] for line in result.stdout.splitlines()]


def test_completion_of_query_names():
    assert complete("ttt-lookup query tr") == ["traps"]
    assert "only_moves" in complete("ttt-lookup query ")


def test_completion_of_agent_specs():
    assert complete("ttt-lookup compare th") == ["think1", "think2", "think3"]
    assert complete("ttt-lookup compare perfect ra") == ["random"]
    assert complete("ttt-lookup tournament --agents think1,per") == ["think1,perfect"]
    assert "think1,think2" in complete("ttt-lookup tournament --agents think1,th")
    assert "think1,think1" not in complete("ttt-lookup tournament --agents think1,th")


def test_completion_of_variants():
    assert complete("ttt-lookup analyze --variant 4x") == ["4x3k3", "4x4", "4x4k3", "4x4-misere"]
    assert complete("ttt-lookup stats --variant 3x3") == ["3x3", "3x3-misere"]


# -- progress and seeds -----------------------------------------------------------------------------
def test_an_exact_tournament_shows_progress_on_stderr(db, monkeypatch):
    monkeypatch.setattr(contests, "bars", drawn_bars)  # as on a terminal
    result = run("tournament", "--agents", "random,think1,heuristic", "--exact", "--json", "--db", db)
    assert result.exit_code == 0, result.output
    json.loads(result.stdout)  # stdout stays clean
    assert "3 agents, exact" in result.stderr and "accuracy of 3 agents" in result.stderr


def test_a_sampled_run_without_seed_reports_the_seed_it_drew_and_replays(db):
    first = run("compare", "think1", "random", "--games", "40", "--json")
    seed = json.loads(first.stdout)["seed"]
    assert isinstance(seed, int)
    again = run("compare", "think1", "random", "--games", "40", "--seed", str(seed), "--json")
    assert again.stdout == first.stdout
    text = run("compare", "think1", "random", "--games", "40")
    assert "drawn: replay with --seed " in text.stdout.splitlines()[0]
    tournament = run("tournament", "--agents", "random,think1", "--games", "20", "--json", "--db", db)
    assert isinstance(json.loads(tournament.stdout)["seed"], int)
