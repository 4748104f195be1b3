"""Shared fixtures: one solved database per variant and test session (3x3, 4x4, and any other
through ``variant_db``)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from ttt_solver import Oracle
from ttt_solver.build import build
from ttt_solver.variant import Variant

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def db_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A freshly built standard (3x3) database; treat it as read-only (copy it to tamper with it)."""
    path = tmp_path_factory.mktemp("db") / "ttt.sqlite"
    build(path)
    return path


@pytest.fixture(scope="session")
def variant_db(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """``variant_db("3x4k3")``: that variant's database, built on first use in the session (read-only)."""
    built: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in built:
            path = tmp_path_factory.mktemp("variant") / f"{name}.sqlite"
            build(path, Variant.parse(name))
            built[name] = path
        return built[name]

    return get


@pytest.fixture(scope="session")
def db_4x4(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess]:
    """4x4 built once, through the script (about 15 s)."""
    path = tmp_path_factory.mktemp("4x4") / "4x4.sqlite"
    run = subprocess.run(
        [sys.executable, str(ROOT / "build_db.py"), "--variant", "4x4", "--db", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    return path, run


@pytest.fixture(scope="session")
def eager_4x4(db_4x4: tuple[Path, subprocess.CompletedProcess]) -> Oracle:
    return Oracle.load(db_4x4[0], "4x4")


@pytest.fixture(scope="session")
def lazy_4x4(db_4x4: tuple[Path, subprocess.CompletedProcess]) -> Oracle:
    return Oracle.load(db_4x4[0], "4x4", eager=False)
