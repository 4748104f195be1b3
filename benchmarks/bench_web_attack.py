"""What abusive clients do to ``ttt-lookup serve`` (no goals: counts and latencies), on
127.0.0.1 only, bounded in time.

    python benchmarks/bench_web_attack.py [--db PATH] [--url http://127.0.0.1:8000 --pid PID]
    python benchmarks/bench_web_attack.py --fuzz 20000 [--seed 1] [--db PATH]

Attacks: another client's requests while 300 connections sit idle, and while 300 send half a
head slowly; a burst of 500 connections at once; 1,500 requests for one board each with a
different 60 KB junk parameter, and with a 1.9 KB one (the server's memory before and after);
malformed requests, one of each kind (whose refusals the app answers in JSON and uvicorn's
parser in plain text).

Then the connection guarantees (``--guarantees``, on by default; ``--no-guarantees`` skips
them): how long the server keeps a kept-alive connection that is idle after an answer (closed
after uvicorn's ``timeout_keep_alive``), a new connection that sends nothing, and one that sends
half a request head (each watched for up to 8 s: uvicorn closes neither, which is the reverse
proxy's job, see docs/deploy.md), and what another client gets while the silent connections
reach the concurrency cap (``limit_concurrency``: 503 beyond it). ``--fuzz N`` instead sends N random requests (methods,
paths, query strings, headers and bodies, a tenth of them malformed bytes), each on a new
connection, and counts the answers: by status, the 5xx, the errors whose body is not JSON,
the connections closed with no answer, and the tracebacks in the server's log.

It starts ``ttt-lookup serve`` (a 3x3 database built in a temporary directory without
``--db``) unless ``--url`` names a running server (``--pid``: its process, for its memory).
"""

from __future__ import annotations

import argparse
import json
import random
import socket
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from bench_web import running_server

from ttt_solver.web.server import Limits

ATTACK_BOARD = b"GET /api/v1/3x3?board=X...O.... HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n"
MALFORMED = {
    "100 KB URL": b"GET /api/v1/3x3?board=" + b"X" * 100_000 + b" HTTP/1.1\r\nHost: b\r\n\r\n",
    "bad Content-Length": b"POST /api/v1/3x3/batch HTTP/1.1\r\nHost: b\r\nContent-Length: ten\r\n\r\n",
    "NUL in a header": b"GET /health HTTP/1.1\r\nHost: b\r\nX: a\x00b\r\n\r\n",
    "unknown method": b"BREW /health HTTP/1.1\r\nHost: b\r\n\r\n",
    "DELETE": b"DELETE /health HTTP/1.1\r\nHost: b\r\nConnection: close\r\n\r\n",
    "HEAD": b"HEAD /api/v1/3x3?board=X...O.... HTTP/1.1\r\nHost: b\r\nConnection: close\r\n\r\n",
    "nested JSON": b"POST /api/v1/3x3/batch HTTP/1.1\r\nHost: b\r\nConnection: close\r\nContent-Type: application/json"
    b"\r\nContent-Length: 20000\r\n\r\n" + b"[" * 10_000 + b"]" * 10_000,
    "Host in a redirect": b"GET /api/v1/3x3/?board=X...O.... HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n",
}


def _answer(port: int, request: bytes, timeout: float = 10) -> tuple[str, str, float]:
    """(status, kind of body, seconds) of one request on a new connection."""
    started = time.perf_counter()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
            sock.sendall(request)
            raw = b""
            while not _complete(raw, request) and (chunk := sock.recv(65536)):
                raw += chunk
    except OSError as error:
        return f"no answer ({type(error).__name__})", "", time.perf_counter() - started
    head, _, body = raw.partition(b"\r\n\r\n")
    status = head.split(b" ", 2)[1].decode() if head.startswith(b"HTTP/") else "no answer"
    kind = "json" if b"application/json" in head.lower() else "text" if body else "empty"
    if b"\nlocation:" in head.lower():
        kind += ", Location " + head.lower().split(b"\nlocation:")[1].split(b"\r")[0].strip().decode()
    return status, kind, time.perf_counter() - started


def _complete(raw: bytes, request: bytes) -> bool:
    """Whether ``raw`` holds a whole response (a kept-alive connection would never close)."""
    head, found, body = raw.partition(b"\r\n\r\n")
    if not found:
        return False
    lowered = head.lower()
    if request.startswith(b"HEAD ") or b" 304 " in head.split(b"\r\n")[0]:
        return True
    if b"\ncontent-length:" not in lowered:
        return False  # read to the end
    length = int(lowered.split(b"\ncontent-length:")[1].split(b"\r")[0])
    return len(body) >= length


def _tally(answers: list[tuple[str, str, float]]) -> str:
    counts = Counter(f"{status} {kind}" for status, kind, _ in answers)
    times = sorted(seconds for _, _, seconds in answers)
    p50, p99 = times[len(times) // 2] * 1000, times[min(len(times) - 1, int(len(times) * 0.99))] * 1000
    return f"{dict(counts)}  p50 {p50:.1f} ms  p99 {p99:.1f} ms"


def _rss_mb(pid: int | None) -> str:
    if pid is None:
        return "?"
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return f"{int(line.split()[1]) / 1024:.0f} MB"
    return "?"


def attack(port: int, pid: int | None) -> None:
    """Print what abusive clients do to the server on ``port``."""

    def requests(count: int) -> str:
        return _tally([_answer(port, ATTACK_BOARD) for _ in range(count)])

    print(f"another client, 200 requests, nothing else:            {requests(200)}")
    idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(300)]
    print(f"the same while 300 idle connections are held:          {requests(200)}")
    for sock in idle:
        sock.close()
    slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(300)]
    for sock in slow:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: b\r\nX-Slow: ")
    print(f"the same while 300 connections send half a head:       {requests(200)}")
    for sock in slow:
        sock.close()
    time.sleep(0.5)
    burst = [socket.create_connection(("127.0.0.1", port)) for _ in range(500)]
    started = time.perf_counter()
    for sock in burst:
        sock.sendall(ATTACK_BOARD)
    answers = []
    for sock in burst:
        raw = b""
        sock.settimeout(30)
        try:
            while chunk := sock.recv(65536):
                raw += chunk
        except OSError:
            pass
        sock.close()
        head = raw.partition(b"\r\n\r\n")[0]
        status = head.split(b" ", 2)[1].decode() if head.startswith(b"HTTP/") else "no answer"
        answers.append((status, "json" if b"application/json" in head.lower() else "text", 0.0))
    print(f"a burst of 500 connections at once ({time.perf_counter() - started:.2f} s): {_tally(answers)}")
    before = _rss_mb(pid)
    junk = [
        _answer(port, ATTACK_BOARD.replace(b".... HTTP", f"....&junk{i}={'j' * 60_000} HTTP".encode()))
        for i in range(1500)
    ]
    print(f"1,500 requests with a different 60 KB junk parameter:  {_tally(junk)}; memory {before} -> {_rss_mb(pid)}")
    before = _rss_mb(pid)
    junk = [
        _answer(port, ATTACK_BOARD.replace(b".... HTTP", f"....&junk{i:04}={'j' * 1900} HTTP".encode()))
        for i in range(1500)
    ]
    print(f"1,500 requests with a different 1.9 KB junk parameter: {_tally(junk)}; memory {before} -> {_rss_mb(pid)}")
    for name, request in MALFORMED.items():
        status, kind, _ = _answer(port, request)
        print(f"  {name + ':':22s} {status} {kind}")


WATCHED = 8.0  # seconds a connection is watched for being closed


def _closed_after(sock: socket.socket) -> str:
    """How long until the server closes ``sock`` (reading and dropping what it answers)."""
    started = time.monotonic()
    sock.settimeout(0.2)
    while (waited := time.monotonic() - started) < WATCHED:
        try:
            if not sock.recv(65536):
                return f"closed by the server after {waited:.1f} s"
        except TimeoutError:
            continue
        except OSError:
            return f"reset by the server after {waited:.1f} s"
    return f"still open after {WATCHED:g} s"


def guarantees(port: int, cap: int) -> None:
    """Print what the server's own connection limits do."""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(ATTACK_BOARD.replace(b"Connection: close\r\n", b""))
        print(f"a kept-alive connection idle after its answer:  {_closed_after(sock)}")
    with socket.create_connection(("127.0.0.1", port)) as sock:
        print(f"a new connection that sends nothing:            {_closed_after(sock)}")
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: b\r\nX-Slow: ")
        print(f"a connection that sends half a head:            {_closed_after(sock)}")
    silent = [socket.create_connection(("127.0.0.1", port)) for _ in range(cap)]
    try:
        time.sleep(0.5)
        answers = [_answer(port, ATTACK_BOARD, timeout=5) for _ in range(20)]
        print(f"another client's 20 requests while {cap:,} silent connections are open: {_tally(answers)}")
    finally:
        for sock in silent:
            sock.close()
    time.sleep(0.5)
    print(f"the same once they are closed:                  {_tally([_answer(port, ATTACK_BOARD) for _ in range(20)])}")


# -- fuzz -----------------------------------------------------------------------------------------
PATHS = [
    "/", "/health", "/api/v1/variants", "/api/v1/3x3", "/api/v1/3X3", "/api/v1/3x3k3", "/api/v1/4x4",
    "/api/v1/3x3/batch", "/api/v1/9x9/batch", "/docs", "/docs/assets/swagger-ui.css", "/openapi.json",
    "/static/app.js", "/static/../app.py", "/nowhere", "/api/v1/%00", "/api/v1/%ff", "/api", "//api/v1/3x3",
]  # fmt: skip
METHODS = ["GET"] * 6 + ["HEAD", "POST", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE", "BREW"]
CELLS = "XO.xo-_/| \t0\x00é"


def _text(rng: random.Random, alphabet: str, most: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(rng.choice([0, 1, 5, 9, 12, 16, most])))


def _quoted(text: str) -> str:
    from urllib.parse import quote

    return quote(text, safe="") if text.isascii() else text.encode("utf-8", "surrogatepass").decode("latin-1")


def _query(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.choice([0, 1, 1, 1, 2, 3])):
        name = rng.choice(["board", "board", "moves", "moves", "junk", "b", "", "board[]"])
        value = _text(rng, CELLS, 300) if name != "moves" else _text(rng, "0123456789,- x", 60)
        parts.append(f"{name}={_quoted(value)}" if rng.random() < 0.95 else name)
    if rng.random() < 0.03:
        parts.append("j=" + "j" * rng.choice([1000, 2100, 9000]))
    return "&".join(parts)


def _body(rng: random.Random) -> bytes:
    kind = rng.random()
    if kind < 0.5:
        boards: list[object] = [_text(rng, CELLS, 40) for _ in range(rng.choice([0, 1, 3, 50]))]
        if rng.random() < 0.2:
            boards.append(rng.choice([1, None, [], {}, True, 1e308]))
        return json.dumps({"boards": boards} if rng.random() < 0.9 else {"board": boards}).encode()
    if kind < 0.6:
        return b"[" * 5000 + b"]" * 5000
    if kind < 0.7:
        return b'{"boards": ["X\xe9..O...."]}'
    if kind < 0.8:
        return json.dumps({"boards": [_text(rng, CELLS, 9)]})[: rng.randrange(1, 20)].encode()
    return bytes(rng.randrange(256) for _ in range(rng.choice([0, 10, 100])))


def _request(rng: random.Random) -> bytes:
    if rng.random() < 0.1:  # malformed: random bytes, or a request with one thing broken
        broken = [
            bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200))),
            b"GET /health HTTP/1.1\r\nHost: a\r\nX: " + bytes([rng.randrange(32)]) + b"\r\n\r\n",
            b"POST /api/v1/3x3/batch HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
            b"GET /" + b"a" * rng.choice([9000, 100_000]) + b" HTTP/1.1\r\n\r\n",
            b"GET /health HTTP/9.9\r\n\r\n",
            b"GET /health\r\n\r\n",
        ]
        return rng.choice(broken)
    method = rng.choice(METHODS)
    path = rng.choice(PATHS) + rng.choice(["", "", "", "/"])
    query = _query(rng)
    target = path + ("?" + query if query or rng.random() < 0.05 else "")
    headers = [f"Host: {rng.choice(['bench', 'evil.example', '[::1]:1', 'x' * 200])}", "Connection: close"]
    if rng.random() < 0.3:
        headers.append("If-None-Match: " + rng.choice(["*", 'W/"x"', '"00"', ""]))
    if rng.random() < 0.2:
        headers.append(f"Origin: {rng.choice(['https://a.example', 'null', ''])}")
    body = b""
    if method in ("POST", "PUT", "PATCH") or rng.random() < 0.05:
        body = _body(rng)
        if rng.random() < 0.85:
            headers.append(f"Content-Type: {rng.choice(['application/json'] * 4 + ['text/plain', ''])}")
        headers.append(f"Content-Length: {len(body)}")
    head = f"{method} {target} HTTP/1.1\r\n" + "".join(h + "\r\n" for h in headers) + "\r\n"
    return head.encode("latin-1", "replace") + body


def fuzz(port: int, count: int, seed: int, log: Path | None) -> None:
    """Send ``count`` random requests and count what came back."""
    rng = random.Random(seed)
    statuses: Counter[str] = Counter()
    plain: Counter[str] = Counter()
    started = time.perf_counter()
    for _ in range(count):
        request = _request(rng)
        status, kind, _seconds = _answer(port, request, timeout=15)
        statuses[status] += 1
        is_head = request.startswith(b"HEAD ")
        if status.isdigit() and int(status) >= 400 and not kind.startswith("json") and not is_head:
            plain[f"{status} {request[:60]!r}"] += 1
    seconds = time.perf_counter() - started
    print(f"{count:,} random requests in {seconds:.0f} s (seed {seed}): by status {dict(sorted(statuses.items()))}")
    print(f"5xx: {sum(n for s, n in statuses.items() if s.startswith('5'))}; errors not in JSON: {sum(plain.values())}")
    for what, n in plain.most_common(5):
        print(f"  {n} x {what}")
    if log is not None:
        text = log.read_text(errors="replace")
        print(f"tracebacks in the server's log: {text.count('Traceback')}; its lines: {len(text.splitlines())}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="3x3 database (default: build one in a temporary directory)")
    parser.add_argument("--url", help="a running server, e.g. http://127.0.0.1:8000")
    parser.add_argument("--pid", type=int, help="with --url: the server's process, to read its memory")
    parser.add_argument("--fuzz", type=int, metavar="N", help="send N random requests instead of the attacks")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--guarantees", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument(
        "--cap", type=int, default=Limits.max_concurrency, help="the server's concurrency cap (default: serve's)"
    )
    args = parser.parse_args()
    if args.url:
        port = int(args.url.rstrip("/").rsplit(":", 1)[1])
        fuzz(port, args.fuzz, args.seed, None) if args.fuzz else attack(port, args.pid)
        if args.guarantees and not args.fuzz:
            guarantees(port, args.cap)
        return
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db
        if db is None:
            from ttt_solver.builder.build import build

            db = str(Path(tmp) / "ttt.sqlite")
            build(db)
        log = Path(tmp) / "server.log"
        with log.open("w") as sink, running_server(db, log=sink) as (port, pid):
            if args.fuzz:
                fuzz(port, args.fuzz, args.seed, log)
            else:
                attack(port, pid)
                if args.guarantees:
                    guarantees(port, args.cap)
                text = log.read_text(errors="replace")
                print(f"tracebacks in the server's log: {text.count('Traceback')}; its lines: {len(text.splitlines())}")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    main()
