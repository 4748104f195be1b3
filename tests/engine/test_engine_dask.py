"""The distributed build on Dask: small variants built on a local cluster of 2 workers have the
rows and the digest of the single-process build, and a build killed after some tiers resumes
from them (one cluster for the module, ``dask_client`` of conftest: starting one takes seconds)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner
from support import brute_force, write_spy
from support import extra_markers as extras
from support.broken_reads import broken_reads
from support.killing import Stop, killed_when, stop_at

from ttt_solver.builder import disk
from ttt_solver.builder.build import build
from ttt_solver.builder.plan import make_plan
from ttt_solver.cli import cli
from ttt_solver.engine.engines import InProcess
from ttt_solver.engine.scratch import open_scratch
from ttt_solver.engine.solving import solve_tiers
from ttt_solver.errors import BuildError, EngineError
from ttt_solver.game.variant import Variant
from ttt_solver.system import cost_model
from ttt_solver.system.files import locked

extras.need("dask", "dask.distributed")  # the module is skipped without the extra
import dask  # after the skip without the extra
import psutil  # a dependency of dask.distributed

from ttt_solver.engine.engine_dask import DaskEngine  # after the skip without the extra

pytestmark = pytest.mark.dask
SMALL = "1M"  # a worker's memory budget: chunks of about 6,000 boards, up to 5 tasks a tier of 3x4k3


def rows(path: Path) -> list[tuple[int, int]]:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT code, data FROM positions ORDER BY code").fetchall()


def digest(path: Path) -> str:
    with sqlite3.connect(path) as db:
        return str(db.execute("SELECT value FROM meta WHERE key = 'digest'").fetchone()[0])


def quiet_settings() -> tuple[object, object]:
    return dask.config.get("distributed.worker.profile.enabled"), dask.config.get(
        "distributed.worker.memory.monitor-interval"
    )


def test_the_test_clusters_run_without_the_diagnostics_no_test_reads(dask_client):
    """conftest's QUIET_DASK reaches this process (its nannies) and the workers: set in the
    environment before Dask is imported, no profiler samples every 10 ms, no memory check every
    100 ms (an idle cluster of the suite costs a quarter of the CPU)."""
    assert quiet_settings() == (False, "1s")
    assert set(dask_client.run(quiet_settings).values()) == {(False, "1s")}


@pytest.mark.parametrize("name", ["3x3", "3x4k3"])
def test_a_build_on_two_workers_has_the_rows_of_the_single_process_build(dask_client, variant_db, tmp_path, name):
    target = tmp_path / f"{name}.sqlite"
    with DaskEngine(client=dask_client) as engine:
        report = build(target, Variant.parse(name), memory=1 << 20, engine=engine)
    single = variant_db(name)
    assert rows(target) == rows(single)
    assert report.digest == digest(target) == digest(single)
    assert not (tmp_path / f".{name}.sqlite.solving").exists()  # the scratch folder is removed


def test_the_command_line_builds_on_a_running_cluster(dask_client, variant_db, tmp_path):
    target = tmp_path / "3x3.sqlite"
    result = CliRunner().invoke(
        cli, ["build", "--db", str(target), "--memory", "64K", "--engine", "dask", "--address", dask_client.scheduler.address],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "3x3: ply 5: 174 positions" in result.stderr  # 64K: chunks of 393 boards, 4 in the widest tier
    assert "(3x3): 5,478 positions in 765 canonical rows" in result.stdout
    assert rows(target) == rows(variant_db("3x3")) and digest(target) == digest(variant_db("3x3"))


def test_a_build_on_dask_says_so_and_its_report_names_the_engine_and_the_workers(dask_client, tmp_path):
    address = dask_client.scheduler.address
    command = ["build", "--db", str(tmp_path / "3x3.sqlite"), "--engine", "dask", "--address", address]
    result = CliRunner().invoke(cli, [*command, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    dashboard = report["dashboard"]
    assert (report["engine"], report["workers"], report["threads"]) == ("dask", 2, 2)
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/status", dashboard)
    assert result.stderr.splitlines()[0] == f"3x3: on Dask, 2 workers, 2 threads; dashboard {dashboard}"
    alone = CliRunner().invoke(cli, ["build", "--db", str(tmp_path / "alone.sqlite"), "--json"])
    assert {key: json.loads(alone.stdout)[key] for key in ("engine", "workers", "threads", "dashboard")} == {
        "engine": None, "workers": 1, "threads": 1, "dashboard": None
    }  # fmt: skip
    assert "Dask" not in alone.stderr


def test_a_killed_build_resumes_from_its_recorded_tiers(dask_client, variant_db, tmp_path):
    target = tmp_path / "3x4k3.sqlite"
    scratch = tmp_path / ".3x4k3.sqlite.solving"
    command = [sys.executable, "-m", "ttt_solver", "build", "--variant", "3x4k3", "--db", str(target), "--memory",
               SMALL, "--engine", "dask", "--address", dask_client.scheduler.address]  # fmt: skip
    status = killed_when(command, lambda: (scratch / "tier-09").is_dir())  # tiers 12 to 9 recorded
    assert status == -signal.SIGKILL and not target.exists()
    result = CliRunner().invoke(cli, command[3:])
    assert result.exit_code == 0, result.output
    resumed = re.search(r"3x4k3: resuming from .*: plies 12 to (\d+) solved", result.output)
    assert resumed and int(resumed[1]) <= 9, result.output  # killed once tier 9 was recorded
    assert "3x4k3: ply 0: 1 position" in result.output  # and the rest solved by this run
    assert digest(target) == digest(variant_db("3x4k3"))
    assert rows(target) == rows(variant_db("3x4k3"))


def test_a_damaged_result_file_is_made_again_from_its_tier(dask_client, variant_db, tmp_path):
    target, variant = tmp_path / "3x4k3.sqlite", Variant.parse("3x4k3")

    with DaskEngine(client=dask_client) as engine, pytest.raises(Stop):
        build(target, variant, memory=1 << 20, engine=engine, progress=stop_at("3x4k3: ply 9:"))
    results = tmp_path / ".3x4k3.sqlite.solving" / "tier-09" / "results.bin"
    damaged = bytearray(results.read_bytes())
    damaged[len(damaged) // 2] ^= 0xFF
    results.write_bytes(bytes(damaged))
    lines: list[str] = []
    with DaskEngine(client=dask_client) as engine:
        report = build(target, variant, memory=1 << 20, engine=engine, progress=lines.append)
    assert any("tier-09/results.bin" in line and "made again from the tier's rows" in line for line in lines), lines
    assert report.digest == digest(variant_db("3x4k3"))


def test_every_file_of_the_scratch_folder_has_one_writer_and_what_a_resume_reuses_is_synced(
    dask_client, variant_db, tmp_path
):
    """On a file system shared by several machines, two writers of one file (even of disjoint
    bytes: each client writes back whole pages) can undo each other's writes. So every file is
    written by one process or task, and read once its writer closed it (an NFS client sends the
    writes to the server on close). Only what a resumed build reuses needs to be on the disk."""
    target = tmp_path / "3x4k3.sqlite"
    with write_spy.spying(dask_client, str(tmp_path)) as writes, DaskEngine(client=dask_client) as engine:
        report = build(target, Variant.parse("3x4k3"), memory=1 << 20, engine=engine)
    assert writes.shared() == {}
    # What the tasks write is passed on (their run's folder in tier-PP.part/), never kept; what a
    # resumed build reuses (the tiers' files, their result bytes, the merged rows) is synced.
    assert all(re.search(r"/tier-\d\d\.part/run-[0-9a-f]+/", path) for path, _task in writes.by_tasks())
    kept = {(path, writer) for path, _mode, writer in writes.opened if writer == "driver" and path.endswith(".bin")}
    assert len(kept) > 13 * 9 and kept <= writes.synced, sorted(kept - writes.synced)[:3]
    assert len({task for _path, task in writes.by_tasks()}) > 30  # 3x4k3 at 1M: 2 to 5 chunks a tier, and the ranges
    assert report.digest == digest(variant_db("3x4k3"))


def test_without_an_address_a_local_cluster_starts_and_stops_with_the_command(db_path, tmp_path):
    """The command in a session of its own: once it exits, no process of that session (its
    cluster's nannies and workers) is left. Counted by session, not as this process's new
    children, which another thread of a test process (a browser, a cluster's restarted worker)
    may start meanwhile."""
    target = tmp_path / "3x3.sqlite"
    command = [sys.executable, "-m", "ttt_solver", "build", "--db", str(target), "--engine", "dask", "--workers", "1"]
    started = subprocess.Popen([*command, "--quiet"], start_new_session=True, stderr=subprocess.PIPE, text=True)
    _out, err = started.communicate(timeout=300)
    assert started.returncode == 0, err
    assert digest(target) == digest(db_path)
    left = [p for p in psutil.process_iter(["status"]) if _session(p.pid) == started.pid]
    assert [p for p in left if p.info["status"] != psutil.STATUS_ZOMBIE] == []


def _session(pid: int) -> int | None:
    """The session of process ``pid`` (None: gone)."""
    try:
        return os.getsid(pid)
    except OSError:
        return None


def test_a_workers_budget_is_its_chunk_not_the_tiers(dask_client, tmp_path, monkeypatch):
    """A worker maps the tiers' result bytes: 5x5k4's 52 GB of two widest tiers is no budget it
    must hold. The build then stops at its disk (about 1 TB; 1 GB free here), before any tier."""
    monkeypatch.setattr(disk.shutil, "disk_usage", lambda _path: SimpleNamespace(free=1 << 30))
    with (
        DaskEngine(client=dask_client) as engine,
        pytest.raises(BuildError, match="not enough disk space to build 5x5k4"),
    ):
        build(tmp_path / "5x5k4.sqlite", Variant.parse("5x5k4"), memory=1 << 30, engine=engine)


def test_the_last_tiers_alone_on_two_workers_match_a_brute_force_search(dask_client, tmp_path):
    """What benchmarks/solve_last_tiers.py runs for 5x5k4, on 3x5k4: its three last tiers, and no other."""
    folder, variant = str(tmp_path / "scratch"), Variant.parse("3x5k4")
    with locked(folder), DaskEngine(client=dask_client) as engine:
        solve_tiers(engine, open_scratch(folder, variant, {"last_tiers": 3}), 1 << 20, lowest=13)
    checked = brute_force.check_tiers(folder, 1_000)
    assert checked.plies == (13, 14, 15) and checked.sampled == 1_000 < checked.rows
    assert checked.wrong == []


def test_a_scheduler_that_cannot_be_reached_is_one_line_and_writes_nothing(tmp_path, monkeypatch):
    from ttt_solver.engine import engine_dask

    monkeypatch.setattr(engine_dask, "CONNECT_SECONDS", 1)
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    target = tmp_path / "t.sqlite"
    result = CliRunner().invoke(
        cli, ["build", "--variant", "3x3", "--db", str(target), "--engine", "dask", "--address", f"127.0.0.1:{port}"]
    )
    assert (result.exit_code, result.stdout) == (1, ""), result.output
    assert result.stderr.startswith(f"Error: cannot reach the Dask scheduler at '127.0.0.1:{port}'")
    assert result.stderr.count("\n") == 1 and "leave out --address" in result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", ["build", "verify"])
def test_a_worker_that_cannot_read_the_storage_is_one_line_naming_it(dask_client, variant_db, tmp_path, command):
    """Workers that do not reach the storage (as one that joins after it was checked, on a
    machine that does not mount the shared folder): their tasks' FileNotFoundError came back as
    the driver's own, 'cannot build database at X: No such file or directory' from a build and
    'cannot write the output: No such file or directory' from verify."""
    target = tmp_path / "3x3.sqlite" if command == "build" else variant_db("3x3")
    args = [command, "--variant", "3x3", "--db", str(target), "--engine", "dask",
            "--address", dask_client.scheduler.address]  # fmt: skip
    with broken_reads(dask_client):
        result = CliRunner().invoke(cli, args)
    assert (result.exit_code, result.stdout) == (1, ""), result.output
    said = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(said) == 1 and said[0] == result.stderr.splitlines()[-1], result.stderr
    worker = (
        r"Error: a task on the Dask worker at tcp://127\.0\.0\.1:\d+ cannot use '/[^']+': No such file or directory"
    )
    assert re.match(worker, said[0]), said[0]
    if command == "build":
        assert said[0].endswith(
            "is kept for a resume: put that right and run the same command again, or delete the folder"
        )
        again = CliRunner().invoke(cli, args)  # put right, the same command builds from what was kept
        assert again.exit_code == 0, again.output
        assert rows(target) == rows(variant_db("3x3")) and digest(target) == digest(variant_db("3x3"))


def test_a_tasks_os_error_without_a_file_names_the_worker_and_the_error(dask_client):
    with DaskEngine(client=dask_client) as engine, pytest.raises(EngineError) as raised:
        engine.run(os.close, [(-1,)], "close")  # a bad file descriptor: an OSError naming no file
    said = r"a task on the Dask worker at tcp://127\.0\.0\.1:\d+ failed: OSError: \[Errno 9\] Bad file descriptor"
    assert re.fullmatch(said, str(raised.value)), raised.value


def test_the_cost_said_up_front_counts_every_process_that_solves(dask_client, tmp_path):
    variant = Variant.parse("4x4")
    plan = make_plan(variant, str(tmp_path))
    with DaskEngine(client=dask_client) as engine:
        assert engine.processes == 3  # the driver and its two workers each build the tier tables
    assert InProcess().processes == 1
    assert plan.cpu_seconds == plan.cpu_on(1)
    assert plan.cpu_on(3) - plan.cpu_on(1) == pytest.approx(2 * cost_model.process_seconds(variant))
