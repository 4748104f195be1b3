"""The Dask engine at its edges: a wrong ``--address`` or ``--storage`` is one line, soon; a
worker lost while the local cluster starts is started again; shutting down prints nothing.

Each server here listens on loopback (it stands for the dashboard at 8787, a server of another
protocol, or one that accepts and says nothing): none is a Dask scheduler."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest
from click.testing import CliRunner
from support import extra_markers as extras

from ttt_solver.cli import cli
from ttt_solver.errors import EngineError

extras.need("dask", "dask.distributed")  # the module is skipped without the extra

from ttt_solver.solver import scheduler_probe  # after the skip without the extra
from ttt_solver.solver.engine_dask import DaskEngine

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
