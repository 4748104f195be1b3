"""Verify where temporary files cannot be written (a full disk, a file-size limit): one line
naming the folder at fault and what to do, exit code 1, and never "damaged" with a command to
rebuild a sound database. Two kinds of temporary files: verify's own folder of the tiers' rows
(in ``TMPDIR``, under a small budget or with an engine), and SQLite's (the sort of the moves
table, in ``SQLITE_TMPDIR``). Before, a full ``TMPDIR`` said "cannot write the output: No space
left on device", and SQLite's full temporary disk "database ... is damaged (database or disk is
full); rebuild it with: ... --force"."""

from __future__ import annotations

import errno
import os
import sqlite3
import subprocess
import tempfile
from contextlib import closing
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.limits import limited

from ttt_solver.audit.verify import verify_source
from ttt_solver.cli import cli
from ttt_solver.errors import VerifyError
from ttt_solver.game.variant import Variant
from ttt_solver.lookup.rows import DatabaseRows
from ttt_solver.store import Target
from ttt_solver.store.connection import Connection
from ttt_solver.store.reader import Reader

NAME = "3x4k3"  # 28,275 rows, 98,847 moves
# Bytes a file may hold (ulimit -f): less than the chunk file of a tier proved in one chunk (a
# tier of one range: 10 bytes a sound row, 65,880 for the widest tier's 6,588) and more than its
# code column (8 bytes a row); less than a tier's code column (a tier in verify's folder).
CHUNK_LIMIT, COLUMN_LIMIT = 60 << 10, 16 << 10


def verify_capped(
    db: Path, tmp_path: Path, limit: int, *options: str
) -> tuple[subprocess.CompletedProcess[str], Path, Path]:
    """``ttt-lookup verify`` of ``db`` with files capped at ``limit`` bytes (Python ignores
    SIGXFSZ: a write past it fails with EFBIG, or SQLite's 'disk I/O error'); the run, and the
    folders of verify's and SQLite's temporary files."""
    verify_tmp, sqlite_tmp = tmp_path / "tmp", tmp_path / "sqlite-tmp"
    verify_tmp.mkdir()
    sqlite_tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(verify_tmp), "SQLITE_TMPDIR": str(sqlite_tmp), "PYTHONDONTWRITEBYTECODE": "1"}
    command = [*limited("RLIMIT_FSIZE", limit, "-m", "ttt_solver.cli"), "verify", "--variant", NAME,
               "--db", str(db), "--quiet", *options]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, check=False, env=env), verify_tmp, sqlite_tmp


def test_verify_folder_that_cannot_be_written_is_one_line_naming_it(variant_db, tmp_path):
    done, verify_tmp, _sqlite_tmp = verify_capped(variant_db(NAME), tmp_path, COLUMN_LIMIT, "--memory", "1M")
    assert (done.returncode, done.stdout, done.stderr.count("\n")) == (1, "", 1), done.stderr
    assert done.stderr.startswith(f"Error: cannot verify: the temporary folder '{verify_tmp}/ttt-verify-"), done.stderr
    assert done.stderr.endswith(
        "cannot be written (File too large): free some space there, or set TMPDIR to a folder with room for 607KB"
        " (28,275 rows of 22 bytes)\n"
    ), done.stderr
    assert list(verify_tmp.iterdir()) == []  # its folder removed


def test_a_chunks_file_over_the_limit_is_one_line_naming_the_folder(variant_db, tmp_path):
    """At the default budget a tier is one chunk, whose chunk file (its sound rows' code, value
    and remoteness: a tier of one range) is the biggest verify writes: its short write (numpy's ``tofile`` said "N requested and M written", an OSError
    with no errno: "cannot write the output") names the folder as the column files' does."""
    done, verify_tmp, _sqlite_tmp = verify_capped(variant_db(NAME), tmp_path, CHUNK_LIMIT)
    assert (done.returncode, done.stdout, done.stderr.count("\n")) == (1, "", 1), done.stderr
    assert done.stderr.startswith(f"Error: cannot verify: the temporary folder '{verify_tmp}/ttt-verify-"), done.stderr
    assert "cannot be written (File too large)" in done.stderr
    assert list(verify_tmp.iterdir()) == []


def sqlite_error(code: int, name: str, message: str) -> sqlite3.Error:
    """An error as SQLite's module raises it, with its extended code and name."""
    error = sqlite3.OperationalError(message)
    error.sqlite_errorcode, error.sqlite_errorname = code, name  # type: ignore[attr-defined]
    return error


def verify_with_the_sort_failing(error: sqlite3.Error, db: Path, tmp_path: Path, monkeypatch) -> str:
    """``ttt-lookup verify`` of ``db`` whose sort of the moves table (SQLite's temporary files,
    in ``tmp_path``) raises ``error``; its one line on stderr, checked to be alone."""
    real = Connection._run

    def sort_failing(self: Connection, sql: str, params: object = ()) -> object:
        if "ORDER BY code, cell" in sql:  # the moves table's sort: SQLite's temporary files
            raise error
        return real(self, sql, params)  # type: ignore[arg-type]

    monkeypatch.setattr(Connection, "_run", sort_failing)
    monkeypatch.setenv("SQLITE_TMPDIR", str(tmp_path))
    result = CliRunner().invoke(cli, ["verify", "--variant", NAME, "--db", str(db), "--quiet"])
    assert (result.exit_code, result.stdout) == (1, ""), result.output
    return result.stderr


def test_sqlites_temporary_files_that_cannot_be_written_are_one_line_never_damaged(variant_db, tmp_path, monkeypatch):
    """A write of SQLite's temporary files refused (a file-size limit: SQLITE_IOERR_WRITE, "disk
    I/O error"). Verify's own files are bigger than the sort's, so a limit cannot stop the sort
    alone: the sort raises what SQLite raised there."""
    refused = sqlite_error(778, "SQLITE_IOERR_WRITE", "disk I/O error")
    assert verify_with_the_sort_failing(refused, variant_db(NAME), tmp_path, monkeypatch) == (
        f"Error: cannot read '{variant_db(NAME)}': SQLite cannot write its temporary files in '{tmp_path}'"
        " (disk I/O error): check the disk and ulimit -f, or set SQLITE_TMPDIR to a folder with room\n"
    )


def full_disk_error() -> sqlite3.Error:
    """SQLite's own SQLITE_FULL ("database or disk is full"), from a database capped at one page."""
    with closing(sqlite3.connect(":memory:")) as conn:
        conn.execute("PRAGMA max_page_count = 1")
        try:
            conn.execute("CREATE TABLE t (x)")
            conn.execute("INSERT INTO t VALUES (randomblob(10000))")
        except sqlite3.Error as error:
            return error
    raise AssertionError("a one-page database took 10,000 bytes")


def test_a_full_disk_under_sqlites_temporary_files_is_one_line_never_damaged(variant_db, tmp_path, monkeypatch):
    full = full_disk_error()
    assert full.sqlite_errorcode == 13  # SQLITE_FULL
    assert verify_with_the_sort_failing(full, variant_db(NAME), tmp_path, monkeypatch) == (
        f"Error: cannot read '{variant_db(NAME)}': SQLite cannot write its temporary files in '{tmp_path}'"
        " (database or disk is full): free some space there, or set SQLITE_TMPDIR to a folder with room\n"
    )


def test_a_temporary_folder_that_cannot_be_made_is_a_verify_error(variant_db, monkeypatch):
    def full(*_args: object, **_kwargs: object) -> str:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(tempfile, "mkdtemp", full)
    variant = Variant.parse(NAME)
    with Reader(Target.parse(str(variant_db(NAME))), NAME) as reader, pytest.raises(VerifyError) as refused:
        verify_source(DatabaseRows(reader, variant), memory=1 << 20)
    assert str(refused.value) == (
        f"cannot verify: the temporary folder {tempfile.gettempdir()!r} cannot be written (No space left on device):"
        " free some space there, or set TMPDIR to a folder with room for 607KB (28,275 rows of 22 bytes)"
    )
