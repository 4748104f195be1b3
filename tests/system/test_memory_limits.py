"""Under a memory limit (``ulimit -v``) every command either works or prints one line,
``Error: not enough memory ...``, and exits 1: never a line of OpenBLAS's, never ``Aborted!``
(130) from the SIGINT OpenBLAS raises when it cannot start a thread, never a signal or an
ImportError traceback; a build keeps the old database; ``Oracle.load`` raises a TTTError."""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.limits import limited

from ttt_solver.errors import NotEnoughMemoryError, TTTError
from ttt_solver.system.memory import out_of_memory

CAPS_MB = (90, 120, 150, 180, 210)
MEMORY_ERROR = "Error: not enough memory to run 'ttt-lookup "


def capped(megabytes: int, *args: str) -> list[str]:
    """A command line running Python with ``args`` under a limit of ``megabytes`` of address space."""
    return limited("RLIMIT_AS", megabytes << 20, *args)


def run_capped(megabytes: int, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        capped(megabytes, "-m", "ttt_solver.cli", *args),
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
        check=False,
    )


def assert_works_or_one_memory_line(done: subprocess.CompletedProcess[str], what: str) -> None:
    assert "OpenBLAS" not in done.stderr and "Traceback" not in done.stderr, (what, done.stderr[-800:])
    if done.returncode == 0:
        assert "Error" not in done.stderr, (what, done.stderr)
    else:
        assert done.returncode == 1, (what, done.returncode, done.stderr[-800:])
        assert done.stderr.startswith(MEMORY_ERROR) and done.stderr.count("\n") == 1, (what, done.stderr)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.long
def test_every_command_works_or_says_it_has_not_enough_memory(db_path, tmp_path):
    db, target = tmp_path / "ttt.sqlite", tmp_path / "built.sqlite"
    shutil.copyfile(db_path, db)
    shutil.copyfile(db_path, target)
    before = digest(target)
    commands = [
        ["verify", "--quiet", "--db", str(db)],
        ["stats", "--db", str(db)],
        ["query", "ply_counts", "--db", str(db)],
        ["analyze", "X........", "--db", str(db)],
        ["compare", "perfect", "random", "--games", "4", "--seed", "1", "--db", str(db)],
        ["build", "--db", str(target), "--quiet"],
    ]
    outcomes = set()
    for megabytes in CAPS_MB:
        for command in commands:
            done = run_capped(megabytes, *command, cwd=tmp_path)
            assert_works_or_one_memory_line(done, f"{command[0]} under {megabytes} MB")
            outcomes.add(done.returncode)
            if command[0] == "build":
                if done.returncode:
                    assert digest(target) == before, megabytes  # the old database is kept
                assert sorted(p.name for p in tmp_path.iterdir()) == ["built.sqlite", "ttt.sqlite"]
    assert outcomes == {0, 1}  # the caps reach both sides of what the commands need


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.web
@pytest.mark.long
def test_serve_starts_or_says_it_has_not_enough_memory(db_path, tmp_path):
    started = 0
    for megabytes in (150, 180, 240):
        port = free_port()
        server = subprocess.Popen(
            capped(megabytes, "-m", "ttt_solver.cli", "serve", "--port", str(port), "--db", str(db_path)),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
        )  # fmt: skip
        listening = False
        try:
            deadline = time.monotonic() + 60
            while not listening and server.poll() is None and time.monotonic() < deadline:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    listening = True
                except OSError:
                    time.sleep(0.1)
        finally:
            if server.poll() is None:
                server.terminate()  # SIGTERM: it stops as by Ctrl-C (Aborted!, exit code 143)
            _out, err = server.communicate(timeout=30)
        assert "Traceback" not in err and "OpenBLAS" not in err, (megabytes, err[-800:])
        if listening:
            started += 1
        else:  # it did not start: one line saying why
            assert server.returncode == 1, (megabytes, server.returncode, err[-800:])
            *progress, last = err.splitlines()  # the databases it loaded, then why it stopped
            assert last.startswith(MEMORY_ERROR) and all(line.startswith("ttt-lookup serve: ") for line in progress)
    assert started >= 1


@pytest.mark.long
def test_oracle_load_raises_a_ttt_error_for_want_of_memory(db_path, db_4x4, tmp_path):
    code = (
        "import sys\nfrom ttt_solver import Oracle, NotEnoughMemoryError\n"
        "try:\n    Oracle.load(sys.argv[1], sys.argv[2], verify=True)\n"
        "except NotEnoughMemoryError as error:\n    print('NotEnoughMemoryError', error)\nelse:\n    print('loaded')\n"
    )
    seen = set()
    for megabytes in CAPS_MB:
        for db, variant in ((db_path, "3x3"), (db_4x4, "4x4")):
            done = subprocess.run(
                capped(megabytes, "-c", code, str(db), variant),
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
            assert done.returncode == 0 and done.stderr == "", (megabytes, variant, done.stderr[-800:])
            assert done.stdout.split()[0] in ("loaded", "NotEnoughMemoryError"), done.stdout
            seen.add(done.stdout.split()[0])
    assert seen == {"loaded", "NotEnoughMemoryError"}


def test_what_counts_as_running_out_of_memory():
    assert issubclass(NotEnoughMemoryError, TTTError) and issubclass(NotEnoughMemoryError, MemoryError)
    mapped = ImportError("libgfortran.so.5: failed to map segment from shared object")
    assert out_of_memory(mapped) and out_of_memory(MemoryError()) and out_of_memory(OSError(12, "ENOMEM"))
    assert not out_of_memory(ModuleNotFoundError("No module named 'uvicorn'", name="uvicorn"))
    assert not out_of_memory(ImportError("cannot import name 'x'")) and not out_of_memory(OSError(28, "full"))
    assert out_of_memory(SystemError("error return without exception set"))  # a C extension's failed allocation
    assert not out_of_memory(SystemError("bad argument to internal function"))
    try:
        try:
            raise MemoryError
        except MemoryError as error:
            raise ImportError("numpy could not be imported") from error
    except ImportError as chained:
        assert out_of_memory(chained)
    try:
        try:
            raise MemoryError
        except MemoryError:
            raise ValueError("unrelated") from None
    except ValueError as suppressed:
        assert not out_of_memory(suppressed)


def test_a_thread_count_in_other_digits_is_no_count(db_path, tmp_path):
    """OPENBLAS_NUM_THREADS=² (str.isdigit takes it, int() refuses it) counts as unset, as any
    other text does, for the room numpy needs: no traceback."""
    done = subprocess.run(
        [sys.executable, "-m", "ttt_solver.cli", "verify", "--quiet", "--db", str(db_path)],
        capture_output=True, text=True, check=False, cwd=tmp_path, env={**os.environ, "OPENBLAS_NUM_THREADS": "²"},
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, ""), done.stderr[-800:]
    assert done.stdout.endswith("the table is proved\n")
