"""``ttt-lookup serve``: its options, its errors, the [web] extra imported only when it runs, and
the response cache answering exactly what the app answers."""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import sys
import urllib.request

import pytest
from click.testing import CliRunner
from support.extra_markers import need
from support.web_servers import served_for

from ttt_solver.cli import cli

pytestmark = pytest.mark.web
need("web", "fastapi")
from fastapi.testclient import TestClient

from ttt_solver.web import server as web_server
from ttt_solver.web.app import create_app


@pytest.fixture
def started(monkeypatch):
    """``serve`` up to the point where it would serve: the servers it made, said ready at once."""
    servers = []

    def ready_at_once(self):
        servers.append(self)
        self.on_ready(web_server.url_of(self.sock))

    monkeypatch.setattr(web_server.Server, "serve_forever", ready_at_once)
    return servers


def test_serve_binds_to_127_0_0_1_by_default_and_serves_the_given_database(db_path, started):
    result = CliRunner().invoke(cli, ["serve", "--db", str(db_path), "--port", "0"])
    assert result.exit_code == 0, result.output
    (server,) = started
    assert server.sock.fileno() == -1  # closed on the way out
    (ready,) = result.stderr.splitlines()  # ready before any database is opened
    assert re.fullmatch(r"ttt-lookup serve: 3x3 on http://127\.0\.0\.1:[1-9]\d*/ \(Ctrl-C stops\)", ready)
    assert not server.config.access_log
    client = TestClient(server.config.app)
    (listed,) = client.get("/api/v1/variants").json()["variants"]
    assert (listed["name"], listed["status"], listed["meta"]) == ("3x3", "not loaded", None)
    assert client.get("/api/v1/3x3?board=X...O....").status_code == 200  # opened now (waited for: it is small)
    (listed,) = client.get("/api/v1/variants").json()["variants"]
    assert listed["status"] == "ready" and listed["meta"]["positions"] == 765


def test_serve_without_the_web_extra_names_it_and_how_to_install_it(monkeypatch, started):
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # as if it were not installed
    monkeypatch.delitem(sys.modules, "ttt_solver.web.server", raising=False)
    result = CliRunner().invoke(cli, ["serve"])
    assert result.exit_code == 2
    assert result.stderr == (
        "Error: serve needs uvicorn from the [web] extra: pip install fastapi uvicorn uvloop httptools"
        " fastapi-offline (or, in a source checkout, pip install -e '.[web]')\n"
    )


def test_a_port_in_use_is_one_error_line_before_anything_is_loaded(db_path, started):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(cli, ["serve", "--db", str(db_path), "--port", str(port)])
    assert result.exit_code == 1 and not started and result.stdout == ""
    assert result.stderr == (
        f"Error: cannot listen on 127.0.0.1:{port}: Address already in use (another program is using it;"
        " choose another with --port, or --port 0 for any free one)\n"
    )


@pytest.mark.parametrize("db", ["sqlite://", "bad\x00name.sqlite", "folder/"])
def test_a_bad_db_is_bad_input_before_the_port_is_tried(db, started):
    """A --db no database can be (exit code 2) is said first, even with the port taken."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(cli, ["serve", "--db", db, "--port", str(port)])
    assert result.exit_code == 2 and not started and result.stdout == "", result.output
    assert result.stderr.startswith("Error: ") and "cannot listen" not in result.stderr
    assert result.stderr.count("\n") == 1


def test_an_unknown_host_is_one_error_line(db_path, started):
    result = CliRunner().invoke(cli, ["serve", "--db", str(db_path), "--host", "no-such-host.invalid"])
    assert result.exit_code == 1 and not started
    assert result.stderr.startswith("Error: cannot listen on no-such-host.invalid:8000: unknown host (")
    assert result.stderr.count("\n") == 1


def test_serve_on_port_0_prints_the_real_address_and_logs_requests_when_asked(db_path):
    command = [sys.executable, "-m", "ttt_solver.cli", "serve", "--db", str(db_path), "--port", "0", "--access-log"]
    with subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as server:
        try:
            line = server.stderr.readline()
            found = re.fullmatch(r"ttt-lookup serve: 3x3 on (http://127\.0\.0\.1:(\d+)/) \(Ctrl-C stops\)\n", line)
            assert found is not None and found.group(2) != "0", line
            with urllib.request.urlopen(found.group(1) + "health", timeout=10) as response:
                assert response.status == 200
            logged = server.stderr.readline()
            assert '"GET /health HTTP/1.1" 200' in logged, logged
            with urllib.request.urlopen(found.group(1) + "api/v1/3x3?board=X...O....", timeout=10) as response:
                assert response.status == 200
            lines = [server.stderr.readline() for _ in range(3)]  # the database opened on first use, with progress
            assert (
                lines[0]
                == f"ttt-lookup serve: loading 3x3 from {db_path}: proving its 765 positions for batch lookups\n"
            )
            # The batch tables are made in the background while the request is answered: the
            # request's log line and "ready" come in either order.
            ready, logged = sorted(lines[1:], key=lambda line: "GET" in line)
            assert re.fullmatch(r"ttt-lookup serve: 3x3 ready \(\d+\.\d s\)\n", ready), lines
            assert '"GET /api/v1/3x3?board=X...O.... HTTP/1.1" 200' in logged, lines
        finally:
            server.terminate()
        assert server.wait(timeout=20) == 143 and server.stderr.read() == "Aborted!\n"  # as any command stops
        assert server.stdout.read() == ""


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--cors-origin", "example.org"], "Error: invalid --cors-origin 'example.org': expected scheme://host"),
        (["--cors-origin", "https://a.example/path"], "Error: invalid --cors-origin 'https://a.example/path'"),
        (["--cache-size", "lots"], "Error: invalid --cache-size 'lots': expected a size: ASCII digits and a unit"),
    ],
)
def test_bad_options_are_one_error_line(db_path, started, option, message):
    result = CliRunner().invoke(cli, ["serve", "--db", str(db_path), *option])
    assert result.exit_code == 2 and not started
    assert result.stderr.startswith(message) and result.stderr.count("\n") == 1


def test_cache_size_and_cors_origins_reach_the_app(db_path, started):
    options = ["--cache-size", "1K", "--cors-origin", "https://a.example", "--cors-origin", "http://b.example:8080"]
    assert CliRunner().invoke(cli, ["serve", "--db", str(db_path), "--port", "0", *options]).exit_code == 0
    client = TestClient(started[0].config.app)
    for origin in ("https://a.example", "http://b.example:8080"):
        answer = client.get("/api/v1/3x3?board=X........", headers={"Origin": origin})
        assert answer.headers["access-control-allow-origin"] == origin
    assert "access-control-allow-origin" not in client.get("/health", headers={"Origin": "https://c.example"}).headers


def test_serve_with_a_missing_database_is_one_line(tmp_path, started):
    result = CliRunner().invoke(cli, ["serve", "--db", str(tmp_path / "none.sqlite"), "--port", "0"])
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert result.stderr.startswith("Error: no database at ")


def test_two_databases_of_one_variant_are_refused(db_path, started):
    result = CliRunner().invoke(cli, ["serve", "--db", str(db_path), "--db", str(db_path), "--port", "0"])
    assert result.exit_code == 1 and result.stderr.startswith("Error: two databases for variant '3x3'")


def test_analyze_never_imports_the_web_package(db_path):
    code = f"""
import sys
from click.testing import CliRunner
from ttt_solver.cli import cli
assert CliRunner().invoke(cli, ["analyze", "X...O....", "--json", "--db", {str(db_path)!r}]).exit_code == 0
print(" ".join(m for m in ("ttt_solver.web", "fastapi", "uvicorn", "starlette") if m in sys.modules))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == []


def test_cached_answers_are_the_apps_answers(db_path):
    cached = TestClient(create_app(served_for(db_path, None)))
    fresh = TestClient(create_app(served_for(db_path, None), cache_bytes=0))
    for url in ["/api/v1/3x3?board=X...O....", "/api/v1/3x3?moves=4,0", "/api/v1/variants", "/api/v1/3x3?board=XX"]:
        first, again, computed = cached.get(url), cached.get(url), fresh.get(url)
        assert first.content == again.content == computed.content, url
        assert first.status_code == again.status_code == computed.status_code, url
        assert {k: v for k, v in again.headers.items()} == {k: v for k, v in computed.headers.items()}, url
    tag = cached.get("/api/v1/3x3?board=X...O....").headers["etag"]
    hit = cached.get("/api/v1/3x3?board=X...O....", headers={"If-None-Match": f'"other", {tag}'})
    miss = fresh.get("/api/v1/3x3?board=X...O....", headers={"If-None-Match": f'"other", {tag}'})
    assert hit.status_code == miss.status_code == 304 and hit.headers["etag"] == miss.headers["etag"] == tag


def serve_in_a_child(data_folder, requests: list[str]) -> list:
    """``ttt-lookup serve`` with no flags over ``data_folder``, in a fresh Python, its app asked
    ``requests`` in process: [the ready line, (status, JSON body) per request, the builder's
    modules imported]."""
    code = f"""
import json, sys
from fastapi.testclient import TestClient
from ttt_solver.store import paths
from ttt_solver.web import server

paths.data_folder = lambda: {str(data_folder)!r}
found = []
def answer(self):
    self.on_ready(server.url_of(self.sock))
    client = TestClient(self.config.app)
    for url in {requests!r}:
        response = client.get(url)
        found.append([response.status_code, response.json()])
server.Server.serve_forever = answer
from click.testing import CliRunner
from ttt_solver.cli import cli
result = CliRunner().invoke(cli, ["serve", "--port", "0"])
builder = sorted(m for m in sys.modules if m.startswith(("ttt_solver.build", "ttt_solver.builder")))
print(json.dumps([result.stderr.strip(), found, builder]))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    return json.loads(done.stdout)


def test_serve_with_no_flags_serves_the_data_folder_and_never_builds(db_path, tmp_path):
    ready, found, builder = serve_in_a_child(tmp_path, ["/api/v1/variants", "/api/v1/3x3?board=X...O...."])
    assert ready.startswith("ttt-lookup serve: no database yet (build one with: ttt-lookup build --variant 3x3) on ")
    assert found == [
        [200, {"variants": []}],
        [404, {"error": f"no database for variant '3x3' in {tmp_path}: build it with: ttt-lookup build"}],
    ]
    assert builder == [] and list(tmp_path.iterdir()) == []  # nothing built, nothing written


def test_serve_with_no_flags_opens_each_variant_when_first_asked(db_path, variant_db, tmp_path):
    shutil.copy(db_path, tmp_path / "ttt.sqlite")
    shutil.copy(variant_db("3x3-misere"), tmp_path / "3x3-misere.sqlite")
    shutil.copy(db_path, tmp_path / "notavariant.sqlite")  # ignored: the name is no variant
    asked = ["/api/v1/variants", "/api/v1/3x3-misere?moves=4", "/api/v1/variants", "/api/v1/4x4?moves=0"]
    said, found, builder = serve_in_a_child(tmp_path, asked)
    ready, loading, loaded = said.splitlines()
    assert re.fullmatch(r"ttt-lookup serve: 3x3, 3x3-misere on http://127\.0\.0\.1:\d+/ \(Ctrl-C stops\)", ready)
    database = tmp_path / "3x3-misere.sqlite"
    assert (
        loading == f"ttt-lookup serve: loading 3x3-misere from {database}: proving its 765 positions for batch lookups"
    )
    assert re.fullmatch(r"ttt-lookup serve: 3x3-misere ready \(\d+\.\d s\)", loaded)
    before, misere, after, missing = found
    assert [(v["name"], v["status"], v["meta"]) for v in before[1]["variants"]] == [
        ("3x3", "not loaded", None),
        ("3x3-misere", "not loaded", None),
    ]
    assert misere[0] == 200 and misere[1]["board"] == "....X...."
    assert [(v["name"], v["status"]) for v in after[1]["variants"]] == [("3x3", "not loaded"), ("3x3-misere", "ready")]
    assert missing == [
        404,
        {"error": f"no database for variant '4x4' in {tmp_path}: build it with: ttt-lookup build --variant 4x4"},
    ]
    assert builder == []


def test_serve_variant_names_default_databases(db_path, tmp_path, monkeypatch, started):
    from ttt_solver.store import paths

    monkeypatch.setattr(paths, "data_folder", lambda: str(tmp_path))
    shutil.copy(db_path, tmp_path / "ttt.sqlite")
    assert CliRunner().invoke(cli, ["serve", "--variant", "3x3", "--port", "0"]).exit_code == 0
    missing = CliRunner().invoke(cli, ["serve", "--variant", "4x4k3", "--port", "0"])
    assert missing.exit_code == 1 and missing.stderr.startswith("Error: no database at ")
    bad = CliRunner().invoke(cli, ["serve", "--variant", "2x2"])
    assert bad.exit_code == 2 and bad.stderr.startswith("Error: ")
