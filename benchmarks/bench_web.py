"""The HTTP API under load: ``ttt-lookup serve`` (one uvicorn worker) and the ``wrk`` load
generator (Debian package ``wrk``), both started here, on 127.0.0.1 only, bounded in time.

Goals (2-core machine, one worker): single-position requests at >= 2,000 per second with p99
latency <= 25 ms, costing at most 1.3x a ``/health`` request measured in the same run; the
batch endpoint at >= 500,000 boards per second for 10,000-board requests.

    python benchmarks/bench_web.py [--seconds 5] [--connections 16] [--batches 20] [--db PATH]
    python benchmarks/bench_web.py --in-process [--db PATH]

Single positions cycle through all 5,478 legal 3x3 boards (each request a different URL from
the last). The server keeps each answer as bytes after the first time, as it does in use, so
the goals are measured on that path; a second server started with ``--cache-size 0`` shows
what a request costs when every answer is computed (reported, no goal).
Without ``--db`` a database is built in a temporary directory.

What abusive clients do to the server is measured by ``bench_web_attack.py``.

``--in-process`` times the app itself, with no server or network: the best of 5 runs of 5,000
calls of a cached position and of ``/health``, in microseconds (steadier than wrk on a busy
machine).
"""

from __future__ import annotations

import argparse
import http.client
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

GOALS = {"rps": 2000, "p99_ms": 25.0, "cost_ratio": 1.3, "batch_boards_per_s": 500_000}


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_until_up(port: int, server: subprocess.Popen[bytes], limit: float = 60) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if server.poll() is not None:
            sys.exit(f"Error: the server exited with code {server.returncode}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            conn.request("GET", "/health")
            if conn.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.2)
    sys.exit("Error: the server did not start")


def wrk(url: str, seconds: int, connections: int, script: Path | None = None) -> tuple[float, float]:
    """Requests per second and p99 latency (ms) of one wrk run."""
    command = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", "--timeout", "5s"]
    if script is not None:
        command += ["-s", str(script)]
    out = subprocess.run([*command, url], capture_output=True, text=True, check=True, timeout=seconds + 30).stdout
    if "Non-2xx" in out or "Socket errors" in out:
        sys.exit(f"Error: wrk saw failed requests:\n{out}")
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    value, unit = re.search(r"\s99%\s+([\d.]+)(us|ms|s)\b", out).groups()  # type: ignore[union-attr]
    return rps, float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def lua_cycling(paths: list[str], where: Path) -> Path:
    body = ",\n".join(json.dumps(path) for path in paths)
    where.write_text(
        f"local paths = {{\n{body}\n}}\nlocal i = 0\n"
        "request = function()\n  i = i % #paths + 1\n  return wrk.format('GET', paths[i])\nend\n"
    )
    return where


def batch_rate(port: int, boards: list[str], requests: int) -> tuple[float, float]:
    """Boards per second and the median time of one 10,000-board request (ms)."""
    body = json.dumps({"boards": boards}).encode()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    times = []
    for _ in range(requests + 1):
        started = time.perf_counter()
        conn.request("POST", "/api/v1/3x3/batch", body, {"content-type": "application/json"})
        response = conn.getresponse()
        data = response.read()
        times.append(time.perf_counter() - started)
        if response.status != 200:
            sys.exit(f"Error: batch answered {response.status}: {data[:200]!r}")
    times = sorted(times[1:])  # the first request builds the batch tables
    return len(boards) * len(times) / sum(times), times[len(times) // 2] * 1000


@contextmanager
def running_server(db: str, *options: str, log: Any = subprocess.DEVNULL) -> Iterator[tuple[int, int]]:
    """``ttt-lookup serve`` (one uvicorn worker) on a free 127.0.0.1 port, stopped afterwards;
    its stderr to ``log`` (a file)."""
    port = free_port()
    command = [sys.executable, "-m", "ttt_solver.cli", "serve", "--port", str(port), "--db", db, *options]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log)
    try:
        wait_until_up(port, server)
        yield port, server.pid
    finally:
        server.terminate()
        server.wait(timeout=10)


def in_process(db: str) -> None:
    """Microseconds per call of the app for a cached position and for /health."""
    import asyncio

    from ttt_solver.web.app import create_app
    from ttt_solver.web.data import open_variant

    app = create_app({"3x3": open_variant(db)})

    def scope(path: str, query: bytes) -> dict[str, object]:
        return {
            "type": "http", "method": "GET", "path": path, "raw_path": path.encode(), "query_string": query,
            "headers": [(b"host", b"bench")], "http_version": "1.1", "scheme": "http", "root_path": "",
            "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 1), "asgi": {"version": "3.0"},
        }  # fmt: skip

    async def receive() -> dict[str, object]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(_message: dict[str, object]) -> None:
        pass

    async def calls(count: int, where: dict[str, object]) -> float:
        started = time.perf_counter()
        for _ in range(count):
            await app(dict(where), receive, send)
        return time.perf_counter() - started

    loop = asyncio.new_event_loop()
    for name, where in [
        ("cached position", scope("/api/v1/3x3", b"board=X...O....")),
        ("/health", scope("/health", b"")),
    ]:
        loop.run_until_complete(calls(10, where))
        best = min(loop.run_until_complete(calls(5000, where)) for _ in range(5))
        print(f"in process, {name}: {best / 5000 * 1e6:.1f} us a call (best of 5 x 5,000)")
    loop.close()


def running(base: str, script: Path, seconds: int, connections: int) -> None:
    """The single-position and /health rates of a server already running at ``base``."""
    wrk(base + "/health", 2, connections)
    wrk(base + "/", 2, connections, script)
    health_rps, health_p99 = wrk(base + "/health", seconds, connections)
    rps, p99 = wrk(base + "/", seconds, connections, script)
    print(f"{base}, wrk -t1 -c{connections} -d{seconds}s")
    print(f"/health:             {health_rps:8,.0f} req/s  p99 {health_p99:6.2f} ms")
    print(f"GET /api/v1/3x3:     {rps:8,.0f} req/s  p99 {p99:6.2f} ms   cost ratio to /health {health_rps / rps:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=5, help="length of each wrk run")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--batches", type=int, default=20, help="10,000-board requests to time")
    parser.add_argument("--db", help="3x3 database (default: build one in a temporary directory)")
    parser.add_argument("--in-process", action="store_true", help="time the app itself, with no server")
    parser.add_argument("--url", help="measure a running server instead (no batch or --cache-size 0 runs)")
    args = parser.parse_args()
    if not args.in_process and shutil.which("wrk") is None:
        sys.exit("Error: needs wrk (apt-get install wrk)")

    from ttt_solver.game import board as rules

    boards = rules.all_boards()
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db
        if db is None:
            from ttt_solver.builder.build import build

            db = str(Path(tmp) / "ttt.sqlite")
            build(db)
        if args.in_process:
            in_process(db)
            return
        script = lua_cycling([f"/api/v1/3x3?board={board}" for board in boards], Path(tmp) / "positions.lua")
        if args.url:
            running(args.url.rstrip("/"), script, args.seconds, args.connections)
            return
        with running_server(db) as (port, _pid):
            base = f"http://127.0.0.1:{port}"
            wrk(base + "/health", 2, args.connections)  # warm up both paths
            wrk(base + "/", 2, args.connections, script)
            health_rps, health_p99 = wrk(base + "/health", args.seconds, args.connections)
            rps, p99 = wrk(base + "/", args.seconds, args.connections, script)
            batch = (boards * 2)[:10_000]
            boards_per_s, batch_ms = batch_rate(port, batch, args.batches)
        with running_server(db, "--cache-size", "0") as (port, _pid):
            wrk(f"http://127.0.0.1:{port}/", 2, args.connections, script)
            cold_rps, cold_p99 = wrk(f"http://127.0.0.1:{port}/", args.seconds, args.connections, script)

    ratio = health_rps / rps
    print(f"one uvicorn worker, wrk -t1 -c{args.connections} -d{args.seconds}s, 127.0.0.1")
    print(f"/health:             {health_rps:8,.0f} req/s  p99 {health_p99:6.2f} ms")
    print(
        f"GET /api/v1/3x3:     {rps:8,.0f} req/s  p99 {p99:6.2f} ms   "
        f"(goals >= {GOALS['rps']:,} req/s, p99 <= {GOALS['p99_ms']:g} ms)"
    )
    print(f"cost ratio to /health: {ratio:.2f} (goal <= {GOALS['cost_ratio']})")
    print(f"GET, --cache-size 0: {cold_rps:8,.0f} req/s  p99 {cold_p99:6.2f} ms   (every answer computed; no goal)")
    print(
        f"POST batch of 10,000: {boards_per_s:10,.0f} boards/s, median {batch_ms:.1f} ms per request"
        f" (goal >= {GOALS['batch_boards_per_s']:,} boards/s)"
    )
    met = (
        rps >= GOALS["rps"]
        and p99 <= GOALS["p99_ms"]
        and ratio <= GOALS["cost_ratio"]
        and boards_per_s >= GOALS["batch_boards_per_s"]
    )
    print("all goals met" if met else "NOT all goals met")


if __name__ == "__main__":
    main()
