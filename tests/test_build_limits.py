"""Builds that run out of room or memory: one ``Error:`` line, exit code 1, the old database
byte for byte, and no file but the build's scratch folder, which the next run resumes from.

The full disk is a small tmpfs (skipped only where mounting is refused, as for a user who is
not root); the memory cap is ``RLIMIT_AS`` on the build's process, set from what a 3x3 build
was measured to take in the same run, which a 4x4 build exceeds by far.
"""

from __future__ import annotations

import re
import resource
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from ttt_solver.cli import cli
from ttt_solver.store import writer

ROOT = Path(__file__).resolve().parent.parent
BUILD = [sys.executable, str(ROOT / "build_db.py")]
MIB = 1 << 20


@pytest.fixture
def small_disk(tmp_path: Path, db_path: Path) -> Iterator[Path]:
    """A tmpfs holding a copy of the 3x3 database and 32 KiB more: no room for another."""
    folder = tmp_path / "disk"
    folder.mkdir()
    size = db_path.stat().st_size + 32 * 1024
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip() or mounted.returncode}")
    try:
        (folder / "ttt.sqlite").write_bytes(db_path.read_bytes())
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)


@pytest.mark.parametrize(
    "args",
    [
        ["--db", "{disk}/ttt.sqlite", "--force"],  # a forced rebuild over it
        ["--db", "{disk}/3x4k3.sqlite", "--variant", "3x4k3"],  # a bigger variant beside it
    ],
)
def test_a_full_disk_is_one_error_line_and_keeps_the_old_database(small_disk, db_path, args):
    args = [arg.format(disk=small_disk) for arg in args]
    done = subprocess.run([*BUILD, *args, "--quiet"], capture_output=True, text=True, check=False)
    target = args[1]
    assert (done.returncode, done.stdout) == (1, "")
    assert re.fullmatch(
        f"Error: cannot build database at {re.escape(repr(target))}: (No space left on device|database or disk is full)\n",
        done.stderr,
    )
    assert {p.name for p in small_disk.iterdir()} <= {"ttt.sqlite", f".{Path(target).name}.solving"}
    assert (small_disk / "ttt.sqlite").read_bytes() == db_path.read_bytes()


def test_a_driver_error_while_writing_is_one_line_and_leaves_nothing(tmp_path, db_path, monkeypatch):
    """The same path without a mount: what SQLAlchemy raises, with its statement dump, becomes
    the driver's one line."""
    import sqlite3

    from sqlalchemy.exc import OperationalError

    def full(*_args: object) -> None:
        raise OperationalError("INSERT INTO positions ...", [1, 2, 3], sqlite3.OperationalError("disk I/O error"))

    target = tmp_path / "ttt.sqlite"
    target.write_bytes(db_path.read_bytes())
    monkeypatch.setattr(writer, "_insert_columns", full)
    result = CliRunner().invoke(cli, ["build", "--db", str(target), "--quiet"])
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"Error: cannot build database at {str(target)!r}: disk I/O error\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".ttt.sqlite.solving", "ttt.sqlite"]
    assert target.read_bytes() == db_path.read_bytes()


# Runs the builder, then reports the most address space its process took (as VmPeak: kB).
PEAK = """
import runpy, sys
sys.argv[0] = {script!r}
try:
    runpy.run_path({script!r}, run_name="__main__")
finally:
    print(*[line for line in open("/proc/self/status") if line.startswith("VmPeak:")], file=sys.stderr, end="")
"""


def capped(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def test_a_build_without_enough_memory_is_one_error_line(tmp_path, db_path):
    if not Path("/proc/self/status").is_file():
        pytest.skip("no /proc to measure a build's address space")
    probe = tmp_path / "probe.sqlite"
    script = PEAK.format(script=BUILD[1])
    measured = subprocess.run(
        [sys.executable, "-c", script, "--db", str(probe), "--quiet"], capture_output=True, text=True, check=True
    )
    peak = int(measured.stderr.split()[-2]) * 1024  # what a whole 3x3 build took
    target = tmp_path / "ttt.sqlite"
    target.write_bytes(db_path.read_bytes())
    done = subprocess.run(
        [*BUILD, "--variant", "4x4", "--db", str(target), "--force", "--quiet"],
        capture_output=True, text=True, check=False, preexec_fn=lambda: capped(peak + 64 * MIB),
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "Error: not enough memory to run 'ttt-lookup build': free some memory, or raise this process's memory limit\n"
    )
    assert {p.name for p in tmp_path.iterdir()} <= {"probe.sqlite", "ttt.sqlite", ".ttt.sqlite.solving"}
    assert target.read_bytes() == db_path.read_bytes()


def test_running_out_of_memory_while_writing_leaves_the_old_database(tmp_path, db_path, monkeypatch):
    def exhausted(*_args: object) -> None:
        raise MemoryError

    target = tmp_path / "ttt.sqlite"
    target.write_bytes(db_path.read_bytes())
    monkeypatch.setattr(writer, "_insert_columns", exhausted)
    result = CliRunner().invoke(cli, ["build", "--db", str(target), "--force", "--quiet"])
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr.startswith("Error: not enough memory to run ") and result.stderr.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [".ttt.sqlite.solving", "ttt.sqlite"]
    assert target.read_bytes() == db_path.read_bytes()


def test_the_writer_is_loaded_before_the_solve_takes_the_memory(tmp_path):
    """A C extension loaded once memory is short fails as an ImportError ("failed to map
    segment"), a traceback: the build loads SQLAlchemy's SQLite dialect when it checks the target."""
    code = (
        "import sys\nfrom ttt_solver.store import Target\nfrom ttt_solver.store.writer import check_target\n"
        f"check_target(Target.parse({str(tmp_path / 't.sqlite')!r}))\n"
        "print('sqlalchemy.dialects.sqlite.pysqlite' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "True\n"
