"""Whether a Dask scheduler answers at ``--address``, found out within :data:`WITHIN` seconds.

A client of Dask's waits for the other end's handshake with no time limit: a port where an HTTP
server answers (a scheduler's dashboard, 8787, for the scheduler's 8786) or a server that says
nothing kept a build waiting for ever, and one that says something else can be read as frames
of any length (a MemoryError). So before the client connects, the address is tried: a plain
TCP connection (nothing listens; nothing answers), then Dask's own handshake
(:func:`distributed.comm.connect`) under a time limit; where that fails, a look at what
answers names it (an HTTP server, a greeting it sent, or silence).
"""

from __future__ import annotations

import asyncio
import socket
from concurrent.futures import ThreadPoolExecutor

from distributed.comm.core import connect  # distributed.comm.connect, where it is defined (typed)

from ..errors import EngineError
from ..system.engine_places import SCHEDULER_PORT

CONNECT = 2.0  # seconds for the TCP connection (a lost SYN is sent again after 1 s)
HANDSHAKE = 4.0  # seconds for Dask's handshake once connected (milliseconds from an idle scheduler)
LOOK = 0.5  # seconds for each look at what answers instead (its greeting, then its answer to HTTP)
WITHIN = CONNECT + HANDSHAKE + 2 * LOOK  # the longest a refusal takes, in seconds
HINT = (
    f"start one with 'dask scheduler' (its usual port is {SCHEDULER_PORT}) and its workers with"
    " 'dask worker ADDRESS', or leave out --address for a local cluster"
)


def check_scheduler(address: str) -> None:
    """EngineError, in one line naming what answers at ``address`` (``[tcp://]host:port``), if
    it is not a Dask scheduler's."""
    host, port = host_port(address)
    try:
        socket.create_connection((host, port), timeout=CONNECT).close()
    except TimeoutError:
        raise EngineError(f"nothing answers at {address!r} within {CONNECT:g} s: {HINT}") from None
    except OSError as error:  # refused, no route, an unknown host
        raise EngineError(
            f"cannot reach the Dask scheduler at {address!r} ({error.strerror or error}); {HINT}"
        ) from None
    if not handshakes(address):
        raise EngineError(f"{what_answers(host, port)} at {address!r}, not a Dask scheduler; {HINT}")


def host_port(address: str) -> tuple[str, int]:
    """The host and port of ``[scheme://]host:port``."""
    host, _colon, port = address.partition("://")[2 if "://" in address else 0].rpartition(":")
    return host.strip("[]"), int(port)


def handshakes(address: str) -> bool:
    """Whether Dask's handshake succeeds at ``address`` within :data:`HANDSHAKE` seconds."""

    async def attempt() -> None:
        comm = await asyncio.wait_for(connect(address, timeout=HANDSHAKE), HANDSHAKE)
        await comm.close()

    try:
        # In a thread of its own, with its own event loop: asyncio.run refuses to run in a thread
        # whose loop is running (a notebook's, or one a caller left running), and that refusal
        # read as "not a Dask scheduler" at a scheduler's address.
        with ThreadPoolExecutor(1) as thread:
            thread.submit(lambda: asyncio.run(attempt())).result()
    except Exception:  # noqa: BLE001 - timed out, closed, or frames that are no Dask's (even a MemoryError)
        return False
    return True


def what_answers(host: str, port: int) -> str:
    """What answers at ``host:port``, in words: the greeting it sends first, else its reply to
    an HTTP request, else that it says nothing."""
    try:
        with socket.create_connection((host, port), timeout=CONNECT) as probe:
            probe.settimeout(LOOK)
            greeting = _received(probe)
            if greeting:
                return f"a server that greets with {_text(greeting)!r} answers"
            probe.sendall(f"HEAD / HTTP/1.0\r\nHost: {host}\r\n\r\n".encode())
            reply = _received(probe)
    except OSError:
        return "a server that closed the connection answers"
    if reply.startswith(b"HTTP/"):
        return f"an HTTP server ({_text(reply)}) answers"
    if reply:
        return f"a server that replies {_text(reply)!r} answers"
    return "a server that accepts connections and says nothing answers"


def _received(probe: socket.socket) -> bytes:
    """What ``probe`` receives before its time is up (nothing, if nothing)."""
    try:
        return probe.recv(256)
    except TimeoutError:
        return b""


def _text(raw: bytes) -> str:
    """The first line of ``raw`` where it is text (cut to 40 characters), else its first bytes in hex."""
    line = raw.split(b"\n", 1)[0].strip()
    if line and all(32 <= byte < 127 for byte in line):
        return line[:40].decode("ascii")
    return f"bytes {raw[:8].hex(' ')}"
