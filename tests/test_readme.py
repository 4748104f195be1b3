"""README.md and the documentation in docs/ cannot drift: their Python snippets run, their
commented results hold, the command outputs they show are what the commands print, and every
``ttt-lookup`` command line they give is one the command line accepts.

- A Python block runs top to bottom; a line ``expression  # RESULT ...`` whose comment starts
  with a Python literal (``7``, ``[1, 2, 3]``, ``{1: 1.0}``) must evaluate to that literal.
- A ``text`` block starting with ``$ ttt-lookup ...`` must be that command's output; a line
  ``...`` stands for any number of lines.
- A ``bash`` (or ``sh``) block's lines that start with ``ttt-lookup`` must parse: the command exists, and
  its options and arguments are ones it takes, with values it accepts (the command is not run:
  builds, servers and games are not for a test).
- The default database of the snippets is the session's (a tmp directory), never ``data/``.
"""

from __future__ import annotations

import ast
import re
import shlex
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from ttt_solver.cli import cli

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def blocks(language: str) -> list[tuple[str, str]]:
    """(where, text) of every top-level fenced block in ``language`` of every document, where
    is ``README.md line 12`` or ``docs/python.md line 40``."""
    found: list[tuple[str, str]] = []
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        name = document.relative_to(ROOT).as_posix()
        for m in BLOCK.finditer(text):
            if m[1] == language:
                found.append((f"{name} line {text.count(chr(10), 0, m.start()) + 1}", m[2]))
    return found


def literal_prefix(comment: str) -> tuple[bool, object]:
    """The longest start of ``comment`` that is a Python literal, if any."""
    found: tuple[bool, object] = (False, None)
    for end in [*(i for i, c in enumerate(comment) if c in ":;, "), len(comment)]:
        try:
            found = (True, ast.literal_eval(comment[:end].strip()))
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return found


@pytest.fixture
def default_databases(monkeypatch, tmp_path, db_path, db_4x4):
    """The default database of every variant lives in tmp_path; 3x3 and 4x4 are the session's."""
    from ttt_solver.store import paths

    (tmp_path / "ttt.sqlite").symlink_to(db_path)
    (tmp_path / "4x4.sqlite").symlink_to(db_4x4)
    monkeypatch.setattr(paths, "data_folder", lambda: str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return tmp_path


PYTHON = blocks("python")


@pytest.mark.parametrize(("where", "code"), PYTHON, ids=[where for where, _ in PYTHON])
def test_python_snippet_runs_and_its_results_hold(where, code, default_databases, capsys):
    namespace: dict[str, object] = {"__name__": "readme"}
    if "Oracle.load(" in code and "import" not in code.split("\n", 1)[0]:
        exec("from ttt_solver import Oracle", namespace)  # a snippet that continues the one before  # noqa: S102 (running the README is the point)
    tree = ast.parse(code)
    lines = code.splitlines()
    for statement in tree.body:
        source = lines[statement.lineno - 1]
        at = f"{where} + {statement.lineno}"
        code_part, _, comment = source.partition("  # ")
        is_literal, expected = literal_prefix(comment)
        try:
            if isinstance(statement, ast.Expr) and is_literal and not code_part.startswith("print("):
                value = eval(compile(ast.Expression(statement.value), where, "eval"), namespace)
                assert value == expected, f"{at}: {source.strip()} gave {value!r}"
            else:
                exec(compile(ast.Module([statement], []), where, "exec"), namespace)  # noqa: S102 (running the README is the point)
        except ImportError as error:  # an extra that is not installed
            pytest.skip(f"{at} needs {error.name}")


TEXT = [(where, text) for where, text in blocks("text") if text.startswith("$ ttt-lookup ")]


@pytest.mark.parametrize(("where", "text"), TEXT, ids=[where for where, _ in TEXT])
def test_shown_command_output_is_what_the_command_prints(where, text, db_path):
    command, *expected = text.rstrip("\n").split("\n")
    args = shlex.split(command.removeprefix("$ ttt-lookup "))
    result = CliRunner().invoke(cli, [*args, "--db", str(db_path)])
    assert result.exit_code == 0, result.output
    assert matches(expected, result.stdout.rstrip("\n").split("\n")), f"{where}:\n{result.stdout}"


def matches(expected: list[str], actual: list[str]) -> bool:
    """Line by line, where ``...`` matches any run of lines (possibly none)."""
    if not expected:
        return not actual
    if expected[0] == "...":
        return any(matches(expected[1:], actual[i:]) for i in range(len(actual) + 1))
    return bool(actual) and actual[0] == expected[0] and matches(expected[1:], actual[1:])


COMMAND_LINES = [
    (f"{where} + {number}", line.split("#", 1)[0].strip())
    for where, text in [*blocks("bash"), *blocks("sh")]
    for number, line in enumerate(text.splitlines(), 1)
    if line.strip().startswith("ttt-lookup ")
]


@pytest.mark.parametrize(("where", "line"), COMMAND_LINES, ids=[where for where, _ in COMMAND_LINES])
def test_shown_command_line_is_one_the_command_takes(where, line):
    """Parsed as the command would parse it, with its values converted, and not run."""
    name, *args = shlex.split(line)[1:]
    with click.Context(cli, info_name="ttt-lookup") as group:
        command = cli.get_command(group, name)
        assert command is not None, f"{where}: no command {name!r}"
        try:
            command.make_context(name, args, parent=group)
        except click.exceptions.Exit as done:  # an eager option such as --help or --list
            assert done.exit_code == 0, where
        except click.ClickException as error:
            pytest.fail(f"{where}: {line!r}: {error.format_message()}")


def named_in_the_documents(pattern: str) -> set[str]:
    return {found for document in DOCUMENTS for found in re.findall(pattern, document.read_text(encoding="utf-8"))}


def test_every_file_of_the_package_named_exists():
    """A module moved or renamed cannot leave a page pointing at nothing."""
    named = named_in_the_documents(r"`(ttt_solver/[\w/]*(?:\.py)?)`")
    assert [path for path in sorted(named) if not (ROOT / path).exists()] == []


def test_every_dotted_name_of_the_package_named_is_defined():
    """``ttt_solver.players.openspiel_bot.PerfectBot``: the module exists and defines the name
    (read from its source, so that an extra that is not installed does not matter)."""
    missing = []
    for dotted in sorted(named_in_the_documents(r"\b(ttt_solver(?:\.\w+)+)")):
        parts = dotted.split(".")
        for end in range(len(parts), 0, -1):
            module = ROOT.joinpath(*parts[:end])
            source = module / "__init__.py" if module.is_dir() else module.with_suffix(".py")
            if source.exists():
                rest = parts[end:]
                if rest and not re.search(rf"\b{re.escape(rest[0])}\b", source.read_text(encoding="utf-8")):
                    missing.append(dotted)
                break
        else:
            missing.append(dotted)
    assert missing == []


def test_the_test_set_up_command_is_the_one_ci_runs():
    """README's test command and .ci/run install the same extras and run the same steps."""
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    readme = re.search(r"pip install -e '(\.\[[^\]]*\])' \\\n\s*&& ([^\n]*)\n", README)
    ci = re.search(r"pip install --quiet -e '(\.\[[^\]]*\])'", run)
    assert readme is not None and ci is not None
    assert readme[1] == ci[1]
    steps = [step.strip() for step in readme[2].split("&&")]
    assert steps[-1].startswith("python -m pytest ") and "mkdocs build --strict" in steps
    for step in steps:  # each step of README's command is a line of .ci/run
        assert re.search(rf"^{re.escape(step)}$", run, re.MULTILINE), step


def test_readme_getting_started_and_ci_give_the_same_test_commands():
    """The full and the quick test command read the same in README and docs/install.md, and
    .ci/run's comment says as many workers as it starts."""
    install = (ROOT / "docs" / "install.md").read_text(encoding="utf-8")
    commands = re.findall(r"^python3 -m venv .*pip install -e '\.\[test[^\n]*(?:\n  [^\n]*)?$", README, re.MULTILINE)
    assert len(commands) == 2 and all(command in install for command in commands), commands
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    workers = re.search(r"^python -m pytest .*-n (\d+)", run, re.MULTILINE)
    assert workers is not None
    said = {"2": "two", "3": "three", "4": "four"}[workers[1]]
    assert f"({said} pytest-xdist\n# workers" in run


def test_readme_installs_the_browser_the_browser_tests_launch():
    """Playwright cannot download its own browser here: README and .ci/run install Debian's
    Chromium, and the browser tests launch the ``chromium`` on PATH."""
    assert "`apt-get install chromium`" in README and "a `chromium` on `PATH`" in README
    assert re.search(r"apt-get install .*\bchromium\b", (ROOT / ".ci" / "run").read_text(encoding="utf-8"))
    launcher = (ROOT / "tests" / "support" / "browser_pages.py").read_text(encoding="utf-8")
    assert 'CHROMIUM = shutil.which("chromium")' in launcher and "executable_path=CHROMIUM" in launcher


def test_the_readme_examples_exist_and_show_their_help():
    for name in ("q_learning.py", "maskable_ppo.py"):
        assert f"examples/{name}" in README
        done = subprocess.run(
            [sys.executable, str(ROOT / "examples" / name), "--help"], capture_output=True, text=True, check=False
        )
        assert done.returncode == 0 and done.stdout.startswith("usage:"), done.stderr
