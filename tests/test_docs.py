"""The documentation site builds with warnings as errors, and what it generates from the code
is there: every command of ``ttt-lookup`` (mkdocs-click over the click group), the Python API
(mkdocstrings over the docstrings) and the OpenAPI schema the server serves."""

from __future__ import annotations

import json
import os
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
    page = (site / "cli-reference" / "index.html").read_text(encoding="utf-8")
    with click.Context(cli) as ctx:
        names = cli.list_commands(ctx)
    assert len(names) > 5
    assert [name for name in names if f'id="{name}"' not in page] == []


def test_the_python_reference_documents_the_public_names(site: Path) -> None:
    import ttt_solver

    page = (site / "api" / "index.html").read_text(encoding="utf-8")
    public = [name for name in ttt_solver.__all__ if not name.startswith("_")]
    assert [name for name in public if f'id="ttt_solver.{name}"' not in page] == []
    assert 'id="ttt_solver.Oracle.best_moves"' in page and 'id="ttt_solver.Oracle.preferred_moves"' in page


def test_the_http_page_holds_the_schema_the_app_serves(site: Path) -> None:
    from ttt_solver.web.app import create_app

    served = create_app({}).openapi()
    assert json.loads((site / "openapi.json").read_text(encoding="utf-8")) == served
    page = (site / "http-api" / "index.html").read_text(encoding="utf-8")
    assert all(path in page for path in served["paths"])
