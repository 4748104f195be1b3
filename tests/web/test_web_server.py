"""The server's connections under a real uvicorn, bounded by its public settings only
(:class:`ttt_solver.web.server.Limits`): idle kept-alive connections close, idle connections
cost other clients nothing, beyond the concurrency cap a request is refused with 503 while the
requests under way are answered, what the HTTP parser refuses closes the connection, and the
web package uses no private module of any server. Slow request heads, clients that do not read
their answers and per-client rates are the reverse proxy's (``docs/deploy.md``,
``tests/web/test_web_proxy.py``). Short timeouts keep these fast; the defaults are in ``Limits``."""

from __future__ import annotations

import ast
import asyncio
import json
import socket
import time
from pathlib import Path

import pytest
from support.extra_markers import need
from support.web_servers import address, exchange, live_server, parse_response, read_all, served_for

pytestmark = pytest.mark.web
need("web", "fastapi")
from ttt_solver.web.app import create_app
from ttt_solver.web.server import Limits

QUICK = Limits(idle_timeout=1)
GET_BOARD = b"GET /api/v1/3x3?board=X...O.... HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"


class Stub:
    """An app that answers ``ok`` at once, or holds ``/hold`` until released."""

    def __init__(self) -> None:
        self.release: asyncio.Event | None = None
        self.holding = 0

    async def __call__(self, scope: dict, receive, send) -> None:
        if scope["type"] != "http":
            return
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return
            more = message.get("more_body", False)
        if scope["path"] == "/hold":
            self.release = self.release or asyncio.Event()
            self.holding += 1
            await self.release.wait()
        body = b"ok"
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"%d" % len(body))]})
        await send({"type": "http.response.body", "body": body})


@pytest.fixture(scope="module")
def app(db_path):
    return create_app(served_for(db_path, None))


@pytest.fixture(scope="module")
def quick_url(app):
    with live_server(app, QUICK) as url:
        yield url


def test_300_idle_connections_do_not_keep_other_clients_out(app):
    # Every connection that sends nothing stays open (up to the idle timeout) and costs little.
    with live_server(app, Limits(idle_timeout=30, max_concurrency=1000)) as url:
        idle = [socket.create_connection(address(url)) for _ in range(300)]
        try:
            times = []
            for _ in range(50):
                started = time.perf_counter()
                status, _headers, body = parse_response(exchange(url, GET_BOARD))
                times.append(time.perf_counter() - started)
                assert status == 200 and json.loads(body)["board"] == "X...O....", body[:200]
            for sock in idle:  # still open: nothing was answered or closed on them
                sock.setblocking(False)
                with pytest.raises(BlockingIOError):
                    sock.recv(1)
        finally:
            for sock in idle:
                sock.close()
        assert sorted(times)[len(times) // 2] < 1.0


def test_a_connection_is_closed_when_idle_after_a_response(quick_url):
    with socket.create_connection(address(quick_url)) as sock:
        sock.sendall(GET_BOARD.replace(b"Connection: close\r\n", b""))
        started = time.monotonic()
        status, _headers, _body = parse_response(read_all(sock, 5))
        assert status == 200 and 0.8 < time.monotonic() - started < 4


def test_beyond_the_concurrency_cap_a_request_gets_503_and_those_under_way_are_answered():
    stub = Stub()
    with live_server(stub, Limits(max_concurrency=3)) as url:  # uvicorn: at most 2 others open
        held = [socket.create_connection(address(url)) for _ in range(2)]
        try:
            for sock in held:
                sock.sendall(b"GET /hold HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            deadline = time.monotonic() + 5
            while stub.holding < 2 and time.monotonic() < deadline:
                time.sleep(0.01)
            status, headers, _body = parse_response(exchange(url, b"GET / HTTP/1.1\r\nHost: t\r\n\r\n"))
            assert status == 503 and headers["connection"] == "close"
        finally:
            assert stub.release is not None
            stub.release._loop.call_soon_threadsafe(stub.release.set)  # type: ignore[attr-defined]
            for sock in held:
                assert parse_response(read_all(sock, 0.5))[0] == 200  # the held ones were answered
                sock.close()
        assert parse_response(exchange(url, b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"))[0] == 200


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GET /api/v1/3x3?board=" + b"X" * 100_000 + b" HTTP/1.1\r\nHost: t\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: t\r\nX-Nul: a\x00b\r\n\r\n",
        b"POST /api/v1/3x3/batch HTTP/1.1\r\nHost: t\r\nContent-Length: ten\r\n\r\n",
        b"BREW /health HTTP/1.1\r\nHost: t\r\n\r\n",
        b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(32),
        b"GET /health HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
    ],
)
def test_what_the_http_parser_refuses_is_a_400_that_closes_the_connection(quick_url, request_bytes):
    # uvicorn answers these itself (plain text): the app never sees them.
    status, headers, _body = parse_response(exchange(quick_url, request_bytes))
    assert status == 400 and headers["connection"] == "close"


def test_the_web_package_uses_no_private_module_of_a_server():
    """Only public APIs: no ``uvicorn.protocols`` (or any ``_private``) module, no subclass of
    a server's connection class (issue 22 item 8)."""
    package = Path(__import__("ttt_solver.web").web.__file__).parent
    found = []
    for path in sorted(package.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if top in ("uvicorn", "hypercorn", "granian", "httptools", "h11") and (
                    ".protocols" in name
                    or any(part.startswith("_") for part in name.split("."))
                    or top in ("httptools", "h11")
                ):
                    found.append(f"{path.name}: {name}")
            if isinstance(node, ast.ClassDef):
                found += [
                    f"{path.name}: {node.name}({ast.unparse(b)})" for b in node.bases if "Protocol" in ast.unparse(b)
                ]
    assert found == []


def test_a_burst_of_500_connections_is_answered_in_full(app):
    with live_server(app) as url:
        socks = [socket.create_connection(address(url)) for _ in range(500)]
        try:
            for sock in socks:
                sock.sendall(GET_BOARD)
            statuses = [parse_response(read_all(sock, 10))[0] for sock in socks]
        finally:
            for sock in socks:
                sock.close()
    assert statuses == [200] * 500
