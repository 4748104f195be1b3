"""The source distribution holds what its own tests need, and the metadata says what it is."""

from __future__ import annotations

import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def sdist(tmp_path_factory: pytest.TempPathFactory) -> tarfile.TarFile:
    """The sdist built by setuptools' own backend (what pip and ``python -m build`` call), about 2 s."""
    pytest.importorskip("setuptools", minversion="77", reason="the build backend pyproject.toml asks for")
    out = tmp_path_factory.mktemp("sdist")
    code = f"from setuptools import build_meta; print(build_meta.build_sdist({str(out)!r}))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "deprecated" not in done.stderr.lower(), done.stderr  # e.g. the table form of license
    return tarfile.open(out / done.stdout.split()[-1])


def members(sdist: tarfile.TarFile) -> set[str]:
    return {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}


def test_the_sdist_holds_every_test_and_what_the_tests_read(sdist):
    inside = members(sdist)
    needed = {"LICENSE", "README.md", "pyproject.toml", "build_db.py", "tests/conftest.py", "tests/reference.py"}
    needed |= {str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("*.py")}
    needed |= {str(p.relative_to(ROOT)) for p in (ROOT / "queries").glob("*.sql")}
    needed |= {str(p.relative_to(ROOT)) for p in (ROOT / "examples").glob("*.py")}
    assert needed - inside == set()
    assert not [name for name in inside if name.endswith((".sqlite", ".pyc"))]


def test_the_metadata_has_the_spdx_licence_and_classifiers(sdist):
    info = sdist.extractfile(next(n for n in sdist.getnames() if n.count("/") == 1 and n.endswith("/PKG-INFO")))
    assert info is not None
    headers = info.read().decode()
    assert "License-Expression: MIT" in headers and "License-File: LICENSE" in headers
    assert "Classifier: Typing :: Typed" in headers
    assert "Provides-Extra: openspiel" in headers and "Provides-Extra: sb3" in headers


def test_install_hints_name_commands_that_work():
    """ttt-solver is not on PyPI: no hint may tell users to pip install it by name."""
    sources = [*ROOT.glob("ttt_solver/**/*.py"), *ROOT.glob("examples/*.py"), ROOT / "README.md"]
    offending = [str(p.relative_to(ROOT)) for p in sources if "install 'ttt-solver[" in p.read_text(encoding="utf-8")]
    assert offending == []
