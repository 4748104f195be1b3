"""The user's data and cache folders are the platform's (platformdirs'): XDG on Linux, the
Library on macOS; a source checkout keeps its databases in its own data/ folder."""

from __future__ import annotations

import os
import sys

import platformdirs
import platformdirs.macos
import pytest

from ttt_solver.game.variant import Variant
from ttt_solver.store import paths
from ttt_solver.store.cache_folder import cache_folder, content_folder


@pytest.fixture
def installed(monkeypatch, tmp_path):
    """An installed copy (no checkout around it), a home of its own and no XDG variables."""
    monkeypatch.setattr(paths, "_CHECKOUT", str(tmp_path / "site-packages"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for name in ("XDG_DATA_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / "home"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the XDG folders are Linux's")
def test_on_linux_the_folders_follow_the_xdg_variables(installed, monkeypatch, tmp_path):
    assert paths.data_folder() == str(installed / ".local" / "share" / "ttt-solver")
    assert cache_folder() == str(installed / ".cache" / "ttt-solver")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert paths.database_file(Variant.parse("4x4")) == str(tmp_path / "data" / "ttt-solver" / "4x4.sqlite")
    assert content_folder("3x3", "ab" * 20) == str(tmp_path / "cache" / "ttt-solver" / f"3x3-{'ab' * 12}")
    # The XDG spec: a relative path is invalid and ignored.
    monkeypatch.setenv("XDG_DATA_HOME", "data")
    monkeypatch.setenv("XDG_CACHE_HOME", "cache")
    assert paths.data_folder() == str(installed / ".local" / "share" / "ttt-solver")
    assert cache_folder() == str(installed / ".cache" / "ttt-solver")


def test_on_macos_the_folders_are_in_the_library(installed, monkeypatch):
    monkeypatch.setattr(platformdirs, "PlatformDirs", platformdirs.macos.MacOS)  # what it is on a Mac
    assert paths.data_folder() == os.path.join(installed, "Library", "Application Support", "ttt-solver")
    assert paths.database_file() == os.path.join(
        installed, "Library", "Application Support", "ttt-solver", "ttt.sqlite"
    )
    assert cache_folder() == os.path.join(installed, "Library", "Caches", "ttt-solver")


def test_a_source_checkout_keeps_its_databases_in_its_data_folder(tmp_path, monkeypatch):
    for name in ("build_db.py", "pyproject.toml"):
        (tmp_path / name).touch()
    monkeypatch.setattr(paths, "_CHECKOUT", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "elsewhere"))
    assert paths.data_folder() == str(tmp_path / "data")
