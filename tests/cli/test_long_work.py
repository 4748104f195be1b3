"""Long work says what it costs and what it leaves: a build and a verify say up front what their
plan says they take; a progress bar with its rate and time left is drawn on a terminal only
(never under ``--quiet``, never into a log); the stage lines have one form, ``VARIANT: what``;
a stopped build names the folder it kept, its size and the ways on."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.terminal import drawn_bars

from ttt_solver.builder import first_use, plan
from ttt_solver.builder.plan import make_plan, takes
from ttt_solver.cli import cli, database
from ttt_solver.game.variant import Variant
from ttt_solver.solver.solve import default_memory
from ttt_solver.store import paths
from ttt_solver.system.memory import size_text

ROOT = Path(__file__).resolve().parents[2]
TINY = "64K"  # a memory budget that sends even 3x3 through the scratch folder: solving, merging, writing


def build_through(stderr_is_a_terminal: bool, target: Path, *extra: str) -> str:
    """stderr of ``ttt-lookup build`` run as its own process, its stderr a pseudo-terminal or a pipe."""
    command = [sys.executable, "-m", "ttt_solver.cli", "build", "--db", str(target), *extra]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if not stderr_is_a_terminal:
        done = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env, check=False)
        assert done.returncode == 0, done.stderr
        return done.stderr
    return stderr_on_a_terminal(command, env)


def stderr_on_a_terminal(command: list[str], env: dict[str, str]) -> str:
    """stderr of ``command`` run as its own process, its stderr a pseudo-terminal."""
    main, terminal = pty.openpty()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=terminal, env=env)
    os.close(terminal)
    seen = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the terminal closed: the process is done
            break
        if not chunk:
            break
        seen += chunk
    os.close(main)
    assert process.wait(timeout=300) == 0, seen
    return seen.decode()


def test_on_a_terminal_a_bar_shows_the_rate_and_the_time_left_above_it_the_lines(tmp_path):
    seen = build_through(True, tmp_path / "t.sqlite", "--memory", TINY)
    drawn = seen.replace("\r\n", "\n").split("\r")  # each redraw of the bar starts with a carriage return
    bars = [found for part in drawn if (found := re.match(r"(3x3: (solving|merging|writing rows)) +\d+%\|.*", part))]
    assert {bar[1] for bar in bars} == {"3x3: solving", "3x3: merging", "3x3: writing rows"}
    assert any(re.search(r", [\d.]+k?/s, 00:\d\d left", bar[0]) for bar in bars), bars  # the rate, the time left
    assert "3x3: ply 0: 1 position\r\n" in seen and "3x3: merging the tiers into code order\r\n" in seen


def test_without_a_terminal_or_with_quiet_no_bar_is_drawn(tmp_path):
    logged = build_through(False, tmp_path / "t.sqlite", "--memory", TINY)
    assert "%|" not in logged and "\r" not in logged
    quiet = build_through(True, tmp_path / "q.sqlite", "--memory", TINY, "--quiet")
    assert quiet == ""


def test_the_progress_lines_have_one_form(tmp_path):
    """Every line a log reads is ``3x3: ...``, the merge too (no bare ``solving``, ``merging``)."""
    result = CliRunner().invoke(cli, ["build", "--db", str(tmp_path / "t.sqlite"), "--memory", TINY])
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    assert [line for line in lines if not line.startswith("3x3: ")] == []
    assert lines[-3:] == [
        "3x3: ply 0: 1 position",
        "3x3: merging the tiers into code order",
        f"3x3: writing 765 positions to {tmp_path / 't.sqlite'}",
    ]


def test_a_build_says_up_front_what_its_plan_says_it_takes(tmp_path, monkeypatch):
    target = tmp_path / "t.sqlite"
    quick = CliRunner().invoke(cli, ["build", "--db", str(target)])
    assert quick.exit_code == 0 and "takes" not in quick.stderr  # 3x3: well under a few seconds
    monkeypatch.setattr(plan, "LONG_SECONDS", 0.0)
    result = CliRunner().invoke(
        cli, ["build", "--db", str(tmp_path / "b.sqlite"), "--variant", "3x4k3", "--memory", "512MB"]
    )
    assert result.exit_code == 0, result.output
    found = make_plan(Variant.parse("3x4k3"), str(tmp_path))
    said = takes(found.cpu_seconds, found.disk_bytes, 512 << 20)
    assert result.stderr.splitlines()[0] == f"3x4k3: this build takes {said}; --plan says more"
    assert re.fullmatch(r"about \d+ s of CPU, [\d.]+(KB|MB) of disk and memory within its budget of 512MB", said)


def test_a_verify_says_up_front_what_it_takes(db_path, monkeypatch):
    monkeypatch.setattr(plan, "LONG_SECONDS", 0.0)
    result = CliRunner().invoke(cli, ["verify", "--db", str(db_path), "--memory", "1GB"])
    assert result.exit_code == 0, result.output
    # Every verify puts its rows in the files its proof's tasks read: 765 rows of 22 bytes.
    assert result.stderr.splitlines()[0] == (
        "3x3: verify takes about 0 s of CPU, 16.4KB of temporary disk (TMPDIR) and memory within its budget of 1GB"
    )


def test_a_build_on_first_use_says_what_it_takes(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "data_folder", lambda: str(tmp_path))
    monkeypatch.setattr(first_use, "LONG_SECONDS", 0.0)
    result = CliRunner(env={"TTT_DB": None}).invoke(cli, ["best", "......", "--variant", "2x3"])
    assert result.exit_code == 0, result.output
    found = make_plan(Variant.parse("2x3"), str(tmp_path))
    assert result.stderr == (
        f"ttt-lookup: building the 2x3 database at {tmp_path / '2x3.sqlite'} (first use:"
        f" {takes(found.cpu_seconds, found.disk_bytes, default_memory())})\n"
    )


def test_a_build_on_first_use_draws_builds_bar_on_a_terminal(tmp_path):
    # The lookup's process, its default database missing from its data folder (tmp_path).
    code = (
        f"import ttt_solver.store.paths as paths\npaths.data_folder = lambda: {str(tmp_path)!r}\n"
        "from ttt_solver.cli import main\nmain(['best', '.........'])"
    )
    seen = stderr_on_a_terminal([sys.executable, "-c", code], {**os.environ, "PYTHONPATH": str(ROOT)})
    lines = seen.replace("\r\n", "\n").split("\n")
    assert lines[0] == f"ttt-lookup: building the 3x3 database at {tmp_path / 'ttt.sqlite'} (first use; a moment)"
    bars = [found for part in seen.split("\r") if (found := re.match(r"(3x3: (solving|writing rows)) +\d+%\|.*", part))]
    assert {bar[1] for bar in bars} == {"3x3: solving", "3x3: writing rows"}
    assert all(re.search(r"\| \S+/\S+, \S+/s, \S+ left", bar[0]) for bar in bars), bars  # build's bar: rate, time left
    piped = subprocess.run(
        [sys.executable, "-c", code.replace(str(tmp_path), str(tmp_path / "piped"))],
        capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False,
    )  # fmt: skip
    assert piped.stderr.count("\n") == 1 and "%|" not in piped.stderr and "\r" not in piped.stderr


@pytest.mark.parametrize("quiet", [[], ["--quiet"]])
def test_a_stopped_build_says_what_it_kept_and_the_ways_on(tmp_path, monkeypatch, quiet):
    from ttt_solver.cli.terminated import Terminated
    from ttt_solver.store import writer

    def stopped(*_args: object, **_kwargs: object) -> None:
        raise Terminated(15)

    monkeypatch.setattr(writer.FileWriter, "positions", stopped)
    target = tmp_path / "t.sqlite"
    result = CliRunner().invoke(cli, ["build", "--db", str(target), "--memory", TINY, *quiet])
    folder = tmp_path / ".t.sqlite.solving"
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    assert result.exit_code == 143
    assert result.stderr.endswith(
        f"3x3: stopped; the work done so far is kept in {folder} ({size_text(size)}):\n"
        "  run the same command again to resume from it, or add --force to start over;\n"
        f"  to remove it: rm -r {folder}\n"
        "Aborted!\n"
    )


def test_a_stopped_build_in_the_data_folder_names_the_cache_command(tmp_path, monkeypatch):
    from ttt_solver.cli.terminated import Terminated
    from ttt_solver.store import writer

    def stopped(*_args: object, **_kwargs: object) -> None:
        raise Terminated(15)

    monkeypatch.setattr(paths, "data_folder", lambda: str(tmp_path))
    monkeypatch.setattr(writer.FileWriter, "positions", stopped)
    result = CliRunner().invoke(cli, ["build", "--variant", "3x4k3", "--quiet"])
    assert result.exit_code == 143
    folder = tmp_path / ".3x4k3.sqlite.solving"
    assert f"  to remove it: ttt-lookup cache --remove-stopped, or rm -r {folder}\n" in result.stderr
    listed = CliRunner().invoke(cli, ["cache"])
    assert f"  3x4k3  {folder}  " in listed.stdout


def test_a_build_that_will_resume_says_what_proving_the_resumed_database_takes(tmp_path, monkeypatch):
    from ttt_solver.cli.terminated import Terminated
    from ttt_solver.store import writer

    def stopped(*_args: object, **_kwargs: object) -> None:
        raise Terminated(15)

    target = tmp_path / "t.sqlite"
    with monkeypatch.context() as stopping:
        stopping.setattr(writer.FileWriter, "positions", stopped)
        assert CliRunner().invoke(cli, ["build", "--db", str(target), "--memory", TINY]).exit_code == 143
    monkeypatch.setattr(plan, "LONG_SECONDS", 0.0)
    monkeypatch.setattr(database, "bars", drawn_bars)  # as on a terminal: the proof has its bar too
    result = CliRunner().invoke(cli, ["build", "--db", str(target), "--memory", TINY])
    assert result.exit_code == 0, result.output
    assert re.search(r"\r3x3: proving +\d+%\|", result.stderr)
    assert result.stderr.splitlines()[0].endswith(
        ", and about 0 s more to prove the resumed database whole; --plan says more"
    )
    assert "3x3: proved the resumed database whole in " in result.stderr
