"""The reverse proxy of ``docs/deploy.md``: nginx started with the sample configuration
``docs/deploy/nginx.conf`` (only its ports and certificate paths changed: a self-signed one on
loopback ports) in front of a real ``ttt-lookup serve``. A lookup goes through it over TLS, plain
HTTP is redirected to HTTPS, and what only the proxy enforces answers in the API's JSON error
shape: the per-address request rate (429), the body size (413, before the server), a malformed
request (400) and a request line over 8 KB (414)."""

from __future__ import annotations

import http.client
import json
import re
import shutil
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.extra_markers import need

need("web", "fastapi")

NGINX = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/local/sbin")
OPENSSL = shutil.which("openssl")
pytestmark = [
    pytest.mark.web,
    pytest.mark.skipif(
        NGINX is None or OPENSSL is None,
        reason="nginx (apt-get install nginx) and openssl are needed to try docs/deploy/nginx.conf",
    ),
]
SAMPLE = Path(__file__).resolve().parents[2] / "docs" / "deploy" / "nginx.conf"
BOARD = "/api/v1/3x3?board=X...O...."


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for_port(port: int, process: subprocess.Popen, what: str) -> None:
    deadline = time.monotonic() + 20
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            assert process.poll() is None, f"{what} exited with code {process.returncode}"
            assert time.monotonic() < deadline, f"{what} did not listen on port {port}"
            time.sleep(0.05)


def site_config(serve_port: int, http_port: int, https_port: int, cert: Path, key: Path) -> str:
    """The sample with its ports and certificate paths changed, each exactly where it stands."""
    text = SAMPLE.read_text()
    changes = {
        "listen 80;": f"listen 127.0.0.1:{http_port};",
        "listen 443 ssl;": f"listen 127.0.0.1:{https_port} ssl;",
        "server 127.0.0.1:8000;": f"server 127.0.0.1:{serve_port};",
        "/etc/letsencrypt/live/example.org/fullchain.pem": str(cert),
        "/etc/letsencrypt/live/example.org/privkey.pem": str(key),
    }
    for old, new in changes.items():
        assert text.count(old) == 1, f"the sample no longer holds {old!r} once"
        text = text.replace(old, new)
    return text


@pytest.fixture(scope="module")
def proxy(db_path, tmp_path_factory):
    """(https port, http port) of nginx in front of ``ttt-lookup serve --db db_path``."""
    tmp = tmp_path_factory.mktemp("nginx")
    command = [sys.executable, "-m", "ttt_solver.cli", "serve", "--db", str(db_path), "--port", "0"]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    nginx = None
    try:
        ready = server.stderr.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", ready)
        assert found is not None, ready
        cert, key = tmp / "cert.pem", tmp / "key.pem"
        subprocess.run(
            [OPENSSL, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=example.org"]
            + ["-keyout", str(key), "-out", str(cert)],
            check=True,
            capture_output=True,
        )
        http_port, https_port = free_port(), free_port()
        (tmp / "site.conf").write_text(site_config(int(found.group(1)), http_port, https_port, cert, key))
        temp = "".join(
            f"{kind}_temp_path {tmp / kind};\n" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        (tmp / "nginx.conf").write_text(
            f"daemon off;\nworker_processes 1;\npid {tmp / 'nginx.pid'};\nerror_log {tmp / 'error.log'};\n"
            f"events {{ worker_connections 256; }}\n"
            f"http {{\n{temp}access_log off;\ninclude {tmp / 'site.conf'};\n}}\n"
        )
        checked = subprocess.run(
            [NGINX, "-t", "-p", str(tmp), "-c", str(tmp / "nginx.conf")], check=False, capture_output=True, text=True
        )
        assert checked.returncode == 0, checked.stderr
        nginx = subprocess.Popen([NGINX, "-p", str(tmp), "-c", str(tmp / "nginx.conf")], stderr=subprocess.PIPE)
        wait_for_port(https_port, nginx, "nginx")
        yield https_port, http_port
    finally:
        if nginx is not None:
            nginx.terminate()
            nginx.wait(timeout=20)
        server.terminate()
        server.wait(timeout=20)


def connect(port: int) -> http.client.HTTPSConnection:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # the test's own self-signed certificate
    return http.client.HTTPSConnection("127.0.0.1", port, timeout=10, context=context)


def ask(conn: http.client.HTTPConnection, method: str, url: str, body: bytes | None = None, **headers: str):
    conn.request(method, url, body=body, headers={"Host": "example.org", **headers})
    response = conn.getresponse()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()


def test_a_lookup_goes_through_the_proxy_over_tls(proxy):
    https_port, http_port = proxy
    status, headers, body = ask(connect(https_port), "GET", BOARD)
    assert status == 200 and headers["server"] == "nginx" and headers["content-type"] == "application/json"
    assert json.loads(body)["board"] == "X...O...." and json.loads(body)["value"] == 0
    plain = http.client.HTTPConnection("127.0.0.1", http_port, timeout=10)
    status, headers, _ = ask(plain, "GET", BOARD)
    assert status == 301 and headers["location"] == f"https://example.org{BOARD}"  # never the Host a client sends


def test_the_proxy_limits_each_address_to_20_requests_a_second_in_json(proxy):
    time.sleep(2.5)  # the allowance the other tests used comes back
    conn = connect(proxy[0])
    answers = [ask(conn, "GET", BOARD) for _ in range(100)]  # in well under the 3 s that would allow them
    statuses = [status for status, _, _ in answers]
    assert set(statuses) == {200, 429} and 40 <= statuses.count(200) < 100, statuses
    _status, headers, body = next(answer for answer in answers if answer[0] == 429)
    assert headers["content-type"] == "application/json" and headers["retry-after"] == "1"
    assert json.loads(body) == {"error": "too many requests from this address: at most 20 a second; try again shortly"}


def test_the_proxy_refuses_a_body_over_1_mib_before_the_server_in_json(proxy):
    time.sleep(2.5)
    huge = b'{"boards": ["' + b"X" * (2 << 20) + b'"]}'
    status, headers, body = ask(
        connect(proxy[0]), "POST", "/api/v1/3x3/batch", huge, **{"Content-Type": "application/json"}
    )
    assert status == 413 and headers["content-type"] == "application/json"
    assert json.loads(body) == {"error": "request body too large: the limit is 1,048,576 bytes"}


@pytest.mark.parametrize(
    ("request_bytes", "status", "message"),
    [
        (b"GET /health HTTP/1.1\r\nHost: example.org\r\nX-Nul: a\x00b\r\n\r\n", 400, "malformed HTTP request"),
        (b"GET /?" + b"j" * 10_000 + b" HTTP/1.1\r\nHost: example.org\r\n\r\n", 414, "the request line is too long"),
    ],
)
def test_what_the_proxy_refuses_itself_is_json(proxy, request_bytes, status, message):
    """The parser's refusals, plain text from uvicorn alone, are JSON through the proxy."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    with socket.create_connection(("127.0.0.1", proxy[0]), timeout=10) as raw, context.wrap_socket(raw) as sock:
        sock.sendall(request_bytes)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.split(b" ")[1] == str(status).encode() and b"application/json" in head.lower(), head
    assert json.loads(body)["error"].startswith(message)
