"""Databases in a folder the reader cannot write: rollback-journal and write-ahead-log (WAL) files.

A user may convert a database with ``PRAGMA journal_mode=WAL`` and then make its folder
read-only (or copy it to read-only media). SQLite reads a WAL file through its ``-wal`` log and
``-shm`` index, which it cannot create there; the reader opens such a file ``immutable`` when the
file alone holds every change (see ``ttt_solver.store.sqlite_file``). ``analyze``, ``verify`` and
``Oracle.load`` must read all of these; a log holding changes that nothing can read without its
index is one clear error line, never "damaged" or "not a ttt-solver database".

The reads run in a process that file permissions bind: root's capabilities that override them
are dropped from its bounding set before it starts (a user who is not root needs nothing).
"""

from __future__ import annotations

import ctypes
import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ttt_solver.store import sqlite_file

_LIBC = ctypes.CDLL(None, use_errno=True)
_PR_CAPBSET_DROP = 24
_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH, _CAP_FOWNER = 1, 2, 3
CRASHED_WRITER = (
    "import os, sqlite3, sys\nconn = sqlite3.connect(sys.argv[1])\nconn.execute('CREATE TABLE notes (x)')\n"
    "conn.commit()\nos._exit(0)  # no close: the log keeps the change, and the index stays"
)
# The three reads, in one process: (exit code, stdout, stderr) of each, as JSON.
READS = """
import json, sys
from click.testing import CliRunner
from ttt_solver import Oracle
from ttt_solver.cli import cli
path, found = sys.argv[1], {}
for name, args in [("analyze", ["analyze", "X...O....", "--db", path, "--json"]), ("verify", ["verify", "--db", path])]:
    result = CliRunner().invoke(cli, args)
    found[name] = [result.exit_code, result.stdout, result.stderr]
try:
    eager, lazy = Oracle.load(path), Oracle.load(path, eager=False)
    found["load"] = [0, f"{eager.value('X...O....')} {lazy.best_move('X...O....')}", ""]
except Exception as error:
    found["load"] = [1, "", f"{type(error).__name__}: {error}"]
print(json.dumps(found))
"""


def bound_by_permissions() -> None:
    """In the child, before exec: as root, drop the capabilities that ignore file permissions."""
    if os.geteuid() == 0:
        for capability in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH, _CAP_FOWNER):
            _LIBC.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0)


def run_bound(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, check=False, preexec_fn=bound_by_permissions
    )


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    """A folder for one database; :func:`read_only` makes it and its files read-only."""
    made = tmp_path / "shelf"
    made.mkdir()
    try:
        yield made
    finally:
        made.chmod(0o755)
        for path in made.iterdir():
            path.chmod(0o644)


def read_only(folder: Path) -> None:
    for path in folder.iterdir():
        path.chmod(0o444)
    folder.chmod(0o555)
    probe = run_bound("-c", f"open({str(folder / 'probe')!r}, 'w')")
    if probe.returncode == 0:
        (folder / "probe").unlink()
        pytest.skip("no way here to run a process that file permissions bind")


def wal(path: Path) -> sqlite3.Connection:
    """Convert the database to WAL mode, as a user would; the connection stays open."""
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode=WAL").fetchone() == ("wal",)
    conn.execute("SELECT count(*) FROM meta").fetchall()  # the log and index exist from the first read
    return conn


def reads(path: Path) -> dict[str, list[Any]]:
    """``ttt-lookup analyze``, ``ttt-lookup verify`` and ``Oracle.load``: exit code, stdout, stderr."""
    done = run_bound("-c", READS, str(path))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    found: dict[str, list[Any]] = json.loads(done.stdout)
    return found


@pytest.mark.parametrize("setup", ["rollback", "wal", "wal, log and index open", "wal, a crashed writer's log"])
def test_a_database_in_a_read_only_folder_reads(db_path, folder, setup):
    path = folder / "ttt.sqlite"
    path.write_bytes(db_path.read_bytes())
    conn = None
    if setup.startswith("wal"):
        conn = wal(path)
        if setup != "wal, log and index open":
            conn.close()
    if setup == "wal, a crashed writer's log":
        subprocess.run([sys.executable, "-c", CRASHED_WRITER, str(path)], check=True)
    files = sorted(p.name for p in folder.iterdir())
    expected = ["ttt.sqlite"] if setup in ("rollback", "wal") else ["ttt.sqlite", "ttt.sqlite-shm", "ttt.sqlite-wal"]
    assert files == expected
    try:
        read_only(folder)
        found = reads(path)
        after = sorted(p.name for p in folder.iterdir())
    finally:
        if conn is not None:
            conn.close()  # the converting connection: it may remove the log and index now
    assert found["analyze"][0] == 0 and '"value": 0' in found["analyze"][1], found
    assert found["verify"][0] == 0 and "the table is proved" in found["verify"][1], found
    assert found["load"] == [0, "0 1", ""]
    assert after == files  # the reads made nothing


def test_a_log_that_cannot_be_read_without_its_index_is_one_clear_line(db_path, folder):
    path = folder / "ttt.sqlite"
    path.write_bytes(db_path.read_bytes())
    wal(path).close()
    subprocess.run([sys.executable, "-c", CRASHED_WRITER, str(path)], check=True)
    (folder / "ttt.sqlite-shm").unlink()
    read_only(folder)
    message = (
        f"cannot read {str(path)!r}: its write-ahead log 'ttt.sqlite-wal' holds changes that SQLite reads only"
        " through an index file 'ttt.sqlite-shm', which it cannot create in a folder this user cannot write:"
        " open the database once as a user who can write the folder (closing it moves the log into the file)"
    )
    found = reads(path)
    assert found["analyze"] == found["verify"] == [1, "", f"Error: {message}\n"]
    assert found["load"] == [1, "", f"DatabaseError: {message}"]


@pytest.mark.parametrize(
    "mode, log, index, immutable",
    [
        ("delete", None, False, False),  # a rollback-journal file: SQLite reads it as it is
        ("wal", None, False, True),  # the file holds everything: read it alone
        ("wal", b"", False, True),
        ("wal", b"", True, False),  # log and index: SQLite reads through them
        ("wal", None, True, True),
        ("wal", b"x" * 4096, False, False),  # changes in the log: never skipped
        ("wal", b"x" * 4096, True, False),
    ],
)
def test_only_a_whole_wal_file_in_an_unwritable_folder_is_opened_immutable(
    db_path, tmp_path, monkeypatch, mode, log, index, immutable
):
    path = tmp_path / "ttt.sqlite"
    path.write_bytes(db_path.read_bytes())
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA journal_mode={mode}")
    conn.close()
    if log is not None:
        Path(f"{path}-wal").write_bytes(log)
    if index:
        Path(f"{path}-shm").write_bytes(b"\0" * 32768)
    assert sqlite_file.sqlite_uri(path).endswith("&immutable=1") is False  # a folder it can write
    monkeypatch.setattr(sqlite_file.os, "access", lambda *_args, **_kwargs: False)
    assert sqlite_file.sqlite_uri(path).endswith("&immutable=1") is immutable
    assert sqlite_file.sqlite_uri(path, mode="rw").endswith("?mode=rw")
