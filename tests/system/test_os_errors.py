"""An OS error names its file and what to do: before, a build said only ``Not a directory``,
``Is a directory`` or ``File exists``, leaving the user to guess which of its paths was meant."""

from __future__ import annotations

import errno

import pytest
from click.testing import CliRunner

from ttt_solver.cli import cli
from ttt_solver.system.os_errors import described, file_on_the_way

MOVE = "move it away or choose another path"


def build(*args: str):
    result = CliRunner().invoke(cli, ["build", "--quiet", *args])
    assert (result.exit_code, result.stdout) == (1, ""), result.output
    assert result.stderr.count("\n") == 1, result.stderr
    return result.stderr.rstrip("\n")


def test_a_database_in_a_folder_that_is_a_file_names_that_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").touch()
    assert build("--db", "afile/x.sqlite") == (
        f"Error: cannot build database at 'afile/x.sqlite': 'afile' is a file, where a folder is needed: {MOVE}"
    )


def test_a_file_where_the_scratch_folder_goes_is_named(tmp_path):
    scratch = tmp_path / ".t.sqlite.solving"
    scratch.touch()
    said = build("--variant", "3x5k4", "--memory", "64MB", "--db", str(tmp_path / "t.sqlite"))
    assert said == (
        f"Error: cannot build database at '{tmp_path / 't.sqlite'}': '{scratch}' is a file, where a folder is"
        f" needed: {MOVE}; nothing was kept"
    )


def test_a_folder_where_the_scratch_folders_lock_goes_is_named(tmp_path):
    lock = tmp_path / ".t.sqlite.solving" / "lock"
    lock.mkdir(parents=True)
    said = build("--variant", "3x5k4", "--memory", "64MB", "--db", str(tmp_path / "t.sqlite"))
    assert said.startswith(
        f"Error: cannot build database at '{tmp_path / 't.sqlite'}': '{lock}' is a folder, where a file is needed: {MOVE}"
    )


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (OSError(errno.EACCES, "Permission denied", "/x/y"), "Permission denied: '/x/y'"),
        (OSError(errno.ENOSPC, "No space left on device"), "No space left on device"),
        (OSError(errno.ENOTDIR, "Not a directory", "/nowhere/at/all"), "Not a directory: '/nowhere/at/all'"),
        (OSError(errno.EISDIR, "Is a directory", "/tmp"), f"'/tmp' is a folder, where a file is needed: {MOVE}"),
    ],
)
def test_an_os_error_in_words(error, said):
    assert described(error) == said


def test_the_file_on_the_way_is_the_first_part_of_the_path_that_is_no_folder(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "f").touch()
    assert file_on_the_way(str(tmp_path / "a" / "f" / "g" / "h")) == str(tmp_path / "a" / "f")
    assert file_on_the_way(str(tmp_path / "a" / "f")) is None  # the path itself is not on its own way
    assert file_on_the_way(str(tmp_path / "b" / "c")) is None


def test_a_path_the_message_names_already_is_not_said_twice(tmp_path):
    (tmp_path / "f").touch()
    inside = str(tmp_path / "f" / "x")
    assert described(OSError(errno.ELOOP, "Too many levels of symbolic links", "/a"), "/a") == (
        "Too many levels of symbolic links"
    )
    assert described(OSError(errno.ENOTDIR, "Not a directory", inside), inside) == (
        f"'{tmp_path / 'f'}' is a file, where a folder is needed: {MOVE}"
    )
