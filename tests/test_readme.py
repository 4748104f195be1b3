"""README.md cannot drift: its Python snippets run, their commented results hold, and the
command outputs it shows are what the commands print.

- A Python block runs top to bottom; a line ``expression  # RESULT ...`` whose comment starts
  with a Python literal (``7``, ``[1, 2, 3]``, ``{1: 1.0}``) must evaluate to that literal.
- A ``text`` block starting with ``$ ttt-lookup ...`` must be that command's output; a line
  ``...`` stands for any number of lines.
- The default database of the snippets is the session's (a tmp directory), never ``data/``.
"""

from __future__ import annotations

import ast
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ttt_solver.cli import cli

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def blocks(language: str) -> list[tuple[int, str]]:
    """(line number, text) of every top-level fenced block in ``language``."""
    return [(README.count("\n", 0, m.start()) + 1, m[2]) for m in BLOCK.finditer(README) if m[1] == language]


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


@pytest.mark.parametrize(("line", "code"), PYTHON, ids=[f"line {line}" for line, _ in PYTHON])
def test_python_snippet_runs_and_its_results_hold(line, code, default_databases, capsys):
    namespace: dict[str, object] = {"__name__": "readme"}
    if "Oracle.load(" in code and "import" not in code.split("\n", 1)[0]:
        exec("from ttt_solver import Oracle", namespace)  # a snippet that continues the one before  # noqa: S102 (running the README is the point)
    tree = ast.parse(code)
    lines = code.splitlines()
    for statement in tree.body:
        source = lines[statement.lineno - 1]
        code_part, _, comment = source.partition("  # ")
        is_literal, expected = literal_prefix(comment)
        try:
            if isinstance(statement, ast.Expr) and is_literal and not code_part.startswith("print("):
                value = eval(compile(ast.Expression(statement.value), "README", "eval"), namespace)
                assert value == expected, f"README line {line + statement.lineno}: {source.strip()} gave {value!r}"
            else:
                exec(compile(ast.Module([statement], []), "README", "exec"), namespace)  # noqa: S102 (running the README is the point)
        except ImportError as error:  # an extra that is not installed
            pytest.skip(f"README line {line + statement.lineno} needs {error.name}")


TEXT = [(line, text) for line, text in blocks("text") if text.startswith("$ ttt-lookup ")]


@pytest.mark.parametrize(("line", "text"), TEXT, ids=[f"line {line}" for line, _ in TEXT])
def test_shown_command_output_is_what_the_command_prints(line, text, db_path):
    command, *expected = text.rstrip("\n").split("\n")
    args = shlex.split(command.removeprefix("$ ttt-lookup "))
    result = CliRunner().invoke(cli, [*args, "--db", str(db_path)])
    assert result.exit_code == 0, result.output
    assert matches(expected, result.stdout.rstrip("\n").split("\n")), f"README line {line}:\n{result.stdout}"


def matches(expected: list[str], actual: list[str]) -> bool:
    """Line by line, where ``...`` matches any run of lines (possibly none)."""
    if not expected:
        return not actual
    if expected[0] == "...":
        return any(matches(expected[1:], actual[i:]) for i in range(len(actual) + 1))
    return bool(actual) and actual[0] == expected[0] and matches(expected[1:], actual[1:])


def test_the_test_set_up_command_is_the_one_ci_runs():
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    readme = re.search(r"pip install -e '(\.\[[^\]]*\])' \\\n.*&& (python -m pytest [^\n]*)\n", README)
    ci = re.search(r"pip install --quiet -e '(\.\[[^\]]*\])'", run)
    assert readme is not None and ci is not None
    assert readme[1] == ci[1]
    assert re.search(rf"^{re.escape(readme[2])}$", run, re.MULTILINE), readme[2]  # the same test command


def test_the_readme_examples_exist_and_show_their_help():
    for name in ("q_learning.py", "maskable_ppo.py"):
        assert f"examples/{name}" in README
        done = subprocess.run(
            [sys.executable, str(ROOT / "examples" / name), "--help"], capture_output=True, text=True, check=False
        )
        assert done.returncode == 0 and done.stdout.startswith("usage:"), done.stderr
