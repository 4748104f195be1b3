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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def live_server(app: Any) -> Iterator[str]:
    """Run ``app`` under uvicorn on 127.0.0.1 in a thread; yield its base URL."""
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
