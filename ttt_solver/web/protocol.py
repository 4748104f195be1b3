"""Connections that cannot hold the server: uvicorn's httptools protocol with timeouts, a cap
on connections that sheds the ones waiting on their client, and JSON for every refusal.

uvicorn closes a keep-alive connection that stays silent after a response, but not a new
connection that never sends a byte, nor one that sends its head or body slowly; and its
``limit_concurrency`` counts such connections, so a few hundred idle ones turn every other
client away with a plain-text 503. Here, for every connection:

- **idle**: no request under way (a new connection, or one between requests) and no byte for
  ``idle_timeout`` seconds: closed, as uvicorn closes a keep-alive connection;
- **reading**: a request's head and body must arrive within ``read_timeout`` seconds of its
  first byte, else ``408`` (a slow head or a slow body: the same deadline);
- **writing**: a client that takes no bytes of its answer for ``read_timeout`` seconds is
  dropped;
- **head size**: a URL over ``max_url_bytes`` is ``414``, a head over ``max_head_bytes``
  ``431``, before the parser holds more of it;
- **capacity**: above ``max_connections`` open connections, the one that has waited longest on
  its client (idle, or still sending its request, or not reading its answer) is closed to make
  room; only when every connection waits on the server is the newcomer refused with ``503``;
- a request the HTTP parser rejects is ``400`` with the parser's reason.

Every refusal is ``{"error": "..."}`` (:func:`ttt_solver.web.raw.http_error`) and closes the
connection. A connection whose request the app is answering is never cut short by these rules.
"""

from __future__ import annotations

import contextlib
import socket
import struct
from asyncio import TimerHandle
from dataclasses import dataclass
from typing import Any, ClassVar

import httptools
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from .raw import http_error


def _default_max_connections() -> int:
    """Up to 1,000, within this process's limit of open files (leaving some for the databases)."""
    try:
        import resource

        soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):  # pragma: no cover - not on POSIX
        return 500
    if soft == resource.RLIM_INFINITY:
        return 1000
    return max(16, min(1000, soft - 64))


@dataclass(frozen=True)
class Limits:
    """What one connection may take of the server (seconds and bytes)."""

    idle_timeout: float = 5.0
    read_timeout: float = 10.0
    max_connections: int = _default_max_connections()
    max_url_bytes: int = 8192
    max_head_bytes: int = 32768


class GuardedProtocol(HttpToolsProtocol):
    """One HTTP/1.1 connection under :class:`Limits` (see the module docstring)."""

    limits: ClassVar[Limits] = Limits()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: TimerHandle | None = None  # the idle or the reading deadline
        self._write_deadline: TimerHandle | None = None
        self._waiting_since = 0.0  # when the connection last became the client's turn
        self._in_head = False  # between a request's first byte and the end of its head
        self._reading = False  # between a request's first byte and its last
        self._head_bytes = 0  # of the current head: its URL and headers, or the bytes received
        self._raw_head = 0
        self._url_bytes = 0

    @classmethod
    def under(cls, limits: Limits) -> type[GuardedProtocol]:
        """This protocol with other limits (a class, as uvicorn's ``http`` option takes)."""
        return type("GuardedProtocol", (cls,), {"limits": limits})

    # -- connection -----------------------------------------------------------------------------
    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._waiting_since = self.loop.time()
        self._arm(self.limits.idle_timeout, self._idle_timed_out)
        if len(self.connections) > self.limits.max_connections and self._over_capacity() and not self._shed_one():
            self._refuse(503, "the server is busy: every connection is waiting for an answer; try again shortly")

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._write_deadline is not None:
            self._write_deadline.cancel()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        self._unset_keepalive_if_required()
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self._unsupported_upgrade_warning()  # served as plain HTTP: no WebSocket here
        except httptools.HttpParserError as error:
            if not self._head_too_large():
                self._refuse(400, f"malformed HTTP request: {error}")
            return
        if self._in_head:
            self._head_bytes = max(self._head_bytes, self._raw_head + len(data))
            self._raw_head += len(data)
        self._head_too_large()

    def _head_too_large(self) -> bool:
        """Refuse a request whose URL or head is over the limits (seen so far); True if refused."""
        limits = self.limits
        if self._url_bytes > limits.max_url_bytes:
            self._refuse(414, f"the URL is too long: the limit is {limits.max_url_bytes:,} bytes")
        elif self._head_bytes > limits.max_head_bytes:
            self._refuse(431, f"the request head is too large: the limit is {limits.max_head_bytes:,} bytes")
        else:
            return False
        return True

    def send_400_response(self, msg: str) -> None:
        self._refuse(400, f"malformed HTTP request: {msg}")

    # -- parser callbacks -----------------------------------------------------------------------
    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_head = self._reading = True
        self._head_bytes = self._url_bytes = self._raw_head = 0
        self._arm(self.limits.read_timeout, self._read_timed_out)

    def on_url(self, url: bytes) -> None:
        self._url_bytes += len(url)
        self._head_bytes += len(url)
        if self._url_bytes <= self.limits.max_url_bytes:  # beyond it, refused after this feed
            super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._head_bytes += len(name) + len(value) + 4
        if self._head_bytes <= self.limits.max_head_bytes:
            super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._in_head = False
        limits = self.limits
        if self._url_bytes <= limits.max_url_bytes and self._head_bytes <= limits.max_head_bytes:
            super().on_headers_complete()  # else never dispatched: refused after this feed

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._reading = False
        self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self._reading and not self.transport.is_closing():
            self._waiting_since = self.loop.time()
            self._arm(self.limits.idle_timeout, self._idle_timed_out)

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._write_deadline is None:
            self._write_deadline = self.loop.call_later(self.limits.read_timeout, self._write_timed_out)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self._write_deadline is not None:
            self._write_deadline.cancel()
            self._write_deadline = None

    # -- deadlines --------------------------------------------------------------------------------
    def _arm(self, seconds: float, then: Any) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds, then)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _idle_timed_out(self) -> None:
        self._deadline = None
        if not self._reading and not self.transport.is_closing():
            self.transport.close()

    def _read_timed_out(self) -> None:
        self._deadline = None
        seconds = self.limits.read_timeout
        self._refuse(
            408, f"the request did not arrive in time: a request's head and body must arrive within {seconds:g} s"
        )

    def _write_timed_out(self) -> None:
        self._write_deadline = None
        # Reset, not close: closing would still send the client all that waits in the buffers.
        sock = self.transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.transport.abort()

    # -- capacity -------------------------------------------------------------------------------
    def _waiting_on_client(self) -> bool:
        """Whether the client, not the server, holds this connection up now."""
        cycle = self.cycle
        if cycle is None or cycle.response_complete:
            return True  # between requests, or a new request's head under way
        if cycle.more_body and not cycle.response_started:
            return True  # its body under way
        return self.flow.write_paused  # not reading its answer

    def _over_capacity(self) -> bool:
        """More connections open than allowed, not counting those already closing."""
        return sum(not other.transport.is_closing() for other in self.connections) > self.limits.max_connections

    def _shed_one(self) -> bool:
        """Close the connection that has waited longest on its client; False if there is none."""
        waiting = [
            other
            for other in self.connections
            if other is not self
            and isinstance(other, GuardedProtocol)
            and not other.transport.is_closing()
            and other._waiting_on_client()
        ]
        if not waiting:
            return False
        oldest = min(waiting, key=lambda other: other._waiting_since)
        if oldest._reading:
            oldest._refuse(503, "the server is busy and this request was the slowest to arrive; try again")
        else:
            oldest.transport.close()
        return True

    def _refuse(self, status: int, message: str) -> None:
        """Answer ``status`` with a JSON error (unless an answer has begun) and close."""
        if self.transport.is_closing():
            return
        self._disarm()
        cycle = self.cycle
        answered = cycle is not None and cycle.response_started and not cycle.response_complete
        if cycle is not None and not cycle.response_complete:
            cycle.disconnected = True  # the app, if it waits for the body, is told the client left
            cycle.message_event.set()
        if not answered:
            self.transport.write(http_error(status, message, self.server_state.default_headers))
        self.transport.close()
