"""The Dask engine at its edges: a wrong ``--address`` or ``--storage`` is one line, soon; a
worker lost while the local cluster starts is started again; a scheduler lost is one line or
nothing; no traceback on the terminal (the subprocess tests read the command's whole stderr,
its workers' logs included); tier folders swapped in a distributed build are solved again.

Each server here listens on loopback (it stands for the dashboard at 8787, a server of another
protocol, or one that accepts and says nothing): none is a Dask scheduler."""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest
from click.testing import CliRunner
from support import extra_markers as extras
from support.killing import Stop, stop_at

from ttt_solver.builder.build import build
from ttt_solver.cli import cli
from ttt_solver.errors import EngineError
from ttt_solver.game.variant import Variant

extras.need("dask", "dask.distributed")  # the module is skipped without the extra

import dask  # after the skip without the extra

from ttt_solver.engine import scheduler_probe
from ttt_solver.engine.cluster_faults import STARTS
from ttt_solver.engine.engine_dask import SPAWNED, DaskEngine

pytestmark = pytest.mark.dask
HINT = "start one with 'dask scheduler' (its usual port is 8786)"


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *_args: object) -> None:  # not on the command's stderr
        pass


@contextmanager
def http_server() -> Iterator[int]:
    """An HTTP server on loopback (as a scheduler's dashboard); its port."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), QuietHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def tcp_server(greeting: bytes) -> Iterator[int]:
    """A TCP server on loopback that sends ``greeting`` to each connection, then nothing; its port."""
    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                connection, _peer = listener.accept()
            except OSError:  # closed
                return
            connection.sendall(greeting)
            held.append(connection)

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield listener.getsockname()[1]
    finally:
        listener.close()
        for connection in held:
            connection.close()


def digest(path) -> str:
    with sqlite3.connect(path) as db:
        return str(db.execute("SELECT value FROM meta WHERE key = 'digest'").fetchone()[0])


def build_at(address: str, tmp_path) -> tuple[object, float]:
    started = time.monotonic()
    result = CliRunner().invoke(
        cli, ["build", "--variant", "3x3", "--db", str(tmp_path / "t.sqlite"), "--engine", "dask", "--address", address]
    )
    return result, time.monotonic() - started


def one_error_line(result) -> str:
    assert (result.exit_code, result.stdout) == (1, ""), result.output
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("Error: "), result.stderr
    return str(result.stderr.rstrip("\n"))


def test_an_http_server_at_the_address_is_refused_naming_it_within_seconds(tmp_path):
    """Before: the dashboard's port (8787 for the scheduler's 8786) kept the build waiting for ever."""
    with http_server() as port:
        result, took = build_at(f"127.0.0.1:{port}", tmp_path)
    said = one_error_line(result)
    assert said.startswith(
        f"Error: an HTTP server (HTTP/1.0 200 OK) answers at '127.0.0.1:{port}', not a Dask scheduler"
    )
    assert HINT in said
    assert took < scheduler_probe.WITHIN + 2 <= 10
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("greeting", "named"),
    [
        (b"", "a server that accepts connections and says nothing answers"),
        (b"SSH-2.0-OpenSSH_9.6\r\n", "a server that greets with 'SSH-2.0-OpenSSH_9.6' answers"),
        (b"\xff" * 64, "a server that greets with 'bytes ff ff ff ff ff ff ff ff' answers"),
    ],
)
def test_a_server_of_another_kind_is_refused_naming_it_never_as_memory(tmp_path, greeting, named):
    """Before: silence kept the build waiting for ever, and bytes read as Dask's frames of any
    length came out as 'not enough memory to run ttt-lookup build'."""
    with tcp_server(greeting) as port:
        result, took = build_at(f"tcp://127.0.0.1:{port}", tmp_path)
    said = one_error_line(result)
    assert said.startswith(f"Error: {named} at 'tcp://127.0.0.1:{port}', not a Dask scheduler;"), said
    assert took < scheduler_probe.WITHIN + 2 <= 10


def test_a_port_where_nothing_listens_is_refused_at_once(tmp_path):
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result, took = build_at(f"127.0.0.1:{port}", tmp_path)
    said = one_error_line(result)
    assert said.startswith(f"Error: cannot reach the Dask scheduler at '127.0.0.1:{port}' (Connection refused); ")
    assert took < 5


@pytest.mark.parametrize("scheme", ["tls", "ucx", "ws", "inproc"])
@pytest.mark.parametrize("command", ["build", "verify"])
def test_a_scheme_the_engine_cannot_use_is_refused_by_the_option_check(db_path, command, scheme):
    """Before: tls:// and ucx:// passed the check, then a TypeError traceback."""
    address = f"{scheme}://127.0.0.1:8786"
    result = CliRunner().invoke(cli, [command, "--db", str(db_path), "--engine", "dask", "--address", address])
    assert (result.exit_code, result.stdout) == (2, ""), result.output
    assert result.stderr == (
        f"Error: invalid --address '{address}': the engine connects to a scheduler over tcp:// only"
        f" (tcp://HOST:PORT or HOST:PORT), not {scheme}://\n"
    )


def test_a_storage_that_lives_in_one_process_is_refused_by_the_option_check(tmp_path):
    """Before: memory:// passed the check, then the build failed naming a bare path."""
    result = CliRunner().invoke(
        cli,
        ["build", "--db", str(tmp_path / "t.sqlite"), "--engine", "dask", "--workers", "1", "--storage", "memory://x"],
    )
    assert (result.exit_code, result.stdout) == (2, ""), result.output
    assert result.stderr.startswith(
        "Error: invalid --storage 'memory://x': a memory:// file system lives inside one process, so the workers"
        " cannot share it: give a folder every worker reaches"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"address": "tls://127.0.0.1:8786"}, "cannot use the Dask scheduler at 'tls://127.0.0.1:8786': the engine"),
        ({"storage": "memory://x"}, "cannot use the storage at 'memory://x': a memory:// file system lives"),
    ],
)
def test_the_library_refuses_them_too_before_any_cluster_starts(options, said):
    with pytest.raises(EngineError, match=f"^{said}"), DaskEngine(workers=1, **options):
        pass


DIES = '''"""A Dask worker preload: a worker dies as it starts (os._exit) while {marker} holds fewer than {deaths} lines."""
import os
with open({marker!r}, "a+") as file:
    file.seek(0)
    died = len(file.readlines())
    if died < {deaths}:
        file.write("died\\n")
        file.flush()
        os._exit(1)
'''


@contextmanager
def dying_workers(tmp_path, deaths: int) -> Iterator[object]:
    """The next ``deaths`` worker processes die as they start (a Dask preload); the file that counts them."""
    marker, preload = tmp_path / "deaths", tmp_path / "die.py"
    preload.write_text(DIES.format(marker=str(marker), deaths=deaths))
    with dask.config.set({"distributed.worker.preload": [str(preload)]}):
        yield marker


def test_a_worker_that_dies_while_the_local_cluster_starts_is_started_again(db_path, tmp_path):
    """Before: 'RuntimeError: Nanny failed to start.' and its traceback."""
    target = tmp_path / "t.sqlite"
    with dying_workers(tmp_path, 1) as marker:
        result = CliRunner().invoke(
            cli, ["build", "--db", str(target), "--engine", "dask", "--workers", "1", "--quiet"]
        )
    assert (result.exit_code, result.stderr) == (0, ""), result.output
    assert marker.read_text() == "died\n"
    assert digest(target) == digest(db_path)


def test_a_local_cluster_that_never_starts_is_one_line_on_the_terminal(tmp_path):
    """The whole terminal of the command (its worker processes' logs included): one line.
    Before: 'RuntimeError: Nanny failed to start.' with two tracebacks."""
    with dying_workers(tmp_path, STARTS) as marker:
        environment = {
            **os.environ,
            "DASK_DISTRIBUTED__WORKER__PRELOAD": json.dumps(dask.config.get("distributed.worker.preload")),
        }
    command = [sys.executable, "-m", "ttt_solver", "build", "--db", str(tmp_path / "t.sqlite"), "--engine", "dask",
               "--workers", "1", "--quiet"]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=120, check=False)
    assert marker.read_text() == "died\n" * STARTS
    assert (result.returncode, result.stdout) == (1, ""), result.stderr
    assert result.stderr == (
        f"Error: the local Dask cluster of 1 worker process did not start, {STARTS} tries (Nanny failed to start.:"
        " a worker process died while starting): check this machine's free memory and processes, then run the same"
        " command again (a stopped build resumes from its scratch folder)\n"
    )
    assert sorted(path.name for path in tmp_path.iterdir()) == ["deaths", "die.py"]


FAILING_TASK = """
import os
from ttt_solver.engine.engine_dask import DaskEngine

if __name__ == "__main__":
    try:
        with DaskEngine(workers=1) as engine:
            engine.run(os.close, [(-1,)], "close")
    except Exception as error:
        print(type(error).__name__)
"""


def test_a_failed_task_of_a_local_cluster_prints_nothing_but_what_the_driver_says():
    """Before: the worker process logged 'Compute Failed' with the task's traceback on the
    command's terminal, besides the driver's one line."""
    result = subprocess.run(
        [sys.executable, "-c", FAILING_TASK], capture_output=True, text=True, timeout=120, check=False
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, "EngineError\n", "")


def test_a_storage_folder_that_is_a_file_is_named(tmp_path, monkeypatch):
    """Before: 'cannot use the storage at ...: FileExistsError: [Errno 17] File exists: ...'."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").touch()
    result = CliRunner().invoke(
        cli, ["build", "--db", "t.sqlite", "--engine", "dask", "--workers", "1", "--storage", "afile/sub"]
    )
    assert one_error_line(result) == (
        "Error: cannot use the storage at 'afile/sub': 'afile' is a file, where a folder is needed for"
        " 'afile/sub': move it away or choose another path"
    )


@pytest.mark.parametrize("command", ["build", "verify"])
def test_a_storage_server_out_of_reach_is_one_line_before_any_cluster_starts(db_path, tmp_path, command):
    """Before: 'cannot write the output: Connection refused' (the command line's words for its own output)."""
    target = tmp_path / "t.sqlite" if command == "build" else db_path
    started = time.monotonic()
    result = CliRunner().invoke(
        cli, [command, "--db", str(target), "--engine", "dask", "--workers", "1", "--storage", "ftp://127.0.0.1:1/x"]
    )
    assert one_error_line(result) == "Error: cannot reach the storage at 'ftp://127.0.0.1:1/x': Connection refused"
    assert time.monotonic() - started < 3  # no cluster started


SCHEDULER_LOST = """
import socket, subprocess, sys, time
from ttt_solver.errors import EngineError
from ttt_solver.engine.engine_dask import DaskEngine

if __name__ == "__main__":
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    scheduler = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", str(port),
         "--no-dashboard"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        with DaskEngine(address=f"127.0.0.1:{port}") as engine:
            if sys.argv[1] == "waiting":  # no workers: the task waits, until the scheduler goes
                time.sleep(0.5)
                scheduler.kill()
                try:
                    engine.run(time.sleep, [(1,)], "sleep")
                except EngineError as error:
                    print(error)
            else:  # the work done: the scheduler goes as the engine closes
                scheduler.kill()
                time.sleep(1)
        print("closed")
    finally:
        scheduler.kill()
"""


@pytest.mark.dask
def test_a_scheduler_is_found_from_a_thread_whose_event_loop_runs(dask_client):
    """Before: asyncio.run refused to start inside a running loop (a notebook's), and the probe
    said "a server that greets with 'bytes 3a 00 ...' answers ..., not a Dask scheduler" at a
    scheduler's address (once in CI, where a test left a loop running)."""
    address = dask_client.scheduler.address

    async def inside() -> None:
        scheduler_probe.check_scheduler(address)

    asyncio.run(inside())  # no EngineError
    assert scheduler_probe.handshakes(address)


@pytest.mark.parametrize("when", ["waiting", "done"])
def test_a_scheduler_lost_is_one_line_or_nothing_never_a_traceback(when):
    """Before: the client logged 'CommClosedError' with tracebacks each time it failed to reach
    the scheduler again, exit 0 where the work was done; tasks it waited for were a
    'FutureCancelledError' traceback."""
    result = subprocess.run(
        [sys.executable, "-c", SCHEDULER_LOST, when], capture_output=True, text=True, timeout=120, check=False
    )
    assert (result.returncode, result.stderr) == (0, ""), result.stderr
    lines = result.stdout.splitlines()
    if when == "waiting":
        assert re.fullmatch(
            r"the Dask scheduler at '127\.0\.0\.1:\d+' was lost while its tasks ran \(ttt-sleep-0-\w+ cancelled for"
            r" reason: scheduler-connection-lost\.\): start it again, then run the same command again",
            lines[0],
        ), lines
    assert lines[-1] == "closed"


def test_tier_folders_swapped_in_a_distributed_build_are_solved_again(dask_client, variant_db, tmp_path):
    """The record the engine's driver writes names its tier too (tests/engine/test_tier_records.py: one process)."""
    target, variant = tmp_path / "3x4k3.sqlite", Variant.parse("3x4k3")

    with DaskEngine(client=dask_client) as engine, pytest.raises(Stop):
        build(target, variant, memory=1 << 20, engine=engine, progress=stop_at("3x4k3: ply 9:"))
    scratch = tmp_path / ".3x4k3.sqlite.solving"
    (scratch / "tier-09").rename(scratch / "swapped")
    (scratch / "tier-10").rename(scratch / "tier-09")
    (scratch / "swapped").rename(scratch / "tier-10")
    lines: list[str] = []
    with DaskEngine(client=dask_client) as engine:
        report = build(target, variant, memory=1 << 20, engine=engine, progress=lines.append)
    assert f"3x4k3: tier-09 in {scratch} holds tier 10, not this tier: solving it again" in lines, lines
    assert f"3x4k3: tier-10 in {scratch} holds tier 9, not this tier: solving it again" in lines, lines
    assert report.digest == digest(target) == digest(variant_db("3x4k3"))


def test_a_local_cluster_leaves_this_process_environment_as_it_found_it(monkeypatch):
    """A nanny sets its workers' variables (quiet worker logs, the allocator's settings) in the
    driver's own environment as it starts them; every later child of the driver inherited them
    (in CI, the namespace test's Dask workers logged nothing of their registration)."""
    for key in SPAWNED:
        monkeypatch.delenv(key, raising=False)
    with DaskEngine(workers=1) as engine:
        assert engine.slots() == 1
    assert {key: os.environ.get(key) for key in SPAWNED} == dict.fromkeys(SPAWNED)
