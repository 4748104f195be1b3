"""The documentation site builds with warnings as errors, and what it generates from the code
is there: every command of ``ttt-lookup`` (mkdocs-click over the click group), the Python API
(mkdocstrings over the docstrings) and the OpenAPI schema the server serves. The site works
from its files with no network: code highlighted as it is built, search included, and nothing
loaded from another host."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest

from ttt_solver.cli import cli

# The site needs the [docs] extra, and its HTTP API page the [web] one (the app makes the schema).
pytestmark = [pytest.mark.docs, pytest.mark.web]
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built as CI builds it (``mkdocs build --strict``), from this checkout's code."""
    folder = tmp_path_factory.mktemp("site")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(folder)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return folder


def test_every_command_has_its_reference(site: Path) -> None:
    page = (site / "cli-reference.html").read_text(encoding="utf-8")
    with click.Context(cli) as ctx:
        names = cli.list_commands(ctx)
    assert len(names) > 5
    assert [name for name in names if f'id="{name}"' not in page] == []


def test_the_python_reference_documents_the_public_names(site: Path) -> None:
    import ttt_solver

    page = (site / "api.html").read_text(encoding="utf-8")
    public = [name for name in ttt_solver.__all__ if not name.startswith("_")]
    assert [name for name in public if f'id="ttt_solver.{name}"' not in page] == []
    assert 'id="ttt_solver.Oracle.best_moves"' in page and 'id="ttt_solver.Oracle.preferred_moves"' in page


def test_the_http_page_holds_the_schema_the_app_serves(site: Path) -> None:
    from ttt_solver.web.app import create_app

    served = create_app({}).openapi()
    assert json.loads((site / "openapi.json").read_text(encoding="utf-8")) == served
    page = (site / "http-api.html").read_text(encoding="utf-8")
    assert all(path in page for path in served["paths"])


# What makes a browser fetch: a script, a stylesheet, a font, an image or a frame (a link to read is no request).
LOADED = re.compile(
    r"<(?:script|img|iframe|source)\b[^>]*\bsrc=\"([^\"]*)\"|<link\b(?=[^>]*\brel=\"(?:stylesheet|preload|modulepreload|icon)\")"
    r"[^>]*\bhref=\"([^\"]*)\"|@import\s+(?:url\()?[\"']?([^\"')\s;]*)|url\([\"']?([^\"')]*)"
)


def loaded_from_elsewhere(text: str) -> list[str]:
    found = (url for groups in LOADED.findall(text) for url in groups if url)
    return [url for url in found if re.match(r"(?:[a-z][a-z0-9+.-]*:)?//", url, re.IGNORECASE)]


def test_the_site_loads_nothing_from_another_host(site: Path) -> None:
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 15
    styles = sorted(site.rglob("*.css"))
    assert styles
    assert [
        (str(path.relative_to(site)), url)
        for path in [*pages, *styles]
        for url in loaded_from_elsewhere(path.read_text(encoding="utf-8"))
    ] == []
    assert (site / "search" / "search_index.js").is_file()  # the offline plugin's index, read with no server


def test_the_code_is_highlighted_as_the_site_is_built(site: Path) -> None:
    page = (site / "install.html").read_text(encoding="utf-8")
    assert '<div class="highlight"><pre>' in page and '<span class="o">&amp;&amp;</span>' in page
    assert all("hljs" not in path.read_text(encoding="utf-8") for path in site.glob("*.html"))


def test_a_fetch_from_another_host_is_found() -> None:
    page = (
        '<script src="https://unpkg.com/iframe-worker/shim"></script><link rel="stylesheet" href="//cdn.x/a.css">'
        '<a href="https://example.org/">a link</a><script src="assets/main.js"></script>'
        "@import url(https://fonts.googleapis.com/css?family=Roboto); src: url('fonts/a.woff2')"
    )
    assert loaded_from_elsewhere(page) == [
        "https://unpkg.com/iframe-worker/shim",
        "//cdn.x/a.css",
        "https://fonts.googleapis.com/css?family=Roboto",
    ]
