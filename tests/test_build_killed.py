"""Builds killed at random moments over an existing database: the old file stays whole.

Each build runs as ``python build_db.py --force`` over a copy of a session database and gets
SIGKILL or SIGTERM at a moment drawn from a seeded generator: a delay after the process starts,
after a progress line of the solve or of the write, or after its temporary file appears (the
write and the rename). Afterwards the target is byte for byte the old file, or a whole new
database when the kill came after the rename; never anything else. SIGTERM stops a build as
Ctrl-C does (its temporary file removed, ``Aborted!``, exit status 143); SIGKILL cannot clean
up, so the next build removes what it left.
"""

from __future__ import annotations

import hashlib
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from ttt_solver import Oracle
from ttt_solver.build import build
from ttt_solver.cli import cli
from ttt_solver.game.variant import Variant

ROOT = Path(__file__).resolve().parent.parent
BUILDING = ".building"

# (what to wait for, longest delay after it): the moments of a kill
START, LINE, FILE = "start", "line", "file"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(BUILDING))


def kill_build(
    target: Path, variant: str, sig: signal.Signals, anchor: tuple[str, str, float]
) -> tuple[int, str, set[str]]:
    """Start a forced build of ``variant`` over ``target``, wait for ``anchor`` (kind, progress
    text, delay), send ``sig``; the exit status, stderr, and the temporary files left before it
    by killed builds. Only a build killed after a progress line shows its progress."""
    kind, text, delay = anchor
    left = set(temporaries(target.parent))  # by builds killed before
    quiet = ["--quiet"] if kind != LINE else []
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "build_db.py"), "--variant", variant, "--db", str(target), "--force", *quiet],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    seen = ""
    assert process.stderr is not None
    if kind == LINE:  # progress lines come one at a time, flushed: read up to the one wanted
        while text not in seen and process.poll() is None:
            seen += process.stderr.readline()
    elif kind == FILE:
        while set(temporaries(target.parent)) <= left and process.poll() is None:
            time.sleep(0.001)
    time.sleep(delay)
    process.send_signal(sig)
    try:
        rest = process.communicate(timeout=120)[1]
    finally:
        process.kill()
    return process.returncode, seen + rest, left


def check_after(target: Path, before: str, sig: signal.Signals, killed: tuple[int, str, set[str]], variant: str) -> str:
    """The target is the old file or a whole new one; a caught SIGTERM left no temporary file
    and, after the progress lines, one line. Returns the target's digest now."""
    status, stderr, left = killed
    assert "Traceback" not in stderr, stderr
    if sig == signal.SIGTERM:
        assert status in (143, -signal.SIGTERM, 0), stderr  # -15: killed before the handler was set
        assert set(temporaries(target.parent)) <= left  # its own is gone (it may not have reached the old ones)
        if status == 143:
            *progress, last = stderr.splitlines()
            assert last == "Aborted!", stderr
            assert all(line.startswith(f"{variant}: ") or line == "writing rows" for line in progress), stderr
    else:
        assert status in (-signal.SIGKILL, 0), stderr
    now = digest(target)
    if now != before:  # the kill came after the rename: the new database must be whole
        assert Oracle.load(target, variant).value("." * Variant.parse(variant).cells) == 0
    return now


def anchors(rng: random.Random, write_seconds: float) -> list[tuple[str, str, float]]:
    """Moments over the start, the solve, the write and the rename."""
    return [
        (START, "", rng.uniform(0.0, 0.4)),
        (LINE, "ply 5", rng.uniform(0.0, 0.02)),
        (LINE, "backed up", rng.uniform(0.0, 0.02)),
        (LINE, "writing", rng.uniform(0.0, write_seconds)),
        (FILE, "", rng.uniform(0.0, write_seconds)),
        (FILE, "", rng.uniform(0.0, write_seconds)),
    ]


def test_killing_a_3x3_build_at_random_moments_keeps_the_old_database(db_path, tmp_path):
    target = tmp_path / "ttt.sqlite"
    target.write_bytes(db_path.read_bytes())
    before = digest(target)
    rng = random.Random(20_260_523)
    for sig in (signal.SIGKILL, signal.SIGTERM):
        for anchor in anchors(rng, 0.08):
            before = check_after(target, before, sig, kill_build(target, "3x3", sig, anchor), "3x3")
    verified = CliRunner().invoke(cli, ["verify", "--db", str(target)])
    assert verified.exit_code == 0, verified.output
    done = subprocess.run(
        [sys.executable, str(ROOT / "build_db.py"), "--db", str(target), "--quiet"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["ttt.sqlite"]  # the next build removed the leftovers


def test_killing_a_4x4_build_keeps_the_old_database(db_4x4, solved, tmp_path):
    target = tmp_path / "4x4.sqlite"
    target.write_bytes(db_4x4.read_bytes())
    before = digest(target)
    rng = random.Random(44)
    for sig, anchor in [
        (signal.SIGTERM, (LINE, "ply 10", rng.uniform(0.0, 0.3))),  # the solve
        (signal.SIGKILL, (FILE, "", rng.uniform(0.0, 2.5))),  # the write
        (signal.SIGTERM, (FILE, "", rng.uniform(0.0, 2.5))),
    ]:
        before = check_after(target, before, sig, kill_build(target, "4x4", sig, anchor), "4x4")
    analyzed = CliRunner().invoke(cli, ["analyze", "--variant", "4x4", "--db", str(target), "X...O..........."])
    assert analyzed.exit_code == 0, analyzed.output
    build(target, Variant.parse("4x4"), tables=solved("4x4"))  # the next build (the solve is the session's)
    assert [p.name for p in tmp_path.iterdir()] == ["4x4.sqlite"]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_an_interrupt_just_after_the_temporary_file_is_made_removes_it(db_path, tmp_path, monkeypatch, signum):
    """The moment between the file's creation and the code that cleans up after an interrupt
    (a SIGTERM landed there in a run of the test above and left the file). SIGHUP (the
    terminal closed) stops a build the same way, exit 129."""
    from ttt_solver.cli import Terminated
    from ttt_solver.store import writer

    def interrupted(*_args: object, **_kwargs: object) -> bool:
        raise Terminated(signum)

    target = tmp_path / "ttt.sqlite"
    target.write_bytes(db_path.read_bytes())
    monkeypatch.setattr(writer, "_lock", interrupted)
    result = CliRunner().invoke(cli, ["build", "--db", str(target), "--quiet"])
    assert (result.exit_code, result.stderr) == (128 + signum, "Aborted!\n")
    assert [p.name for p in tmp_path.iterdir()] == ["ttt.sqlite"]
    assert target.read_bytes() == db_path.read_bytes()
