"""Shared fixtures: one solved 3x3 database per test session."""

from __future__ import annotations

from pathlib import Path

import pytest

from ttt_solver.build import build


@pytest.fixture(scope="session")
def db_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A freshly built standard (3x3) database; treat it as read-only (copy it to tamper with it)."""
    path = tmp_path_factory.mktemp("db") / "ttt.sqlite"
    build(path)
    return path
