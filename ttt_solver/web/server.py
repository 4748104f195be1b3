"""Running the app: a listening socket bound before anything slow, and one uvicorn worker over
it, its connections bounded by uvicorn's public settings only (:class:`Limits`).

``ttt-lookup serve`` binds first (a taken port is one error, before anything else), then
serves; ``on_ready`` is told the real address once uvicorn accepts connections (with port 0,
the port the system chose).

What the server guarantees on its own, and what an internet deployment leaves to the reverse
proxy in front (slow request heads, TLS, per-client rates), is written down in
``docs/deploy.md``; uvicorn was chosen over hypercorn and granian by
``benchmarks/web_servers.py`` (the numbers are there too).
"""

from __future__ import annotations

import copy
import errno
import logging
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import uvicorn
from uvicorn.config import LOGGING_CONFIG

__all__ = ["Limits", "ListenError", "Server", "listen", "url_of"]


@dataclass(frozen=True)
class Limits:
    """What connections may take of the server, as uvicorn's public settings name them.

    ``idle_timeout``: seconds a kept-alive connection may stay silent after an answer
    (``timeout_keep_alive``); ``max_concurrency``: open connections and requests under way at
    most, beyond which a request is answered 503 (``limit_concurrency``); ``backlog``:
    connections the system queues before the server accepts them."""

    idle_timeout: int = 5
    max_concurrency: int = 1000
    backlog: int = 2048


class ListenError(OSError):
    """The address cannot be listened on: the port is taken, not allowed, or the host unknown."""


def listen(host: str, port: int, backlog: int = Limits.backlog) -> socket.socket:
    """A socket bound to ``host:port`` and listening; ListenError saying why not."""
    try:
        family, kind, proto, _name, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except (socket.gaierror, UnicodeError) as error:
        raise ListenError(f"cannot listen on {host}:{port}: unknown host ({error})") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a restart need not wait for TIME_WAIT
        sock.bind(address)
        sock.listen(backlog)
    except OSError as error:
        sock.close()
        reason = error.strerror or str(error)
        taken = " (another program is using it; choose another with --port, or --port 0 for any free one)"
        raise ListenError(
            f"cannot listen on {host}:{port}: {reason}{taken if error.errno == errno.EADDRINUSE else ''}"
        ) from None
    sock.set_inheritable(True)
    return sock


def url_of(sock: socket.socket) -> str:
    """``http://host:port/`` of a listening socket (IPv6 hosts in brackets)."""
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def _log_config() -> dict[str, Any]:
    """uvicorn's logging, with its access lines on stderr too (stdout stays empty)."""
    config: dict[str, Any] = copy.deepcopy(LOGGING_CONFIG)
    config["handlers"]["access"]["stream"] = "ext://sys.stderr"
    return config


class Server(uvicorn.Server):
    """One uvicorn worker serving ``app`` on an already listening socket."""

    def __init__(
        self,
        app: Any,
        sock: socket.socket,
        limits: Limits | None = None,
        *,
        access_log: bool = False,
        on_ready: Callable[[str], None] | None = None,
    ) -> None:
        limits = limits or Limits()
        config = uvicorn.Config(
            app,
            http="httptools",
            ws="none",  # no WebSocket: an upgrade request is answered as plain HTTP
            lifespan="off",
            log_level="warning",
            access_log=access_log,
            log_config=_log_config(),
            timeout_keep_alive=limits.idle_timeout,
            limit_concurrency=limits.max_concurrency,
            backlog=limits.backlog,
            timeout_graceful_shutdown=5,
        )
        if access_log:  # one line per request on stderr, as uvicorn writes them
            logging.getLogger("uvicorn.access").setLevel(logging.INFO)
        super().__init__(config)
        self.sock = sock
        self.on_ready = on_ready

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=[self.sock])
        if self.started and self.on_ready is not None:
            self.on_ready(url_of(self.sock))

    def serve_forever(self) -> None:
        """Serve until stopped (Ctrl-C or SIGTERM: uvicorn finishes the requests under way)."""
        self.run(sockets=[self.sock])
