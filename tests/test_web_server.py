"""The server's connections (``ttt_solver.web.protocol`` under a real uvicorn): idle and slow
clients time out, no client can hold the server, every refusal is JSON, and the HTTP parser's
refusals too. Short timeouts keep these fast; the defaults are in ``Limits``."""

from __future__ import annotations

import asyncio
import json
import socket
import time

import pytest
from extras import need
from web_support import address, exchange, live_server, parse_response, read_all, served_for

pytestmark = pytest.mark.web
need("web", "fastapi")
from ttt_solver.web.app import create_app
from ttt_solver.web.protocol import Limits

QUICK = Limits(idle_timeout=0.4, read_timeout=0.6)
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
        body = b"x" * (8 << 20) if scope["path"] == "/big" else b"ok"
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"%d" % len(body))]})
        await send({"type": "http.response.body", "body": body})


def json_refusal(raw: bytes, status: int) -> str:
    """The message of a JSON error response that closes the connection."""
    found, headers, body = parse_response(raw)
    assert found == status, raw[:300]
    assert headers["content-type"] == "application/json" and headers["connection"] == "close", headers
    assert int(headers["content-length"]) == len(body)
    (message,) = json.loads(body).values()
    assert set(json.loads(body)) == {"error"}
    return message


@pytest.fixture(scope="module")
def app(db_path):
    return create_app(served_for(db_path, None))


@pytest.fixture(scope="module")
def quick_url(app):
    with live_server(app, QUICK) as url:
        yield url


def test_300_idle_connections_do_not_keep_other_clients_out(app):
    # Every connection that sends nothing stays open (up to the idle timeout) and costs little.
    with live_server(app, Limits(idle_timeout=30, max_connections=1000)) as url:
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


def test_beyond_the_connection_cap_idle_and_slow_connections_make_room(app):
    # 300 connections against a cap of 100: half send nothing, half send half a head slowly.
    with live_server(app, Limits(idle_timeout=30, read_timeout=30, max_connections=100)) as url:
        held = [socket.create_connection(address(url)) for _ in range(300)]
        try:
            for sock in held[::2]:
                sock.sendall(b"GET /health HTTP/1.1\r\nHost: t\r\nX-Slow: ")
            for _ in range(30):
                status, _headers, body = parse_response(exchange(url, GET_BOARD))
                assert status == 200, body
            # The shed ones were closed: silently if idle, with a JSON 503 if half a request was in.
            shed = [read_all(sock, 0.05) for sock in held[:100:2]]
            assert all(raw == b"" or "busy" in json_refusal(raw, 503) for raw in shed)
        finally:
            for sock in held:
                sock.close()


def test_a_silent_connection_is_closed_after_the_idle_timeout(quick_url):
    with socket.create_connection(address(quick_url)) as sock:
        started = time.monotonic()
        assert read_all(sock, 5) == b""
        assert 0.3 < time.monotonic() - started < 3


def test_a_connection_is_closed_when_idle_after_a_response(quick_url):
    with socket.create_connection(address(quick_url)) as sock:
        sock.sendall(GET_BOARD.replace(b"Connection: close\r\n", b""))
        started = time.monotonic()
        status, _headers, _body = parse_response(read_all(sock, 5))
        assert status == 200 and 0.3 < time.monotonic() - started < 3


@pytest.mark.parametrize(
    "partial",
    [
        b"GET /api/v1/3x3?board=X...O.... HTTP/1.1\r\nHost: t\r\nX-Slow: a",  # half a head
        (
            b"POST /api/v1/3x3/batch HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
            b'Content-Length: 40\r\n\r\n{"boards": ['
        ),  # a body cut short
    ],
)
def test_a_request_that_arrives_too_slowly_gets_408(quick_url, partial):
    with socket.create_connection(address(quick_url)) as sock:
        started = time.monotonic()
        for piece in (partial[:20], partial[20:-5], partial[-5:]):  # each well inside the idle timeout
            sock.sendall(piece)
            time.sleep(0.1)
        message = json_refusal(read_all(sock, 5), 408)
        assert message.startswith("the request did not arrive in time")
        assert time.monotonic() - started < 3


def test_when_every_connection_waits_for_the_server_a_newcomer_gets_a_json_503():
    stub = Stub()
    with live_server(stub, Limits(max_connections=2)) as url:
        held = [socket.create_connection(address(url)) for _ in range(2)]
        try:
            for sock in held:
                sock.sendall(b"GET /hold HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            deadline = time.monotonic() + 5
            while stub.holding < 2 and time.monotonic() < deadline:
                time.sleep(0.01)
            message = json_refusal(exchange(url, b"GET / HTTP/1.1\r\nHost: t\r\n\r\n"), 503)
            assert message.startswith("the server is busy")
        finally:
            assert stub.release is not None
            stub.release._loop.call_soon_threadsafe(stub.release.set)  # type: ignore[attr-defined]
            for sock in held:
                assert parse_response(read_all(sock, 0.5))[0] == 200  # the held ones were answered
                sock.close()


def test_a_client_that_does_not_read_its_answer_is_dropped():
    with live_server(Stub(), QUICK) as url, socket.create_connection(address(url)) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.sendall(b"GET /big HTTP/1.1\r\nHost: t\r\n\r\n")
        time.sleep(1.5)  # the server stalls on the write, then gives up on this client
        received = 0
        sock.settimeout(2)
        with pytest.raises((ConnectionResetError, TimeoutError)):
            while chunk := sock.recv(1 << 20):
                received += len(chunk)
        assert received < 8 << 20


@pytest.mark.parametrize(
    ("request_bytes", "status", "message"),
    [
        (b"GET /api/v1/3x3?board=" + b"X" * 100_000 + b" HTTP/1.1\r\nHost: t\r\n\r\n", 414, "the URL is too long"),
        (b"GET / HTTP/1.1\r\n" + b"X-Filler: abcdefgh\r\n" * 5000 + b"\r\n", 431, "the request head is too large"),
        (b"GET / HTTP/1.1\r\nHost: t\r\nX-Nul: a\x00b\r\n\r\n", 400, "malformed HTTP request: "),
        (b"POST /api/v1/3x3/batch HTTP/1.1\r\nHost: t\r\nContent-Length: ten\r\n\r\n", 400, "malformed HTTP request: "),
        (b"BREW /health HTTP/1.1\r\nHost: t\r\n\r\n", 400, "malformed HTTP request: Invalid method"),
        (b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 400, "malformed HTTP request: "),
        (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(32), 400, "malformed HTTP request: "),
        (b"GET /health HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", 400, ""),
    ],
)
def test_what_only_the_http_parser_sees_is_refused_as_json(quick_url, request_bytes, status, message):
    assert json_refusal(exchange(quick_url, request_bytes), status).startswith(message)


def test_a_burst_of_500_connections_is_answered_in_full(app):
    with live_server(app, Limits()) as url:
        socks = [socket.create_connection(address(url)) for _ in range(500)]
        try:
            for sock in socks:
                sock.sendall(GET_BOARD)
            statuses = [parse_response(read_all(sock, 10))[0] for sock in socks]
        finally:
            for sock in socks:
                sock.close()
    assert statuses == [200] * 500
