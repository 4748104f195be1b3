"""``ttt-lookup serve``: its options, its errors, the [web] extra imported only when it runs, and
the response cache answering exactly what the app answers."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import urllib.request

import pytest
from click.testing import CliRunner
from web_support import served_for

from ttt_solver.cli import cli

pytest.importorskip("fastapi")
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
    loading, ready = result.stderr.splitlines()
    assert loading == f"ttt-lookup serve: loading 3x3 from {db_path}: proving its 765 positions for batch lookups"
    assert re.fullmatch(r"ttt-lookup serve: 3x3 on http://127\.0\.0\.1:[1-9]\d*/ \(Ctrl-C stops\)", ready)
    assert not server.config.access_log
    response = TestClient(server.config.app).get("/api/v1/variants")
    assert [v["name"] for v in response.json()["variants"]] == ["3x3"]


def test_serve_without_the_web_extra_names_it_and_how_to_install_it(monkeypatch, started):
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # as if it were not installed
    monkeypatch.delitem(sys.modules, "ttt_solver.web.server", raising=False)
    monkeypatch.delitem(sys.modules, "ttt_solver.web.protocol", raising=False)
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
            lines = [server.stderr.readline() for _ in range(2)]
            assert lines[0].startswith("ttt-lookup serve: loading 3x3 from "), lines
            found = re.fullmatch(r"ttt-lookup serve: 3x3 on (http://127\.0\.0\.1:(\d+)/) \(Ctrl-C stops\)\n", lines[1])
            assert found is not None and found.group(2) != "0", lines
            with urllib.request.urlopen(found.group(1) + "health", timeout=10) as response:
                assert response.status == 200
            logged = server.stderr.readline()
            assert '"GET /health HTTP/1.1" 200' in logged, logged
        finally:
            server.terminate()
        assert server.wait(timeout=20) == 143 and server.stderr.read() == "Aborted!\n"  # as any command stops
        assert server.stdout.read() == ""


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--cors-origin", "example.org"], "Error: invalid --cors-origin 'example.org': expected scheme://host"),
        (["--cors-origin", "https://a.example/path"], "Error: invalid --cors-origin 'https://a.example/path'"),
        (["--cache-size", "lots"], "Error: invalid --cache-size 'lots': expected a size in bytes"),
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


def test_by_default_every_database_in_the_data_directory_is_served(db_path, tmp_path, monkeypatch):
    import shutil

    from ttt_solver.builder.build import build
    from ttt_solver.game.variant import Variant
    from ttt_solver.store import paths
    from ttt_solver.web.data import default_databases, open_all

    monkeypatch.setattr(paths, "data_folder", lambda: str(tmp_path))
    found = default_databases()  # no 3x3 database yet: built on first use
    assert found == [(tmp_path / "ttt.sqlite", Variant.parse("3x3"))] and found[0][0].is_file()
    build(tmp_path / "3x3-misere.sqlite", Variant.parse("3x3-misere"))
    shutil.copy(db_path, tmp_path / "notavariant.sqlite")  # ignored: the name is no variant
    assert list(open_all()) == ["3x3", "3x3-misere"]


def test_serve_variant_names_default_databases(db_path, tmp_path, monkeypatch, started):
    import shutil

    from ttt_solver.store import paths

    monkeypatch.setattr(paths, "data_folder", lambda: str(tmp_path))
    shutil.copy(db_path, tmp_path / "ttt.sqlite")
    assert CliRunner().invoke(cli, ["serve", "--variant", "3x3", "--port", "0"]).exit_code == 0
    missing = CliRunner().invoke(cli, ["serve", "--variant", "4x4k3", "--port", "0"])
    assert missing.exit_code == 1 and missing.stderr.startswith("Error: no database at ")
    bad = CliRunner().invoke(cli, ["serve", "--variant", "2x2"])
    assert bad.exit_code == 2 and bad.stderr.startswith("Error: ")
