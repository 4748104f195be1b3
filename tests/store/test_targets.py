"""Odd targets: paths the file system cannot name, folders, FIFOs, devices, a trailing slash,
symbolic links. Each gets one clear error (the same typed error from Python as on the command
line), and a link is built through, never replaced."""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from support.extra_markers import need

from ttt_solver import Oracle
from ttt_solver.builder.build import build
from ttt_solver.cli import cli
from ttt_solver.errors import DatabaseError, InvalidTargetError, TTTError
from ttt_solver.lookup.stats import load_stats

UNNAMEABLE = [
    "a\0b.sqlite",
    "a\ud800.sqlite",  # a lone surrogate that no byte of a POSIX name decodes to
    "sqlite:///a\0b.sqlite",
    "sqlite:///a\udfff.sqlite",
    "postgresql://user@localhost/db\0name",
    "postgresql://user@localhost/\ud800",
]


@pytest.mark.parametrize("target", [*UNNAMEABLE, Path("a\0b.sqlite"), Path("\ud800")], ids=repr)
def test_a_path_no_file_system_can_name_is_an_invalid_target_everywhere(tmp_path, monkeypatch, target):
    monkeypatch.chdir(tmp_path)
    calls = [
        lambda: build(target),
        lambda: Oracle.load(target),
        lambda: Oracle.load(target, eager=False),
        lambda: Oracle.load(target, verify=True),
        lambda: load_stats(target),
    ]
    for call in calls:
        with pytest.raises(InvalidTargetError, match="^invalid database "):
            call()
    assert list(tmp_path.iterdir()) == []
    # The command line gives the same error, in one line, exit code 2 (bad input).
    for command in (["build"], ["analyze", "X........"], ["verify"], ["query", "ply_counts"], ["stats"]):
        result = CliRunner().invoke(cli, [*command, "--db", str(target)])
        assert result.exit_code == 2 and result.stdout == "", (command, result.output)
        assert result.stderr.startswith("Error: invalid database ") and result.stderr.count("\n") == 1


@pytest.mark.parametrize("path", ["a\0b.png", "\ud800.svg"], ids=repr)
def test_charts_refuse_such_a_path_before_drawing(path):
    from ttt_solver.charts import tournament_chart as plot
    from ttt_solver.charts import variant_chart as plot_stats

    with pytest.raises(InvalidTargetError, match="^invalid chart file "):
        plot.draw(None, path)  # type: ignore[arg-type]  # the path is checked first
    with pytest.raises(InvalidTargetError, match="^invalid chart file "):
        plot_stats.draw({(0, 0, 0): 1}, "3x3", path)


@pytest.mark.openspiel
def test_the_openspiel_bot_takes_the_same_error():
    pyspiel = need("openspiel", "pyspiel")
    from ttt_solver.players.openspiel_bot import PerfectBot

    with pytest.raises(InvalidTargetError):
        PerfectBot(pyspiel.load_game("tic_tac_toe"), 0, db="a\0b")


@pytest.mark.web
def test_the_server_takes_the_same_error():
    from ttt_solver.web.data import open_variant

    for target in UNNAMEABLE:
        with pytest.raises(InvalidTargetError):
            open_variant(target)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.text(st.characters(exclude_characters="/", exclude_categories=()), min_size=1, max_size=20))
def test_any_text_is_a_lookup_or_one_typed_error(tmp_path_factory, name):
    folder = tmp_path_factory.mktemp("names")
    with contextlib.chdir(folder):
        for target in (name, f"~{name}", f"sqlite:///{folder}/{name}"):
            try:
                Oracle.load(target, eager=False).close()
            except TTTError as error:
                assert isinstance(error, InvalidTargetError | DatabaseError), repr(error)
    assert list(folder.iterdir()) == []


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe.sqlite"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("kind", ["folder", "FIFO", "device"])
def test_a_folder_fifo_or_device_is_no_database_and_no_build_is_suggested(tmp_path, kind, fifo):
    target = {"folder": tmp_path, "FIFO": fifo, "device": Path(os.devnull)}[kind]
    message = f"'{target}' is a {kind}, not a database file: give --db a database file"
    for command in (["analyze", "X........"], ["best", "X........"], ["verify"], ["stats"], ["query", "traps"]):
        result = CliRunner().invoke(cli, [*command, "--db", str(target)])
        assert result.exit_code == 1 and result.stdout == "", (command, result.output)
        assert result.stderr == f"Error: {message}\n", command
    with pytest.raises(DatabaseError, match="not a database file"):
        Oracle.load(target, eager=False)
    result = CliRunner().invoke(cli, ["build", "--db", str(target)])
    assert result.exit_code == 1 and result.stderr.endswith(f"it is a {kind}, not a file\n"), result.stderr


@pytest.mark.parametrize("spec", ["newdir/", "sqlite:///{tmp}/newdir/", "{tmp}/newdir/"])
def test_a_trailing_slash_names_a_folder_not_a_file(tmp_path, monkeypatch, spec):
    monkeypatch.chdir(tmp_path)
    spec = spec.format(tmp=tmp_path)
    result = CliRunner().invoke(cli, ["build", "--db", spec])
    assert result.exit_code == 2 and result.stdout == ""
    assert "a path ending in '/' names a folder; name the database file in it, e.g. " in result.stderr
    assert result.stderr.rstrip().endswith("newdir/ttt.sqlite'") and result.stderr.count("\n") == 1
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(InvalidTargetError, match="names a folder"):
        build(spec)
    assert list(tmp_path.iterdir()) == []


def test_a_build_through_a_symbolic_link_writes_its_destination(tmp_path, db_path):
    link, real = tmp_path / "link.sqlite", tmp_path / "data" / "real.sqlite"
    link.symlink_to(real)  # dangling: the folder does not exist yet either
    result = CliRunner().invoke(cli, ["build", "--db", str(link), "--quiet"])
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and os.readlink(link) == str(real) and real.is_file()
    first = real.stat().st_ino
    result = CliRunner().invoke(cli, ["build", "--db", str(link), "--quiet"])  # a link to a database of ours
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and real.is_file() and real.stat().st_ino != first  # replaced, as a file is
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "link.sqlite"]
    assert sorted(p.name for p in real.parent.iterdir()) == ["real.sqlite"]
    assert Oracle.load(link, verify=True).value("X........") == 0
    foreign = tmp_path / "foreign.sqlite"
    shutil.copyfile(db_path, foreign)
    (tmp_path / "other").symlink_to(tmp_path / "notes.txt")
    (tmp_path / "notes.txt").write_text("mine")
    result = CliRunner().invoke(cli, ["build", "--db", str(tmp_path / "other")])
    assert result.exit_code == 1 and "refusing to overwrite" in result.stderr  # the destination is not ours
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_names_the_system_cannot_look_up_are_one_line(tmp_path):
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    long = tmp_path / ("x" * 300)
    for target, why in ((loop, "Too many levels of symbolic links"), (long, "File name too long")):
        for command, start in ((["analyze", "X........"], "cannot read"), (["build"], "cannot build database at")):
            result = CliRunner().invoke(cli, [*command, "--db", str(target)])
            assert result.exit_code == 1 and result.stdout == "", (command, result.output)
            assert result.stderr.startswith(f"Error: {start} ") and result.stderr.endswith(f": {why}\n")
