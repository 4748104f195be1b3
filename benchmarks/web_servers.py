"""The API app under one of several ASGI servers, each with the public settings that bound its
connections, for comparing them (``bench_web.py --url`` and ``bench_web_attack.py --url``).

    python benchmarks/web_servers.py SERVER PORT DB

SERVER is ``uvicorn`` (httptools parser, as ``ttt-lookup serve`` runs it), ``uvicorn-h11``
(h11 parser, whose public setting bounds a request head), ``hypercorn`` or ``granian`` (those
two must be installed: ``pip install hypercorn granian``). Each gets the same limits as far as
its settings allow: 5 s idle keep-alive, 1,000 requests at once, a 16 KB head, a 10 s read.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any


def make_app() -> Any:
    from ttt_solver.web.app import create_app
    from ttt_solver.web.data import open_variant

    return create_app({"3x3": open_variant(os.environ["TTT_BENCH_DB"])})


def main() -> None:
    server, port, db = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    os.environ["TTT_BENCH_DB"] = db
    if server.startswith("uvicorn"):
        import uvicorn

        h11 = server == "uvicorn-h11"
        uvicorn.Server(
            uvicorn.Config(
                make_app(), host="127.0.0.1", port=port, http="h11" if h11 else "httptools", ws="none",
                lifespan="off", log_level="warning", limit_concurrency=1000, timeout_keep_alive=5, backlog=2048,
                h11_max_incomplete_event_size=16384 if h11 else None,
            )
        ).run()  # fmt: skip
    elif server == "hypercorn":
        import uvloop
        from hypercorn.asyncio import serve
        from hypercorn.config import Config

        config = Config.from_mapping(
            bind=[f"127.0.0.1:{port}"], keep_alive_timeout=5, read_timeout=10, h11_max_incomplete_size=16384,
            backlog=2048, loglevel="WARNING",
        )  # fmt: skip
        uvloop.run(serve(make_app(), config))
    elif server == "granian":
        from granian import Granian
        from granian.http import HTTP1Settings

        Granian(
            "web_servers:make_app", address="127.0.0.1", port=port, interface="asgi", factory=True, workers=1,
            backlog=2048, backpressure=1000, http="1", log_level="warning",
            http1_settings=HTTP1Settings(header_read_timeout=10_000, max_buffer_size=16384),
        ).serve()  # fmt: skip
    else:
        sys.exit(f"Error: unknown server {server!r}: uvicorn, uvicorn-h11, hypercorn or granian")


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    asyncio.set_event_loop_policy(None)
    main()
