"""``ttt-lookup serve``: its options, its errors, the [web] extra imported only when it runs, and
the response cache answering exactly what the app answers."""

from __future__ import annotations

import subprocess
import sys

import pytest
from click.testing import CliRunner
from web_support import served_for

from ttt_solver.cli import cli

pytest.importorskip("fastapi")
import uvicorn
from fastapi.testclient import TestClient

from ttt_solver.web.app import create_app


def test_serve_binds_to_127_0_0_1_by_default_and_serves_the_given_database(db_path, monkeypatch):
    calls = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: calls.append((app, options)))
    result = CliRunner().invoke(cli, ["serve", "--db", str(db_path)])
    assert result.exit_code == 0, result.output
    ((app, options),) = calls
    assert (options["host"], options["port"]) == ("127.0.0.1", 8000)
    assert result.stderr == "ttt-lookup serve: 3x3 on http://127.0.0.1:8000/ (Ctrl-C stops)\n"
    response = TestClient(app).get("/api/v1/variants")
    assert [v["name"] for v in response.json()["variants"]] == ["3x3"]


def test_serve_without_the_web_extra_names_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # as if it were not installed
    result = CliRunner().invoke(cli, ["serve"])
    assert result.exit_code == 2
    assert result.stderr == "Error: serve needs uvicorn from the [web] extra: pip install -e '.[web]'\n"


def test_serve_with_a_missing_database_is_one_line(tmp_path):
    result = CliRunner().invoke(cli, ["serve", "--db", str(tmp_path / "none.sqlite")])
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert result.stderr.startswith("Error: no database at ")


def test_two_databases_of_one_variant_are_refused(db_path):
    result = CliRunner().invoke(cli, ["serve", "--db", str(db_path), "--db", str(db_path)])
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
    fresh = TestClient(create_app(served_for(db_path, None), cache_size=0))
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

    from ttt_solver import paths
    from ttt_solver.build import build
    from ttt_solver.game.variant import Variant
    from ttt_solver.web.data import default_databases, open_all

    monkeypatch.setattr(paths, "data_folder", lambda: str(tmp_path))
    found = default_databases()  # no 3x3 database yet: built on first use
    assert found == [(tmp_path / "ttt.sqlite", Variant.parse("3x3"))] and found[0][0].is_file()
    build(tmp_path / "3x3-misere.sqlite", Variant.parse("3x3-misere"))
    shutil.copy(db_path, tmp_path / "notavariant.sqlite")  # ignored: the name is no variant
    assert list(open_all()) == ["3x3", "3x3-misere"]


def test_serve_variant_names_default_databases(db_path, tmp_path, monkeypatch):
    import shutil

    from ttt_solver import paths

    monkeypatch.setattr(paths, "data_folder", lambda: str(tmp_path))
    shutil.copy(db_path, tmp_path / "ttt.sqlite")
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: None)
    assert CliRunner().invoke(cli, ["serve", "--variant", "3x3"]).exit_code == 0
    missing = CliRunner().invoke(cli, ["serve", "--variant", "4x4k3"])
    assert missing.exit_code == 1 and missing.stderr.startswith("Error: no database at ")
    bad = CliRunner().invoke(cli, ["serve", "--variant", "2x2"])
    assert bad.exit_code == 2 and bad.stderr.startswith("Error: ")
