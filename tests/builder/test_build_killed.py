"""Builds killed at random moments over an existing database: the old file stays whole, and
the next run resumes from what the killed one finished.

Each build runs as ``python build_db.py`` (without ``--force``, which starts over) over a copy
of a session database, with a tiny memory budget (many chunks, every tier in the scratch
folder), and gets SIGKILL or SIGTERM at a moment drawn from a seeded generator: a delay after the process starts, after a
progress line of the solve or of the write, or after its database file appears in the scratch
folder. Afterwards the target is byte for byte the old file, or a whole new database when the
kill came after the rename; never anything else. SIGTERM stops a build as Ctrl-C does
(``Aborted!``, exit status 143); either way the scratch folder stays for the next run, which
says it resumes, finishes with the same content as a build never stopped, and removes it.
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
from ttt_solver.cli import cli

ROOT = Path(__file__).resolve().parents[2]
TINY = "64K"  # the memory budget: chunks of a few hundred boards

# (what to wait for, longest delay after it): the moments of a kill
START, LINE, FILE = "start", "line", "file"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def scratch_of(target: Path) -> Path:
    return target.parent / f".{target.name}.solving"


def run_build(target: Path, variant: str, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(ROOT / "build_db.py"), "--variant", variant, "--db", str(target),
         "--memory", TINY, *extra],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def kill_build(target: Path, variant: str, sig: signal.Signals, anchor: tuple[str, str, float]) -> tuple[int, str]:
    """Start a build of ``variant`` over ``target``, wait for ``anchor`` (kind, progress
    text, delay), send ``sig``; the exit status and stderr."""
    kind, text, delay = anchor
    process = run_build(target, variant, *(["--quiet"] if kind != LINE else []))
    seen = ""
    assert process.stderr is not None
    if kind == LINE:  # progress lines come one at a time, flushed: read up to the one wanted
        while text not in seen and process.poll() is None:
            seen += process.stderr.readline()
    elif kind == FILE:
        while not (scratch_of(target) / "database.sqlite").exists() and process.poll() is None:
            time.sleep(0.001)
    time.sleep(delay)
    process.send_signal(sig)
    try:
        rest = process.communicate(timeout=120)[1]
    finally:
        process.kill()
    return process.returncode, seen + rest


def check_after(target: Path, before: str, sig: signal.Signals, killed: tuple[int, str], variant: str) -> str:
    """The target is the old file or a whole new one; a caught SIGTERM printed, after the
    progress lines, one line. Returns the target's digest now."""
    status, stderr = killed
    assert "Traceback" not in stderr, stderr
    if sig == signal.SIGTERM:
        assert status in (143, -signal.SIGTERM, 0), stderr  # -15: killed before the handler was set
        if status == 143:
            assert stderr.splitlines()[-1] == "Aborted!", stderr
    else:
        assert status in (-signal.SIGKILL, 0), stderr
    assert sorted(p.name for p in target.parent.iterdir()) in (
        [target.name], [scratch_of(target).name, target.name]
    )  # fmt: skip
    now = digest(target)
    if now != before:  # the kill came after the rename: the new database must be whole
        Oracle.load(target, variant, verify=True).close()
    return now


def anchors(rng: random.Random) -> list[tuple[str, str, float]]:
    """Moments over the start, the solve, the merge, the write and the rename."""
    return [
        (START, "", rng.uniform(0.0, 0.6)),
        (LINE, "ply 8", rng.uniform(0.0, 0.05)),
        (LINE, "ply 4", rng.uniform(0.0, 0.05)),
        (LINE, "ply 1", rng.uniform(0.0, 0.05)),
        (LINE, "writing", rng.uniform(0.0, 0.05)),
        (FILE, "", rng.uniform(0.0, 0.2)),
        (FILE, "", rng.uniform(0.0, 0.5)),
    ]


@pytest.mark.long
def test_killing_a_build_at_random_moments_keeps_the_old_database_and_the_next_run_resumes(variant_db, tmp_path):
    name = "3x3"  # with the tiny budget: 3 to 6 chunks a tier
    target = tmp_path / f"{name}.sqlite"
    target.write_bytes(variant_db(name).read_bytes())
    clean = Oracle.load(variant_db(name), name).meta["digest"]
    before = digest(target)
    rng = random.Random(20_261_125)
    for sig in (signal.SIGKILL, signal.SIGTERM):
        # Every moment for SIGKILL; for SIGTERM (also caught by the test below) every other one.
        for anchor in anchors(rng)[:: 1 if sig == signal.SIGKILL else 2]:
            before = check_after(target, before, sig, kill_build(target, name, sig, anchor), name)
    resumed = (scratch_of(target) / "manifest.json").exists()
    process = run_build(target, name)
    stderr = process.communicate(timeout=300)[1]
    assert process.returncode == 0, stderr
    assert not resumed or "resuming" in stderr or "ply" not in stderr
    assert [p.name for p in tmp_path.iterdir()] == [target.name]  # the finished build removed its folder
    assert Oracle.load(target, name).meta["digest"] == clean  # the same content as a build never stopped
    verified = CliRunner().invoke(cli, ["verify", "--variant", name, "--db", str(target)])
    assert verified.exit_code == 0, verified.output


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_an_interrupt_keeps_the_old_database_and_the_scratch_folder(db_path, tmp_path, monkeypatch, signum):
    """SIGTERM and SIGHUP (the terminal closed) stop a build as Ctrl-C does: ``Aborted!``, exit
    128 + the signal, the old database as it was, the finished tiers kept for the next run."""
    from ttt_solver.cli.terminated import Terminated
    from ttt_solver.store import writer

    def interrupted(*_args: object, **_kwargs: object) -> None:
        raise Terminated(signum)

    target = tmp_path / "ttt.sqlite"
    target.write_bytes(db_path.read_bytes())
    monkeypatch.setattr(writer.FileWriter, "positions", interrupted)
    result = CliRunner().invoke(cli, ["build", "--db", str(target), "--quiet", "--memory", TINY])
    assert result.exit_code == 128 + signum
    assert result.stderr.startswith("3x3: stopped; the work done so far is kept in ") and result.stderr.endswith(
        "Aborted!\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == [".ttt.sqlite.solving", "ttt.sqlite"]
    assert target.read_bytes() == db_path.read_bytes()
    assert sorted(p.name for p in (tmp_path / ".ttt.sqlite.solving").iterdir()) == [
        "database.sqlite", "lock", "manifest.json", "merged", *(f"tier-{p:02d}" for p in range(10))
    ]  # fmt: skip
