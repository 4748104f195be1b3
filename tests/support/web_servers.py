"""Helpers of the web tests: the served databases (opened once per session, however many test
modules ask), sample boards, and a real uvicorn server on a free port."""

from __future__ import annotations

import functools
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ttt_solver.web.data import Served, open_variant


@functools.cache
def served_for(db_3x3: Path, db_4x4: Path | None) -> dict[str, Served]:
    """The variants a test server serves: 3x3 and (when it could be built) 4x4."""
    served = {"3x3": open_variant(db_3x3)}
    if db_4x4 is not None:
        served["4x4"] = open_variant(db_4x4)
    return served


def built_4x4(request: Any) -> Path | None:
    """The session's 4x4 database (conftest's ``db_4x4``), or None where it cannot be built."""
    try:
        path: Path = request.getfixturevalue("db_4x4")
    except AssertionError:  # the build failed: the 4x4 parts skip themselves
        return None
    return path


def address(url: str) -> tuple[str, int]:
    host, _, port = url.removeprefix("http://").partition(":")
    return host, int(port.split("/")[0])


def read_all(sock: socket.socket, timeout: float = 5.0) -> bytes:
    """Everything ``sock`` receives until the server closes it (or ``timeout`` passes)."""
    sock.settimeout(timeout)
    found = b""
    try:
        while chunk := sock.recv(65536):
            found += chunk
    except (TimeoutError, ConnectionResetError):
        pass
    return found


def exchange(url: str, request: bytes, timeout: float = 5.0) -> bytes:
    """Send raw bytes on a new connection; everything the server answers until it closes."""
    with socket.create_connection(address(url)) as sock:
        sock.sendall(request)
        return read_all(sock, timeout)


def parse_response(raw: bytes) -> tuple[int, dict[str, str], bytes]:
    """(status, headers with lower-case names, body) of one raw HTTP/1.1 response."""
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split()[1]), headers, body


@contextmanager
def live_server(app: Any, limits: Any = None) -> Iterator[str]:
    """Run ``app`` as ``ttt-lookup serve`` does (:class:`ttt_solver.web.server.Server`, on a
    socket bound first) on a free 127.0.0.1 port in a thread; yield its base URL."""
    from ttt_solver.web.server import Server, listen

    ready: list[str] = []
    sock = listen("127.0.0.1", 0)
    server = Server(app, sock, limits, on_ready=ready.append)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not ready:
        if time.monotonic() > deadline or not thread.is_alive():
            sock.close()
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield ready[0].rstrip("/")
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
