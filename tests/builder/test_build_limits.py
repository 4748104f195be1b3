"""Builds that run out of room or memory: one ``Error:`` line, exit code 1, the old database
byte for byte, and no file but the build's scratch folder, which the next run resumes from.

The full disk is a small tmpfs (skipped only where mounting is refused, as for a user who is
not root); the memory cap is ``RLIMIT_AS`` on the build's process, set from what a 3x3 build
was measured to take in the same run, which a 4x4 build exceeds by far.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner
from support.limits import limited

from ttt_solver.builder.disk import estimate
from ttt_solver.cli import cli
from ttt_solver.game.variant import Variant
from ttt_solver.store import writer
from ttt_solver.system.memory import size_text

ROOT = Path(__file__).resolve().parents[2]
BUILD = [sys.executable, str(ROOT / "build_db.py")]
MIB = 1 << 20


@pytest.fixture
def small_disk(tmp_path: Path, db_path: Path, request: pytest.FixtureRequest) -> Iterator[Path]:
    """A tmpfs holding a copy of the 3x3 database and room for what the disk check estimates
    a build of the variant ``request.param`` writes (so the build starts), but not for its
    database file (its moves table is not in the estimate)."""
    folder = tmp_path / "disk"
    folder.mkdir()
    size = db_path.stat().st_size + estimate(Variant.parse(request.param)) + 8 * 1024
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
    "small_disk,args",
    [
        ("3x3", ["--db", "{disk}/ttt.sqlite", "--force"]),  # a forced rebuild over it
        ("3x4k3", ["--db", "{disk}/3x4k3.sqlite", "--variant", "3x4k3"]),  # a bigger variant beside it
    ],
    indirect=["small_disk"],
)
def test_a_full_disk_is_one_error_line_and_keeps_the_old_database(small_disk, db_path, args):
    args = [arg.format(disk=small_disk) for arg in args]
    done = subprocess.run([*BUILD, *args, "--quiet"], capture_output=True, text=True, check=False)
    target = args[1]
    assert (done.returncode, done.stdout) == (1, "")
    folder = Path(target).parent / f".{Path(target).name}.solving"
    assert re.fullmatch(
        f"Error: cannot build database at {re.escape(repr(target))}: the disk is full; the scratch folder"
        f" {re.escape(repr(str(folder)))} \\([0-9.]+ ?[KM]?B\\) is kept for a resume: free some space and run the same"
        " command again, or delete the folder\n",
        done.stderr,
    ), done.stderr
    assert {p.name for p in small_disk.iterdir()} <= {"ttt.sqlite", f".{Path(target).name}.solving"}
    assert (small_disk / "ttt.sqlite").read_bytes() == db_path.read_bytes()


def test_too_little_free_space_is_refused_before_the_build_starts(tmp_path, monkeypatch):
    from ttt_solver.builder import disk

    monkeypatch.setattr(disk.shutil, "disk_usage", lambda _path: SimpleNamespace(free=1 << 20))
    target = tmp_path / "t.sqlite"
    result = CliRunner().invoke(cli, ["build", "--variant", "3x4k3", "--db", str(target), "--memory", "1MB"])
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: not enough disk space to build 3x4k3 at {str(target)!r}: about"
        f" {size_text(estimate(Variant.parse('3x4k3')))} needed (scratch folder and"
        f" database), 1MB free in {str(tmp_path)!r}\n"
    )
    assert list(tmp_path.iterdir()) == []  # no database, and no scratch folder either


def test_a_file_size_limit_says_so_and_what_was_kept(tmp_path):
    """Python ignores SIGXFSZ: a write past ``ulimit -f`` fails with EFBIG, or SQLite's 'disk I/O error'."""
    target = tmp_path / "t.sqlite"
    done = subprocess.run(
        limited("RLIMIT_FSIZE", 256 << 10, *BUILD[1:], "--variant", "3x4k3", "--db", str(target), "--memory", "1MB",
                "--quiet"),
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (1, ""), done.stderr
    assert done.stderr.startswith(
        f"Error: cannot build database at {str(target)!r}: a file reached this process's file-size limit"
        " (256KB, ulimit -f); the scratch folder "
    ), done.stderr
    assert "is kept for a resume: raise it and run the same command again" in done.stderr
    assert done.stderr.count("\n") == 1 and not target.exists()
    again = subprocess.run([*BUILD, "--variant", "3x4k3", "--db", str(target), "--memory", "1MB"],
                           capture_output=True, text=True, check=False)  # fmt: skip
    assert again.returncode == 0 and "resuming" in again.stderr, again.stderr


def test_a_driver_error_while_writing_is_one_line_and_leaves_nothing(tmp_path, db_path, monkeypatch):
    """The same path without a mount: what SQLAlchemy raises, with its statement dump, becomes
    the driver's one line."""
    import sqlite3

    from sqlalchemy.exc import OperationalError

    def full(*_args: object) -> None:
        raise OperationalError("INSERT INTO positions ...", [1, 2, 3], sqlite3.OperationalError("disk I/O error"))

    target = tmp_path / "ttt.sqlite"
    target.write_bytes(db_path.read_bytes())
    monkeypatch.setattr(writer, "_insert_rows", full)
    result = CliRunner().invoke(cli, ["build", "--db", str(target), "--quiet"])
    assert (result.exit_code, result.stdout) == (1, "")
    folder = tmp_path / ".ttt.sqlite.solving"
    assert result.stderr.startswith(f"Error: cannot build database at {str(target)!r}: disk I/O error; ")
    assert f"the scratch folder {str(folder)!r} (" in result.stderr and result.stderr.count("\n") == 1
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
        limited("RLIMIT_AS", peak + 64 * MIB, *BUILD[1:], "--variant", "4x4", "--db", str(target), "--force", "--quiet"),
        capture_output=True, text=True, check=False,
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
    monkeypatch.setattr(writer, "_insert_rows", exhausted)
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
