"""The source distribution holds what its own tests need, installs every file of the package,
and its tests pass there without the optional extras, run as ``pytest`` and as ``python -m pytest``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tarfile
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support.extra_markers import NOT_BUILT

ROOT = Path(__file__).resolve().parent.parent
# The modules each optional extra brings (the [test] extra holds pytest, hypothesis, psycopg, ...).
EXTRA_MODULES = {
    "web": ("fastapi", "starlette", "uvicorn", "uvloop", "httptools", "fastapi_offline"),
    "rl": ("gymnasium", "pettingzoo", "pygame"),
    "openspiel": ("pyspiel", "open_spiel"),
    "sb3": ("stable_baselines3", "sb3_contrib", "torch"),
    "plot": ("matplotlib",),
    "docs": ("mkdocs", "mkdocstrings", "mkdocs_click"),
    "dask": ("dask", "distributed"),
    "s3": ("s3fs", "moto"),
    "fast": ("isal",),
}
# Put first on PYTHONPATH, it makes them unimportable in every process of a run, as in an
# environment where only `pip install '.[test]'` ran; and it removes the import hooks of an
# editable install of ttt-solver (this checkout's), which would fill in whatever the sdist lacks.
WITHOUT_EXTRAS = """\
import sys

BLOCKED = {blocked!r}
EDITABLE = "__editable___ttt_solver"
sys.meta_path[:] = [f for f in sys.meta_path if not getattr(f, "__module__", "").startswith(EDITABLE)]
sys.path_hooks[:] = [h for h in sys.path_hooks if not getattr(h, "__module__", "").startswith(EDITABLE)]
sys.path[:] = [p for p in sys.path if not p.startswith("__editable__.ttt_solver")]


class WithoutExtras:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


sys.meta_path.insert(0, WithoutExtras)
"""


def build_sdist(folder: Path) -> None:
    """The sdist built by setuptools' own backend (what pip and ``python -m build`` call), unpacked
    as a packager or a user has it, and installed from there (``pip install .``: a wheel, not
    editable) into a folder of its own, beside a ``sitecustomize.py`` that hides the extras: about 3 s."""
    code = f"from setuptools import build_meta; print(build_meta.build_sdist({str(folder)!r}))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "deprecated" not in done.stderr.lower(), done.stderr  # e.g. the table form of license
    with tarfile.open(folder / done.stdout.split()[-1]) as sdist:
        sdist.extractall(folder / "unpacked", filter="data")
    (unpacked,) = (folder / "unpacked").iterdir()
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index"]
        + ["--target", str(folder / "site-packages"), str(unpacked)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    blocked = sorted(module for modules in EXTRA_MODULES.values() for module in modules)
    (folder / "without-extras").mkdir()
    (folder / "without-extras" / "sitecustomize.py").write_text(WITHOUT_EXTRAS.format(blocked=blocked))


@pytest.fixture(scope="module")
def built(made_once: Callable[[str, Callable[[Path], None]], Path]) -> Path:
    """The folder of the sdist (``*.tar.gz``), ``unpacked/`` and ``site-packages/``: made once per run."""
    pytest.importorskip("setuptools", minversion="77", reason="the build backend pyproject.toml asks for")
    return made_once("sdist", build_sdist)


@pytest.fixture(scope="module")
def sdist(built: Path) -> Iterator[tarfile.TarFile]:
    with tarfile.open(next(built.glob("*.tar.gz"))) as opened:
        yield opened


@pytest.fixture(scope="module")
def unpacked(built: Path) -> Path:
    (top,) = (built / "unpacked").iterdir()
    return top


@pytest.fixture(scope="module")
def installed(built: Path) -> Path:
    return built / "site-packages"


def members(sdist: tarfile.TarFile) -> set[str]:
    return {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}


def test_the_sdist_holds_every_test_and_what_the_tests_read(sdist):
    inside = members(sdist)
    needed = {"LICENSE", "README.md", "pyproject.toml", "build_db.py", "tests/conftest.py", "tests/support/negamax.py"}
    needed |= {str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("*.py")}
    needed |= {str(p.relative_to(ROOT)) for p in (ROOT / "queries").glob("*.sql")}
    needed |= {str(p.relative_to(ROOT)) for p in (ROOT / "examples").glob("*.py")}
    documentation = [p for p in (ROOT / "docs").rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    needed |= {"mkdocs.yml"} | {str(p.relative_to(ROOT)) for p in documentation}  # test_readme, test_docs
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
    documents = [ROOT / "README.md", *ROOT.glob("docs/*.md")]
    sources = [*ROOT.glob("ttt_solver/**/*.py"), *ROOT.glob("examples/*.py"), *documents]
    offending = [str(p.relative_to(ROOT)) for p in sources if "install 'ttt-solver[" in p.read_text(encoding="utf-8")]
    assert offending == []


def test_every_optional_extra_has_its_modules_listed_here():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert set(extras) - {"test", "postgres"} == set(EXTRA_MODULES)


# -- the unpacked sdist, installed -----------------------------------------------------------


def package_files(folder: Path) -> set[str]:
    return {
        str(path.relative_to(folder))
        for path in (folder / "ttt_solver").rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


def test_the_installed_package_has_every_file_of_the_source_package(installed):
    """Every module, subpackage and data file (the page's files, py.typed), and the SQL of the
    top-level queries/ folder as ttt_solver/sql/."""
    source = package_files(ROOT) | {f"ttt_solver/sql/{path.name}" for path in (ROOT / "queries").glob("*.sql")}
    assert {"ttt_solver/py.typed", "ttt_solver/sql/traps.sql", "ttt_solver/web/static/index.html"} <= source
    assert package_files(installed) == source | extension_files(installed)


def extension_files(folder: Path) -> set[str]:
    """The package's compiled extension modules under ``folder``."""
    return {name for name in package_files(folder) if name.endswith((".so", ".pyd"))}


def test_the_installed_package_has_the_compiled_loops_built_from_the_sdist(installed):
    # The sdist carries the C source and setup.py: installed where a C compiler is at hand (here),
    # the extension is built with the package.
    assert {name.split(".")[0] for name in extension_files(installed)} >= {"ttt_solver/solver/kernels"}


def test_every_package_folder_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    folders = {".".join(path.parent.relative_to(ROOT).parts) for path in (ROOT / "ttt_solver").rglob("__init__.py")}
    assert listed == folders | {"ttt_solver.sql"}


def pytest_in(built: Path, databases: Path, basetemp: Path, how: str, *args: str) -> subprocess.CompletedProcess[str]:
    """pytest run in the unpacked sdist without the extras: ``how`` is ``pytest`` (the installed
    package is imported) or ``python -m pytest`` (the current folder comes first on sys.path,
    so the source folder ``ttt_solver/`` is imported). Same code, so the databases this session
    built serve there too."""
    (unpacked,) = (built / "unpacked").iterdir()
    # Not TTT_REQUIRE_COMPILED: as python -m pytest, the unpacked source folder (no extension built) is imported.
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTEST_", "PYTHON", "TTT_REQUIRE_COMPILED"))
    }
    env["PYTHONPATH"] = os.pathsep.join([str(built / "without-extras"), str(built / "site-packages")])
    env["TTT_TEST_DATABASES"] = str(databases)
    script = Path(sys.executable).with_name("pytest")  # sys.path[0] is its folder, not the current one
    command = [str(script)] if script.exists() else [sys.executable, "-P", "-m", "pytest"]  # -P: the same
    if how == "python -m pytest":
        command = [sys.executable, "-m", "pytest"]
    where = "import ttt_solver; print(ttt_solver.__file__)"
    imported = subprocess.run(
        [sys.executable, *([] if how == "python -m pytest" else ["-P"]), "-c", where],
        cwd=unpacked,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert Path(imported).is_relative_to(unpacked if how == "python -m pytest" else built / "site-packages")
    return subprocess.run(
        [*command, "-p", "no:cacheprovider", "-p", "no:xdist", "-q", "-rs", f"--basetemp={basetemp}", *args],
        cwd=unpacked,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def skip_reasons(output: str) -> list[str]:
    return re.findall(r"^SKIPPED \[\d+\] [^:]+:\d+: (.*)$", output, re.MULTILINE)


def names_an_extra(reason: str) -> bool:
    """Whether a skip names an extra it lacks, or the compiled loops (the source folder has none built)."""
    return reason == NOT_BUILT or any(
        f"[{extra}]" in reason or any(re.search(rf"\b{module}\b", reason) for module in modules)
        for extra, modules in EXTRA_MODULES.items()
    )


def touching_an_extra(unpacked: Path) -> list[str]:
    """The test files that name an extra's module, README's (its snippets and examples use every
    extra) and test_extras_markers.py (which names them to hide them, and must hold without
    them); not this one."""
    modules = "|".join(module for modules in EXTRA_MODULES.values() for module in modules)
    return [
        str(path.relative_to(unpacked))
        for path in sorted((unpacked / "tests").glob("test_*.py"))
        if path.name in ("test_readme.py", "test_extras_markers.py")
        or (path.name != "test_packaging.py" and re.search(rf"\b({modules})\b", path.read_text(encoding="utf-8")))
    ]


@pytest.mark.sdist
def test_python_m_pytest_in_the_sdist_collects_every_test_without_the_extras(built, database_cache, tmp_path):
    """``python -m pytest`` imports the source folder: every test module imports from it (or
    skips, naming the extra it lacks), and the fuzz runs' fixtures set up."""
    done = pytest_in(built, database_cache.parent, tmp_path, "python -m pytest", "--setup-only", "-m", "fuzz")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    reasons = skip_reasons(done.stdout)
    assert reasons and [reason for reason in reasons if not names_an_extra(reason)] == [], done.stdout[-3000:]


@pytest.mark.sdist
def test_pytest_in_the_sdist_passes_or_skips_without_the_extras(built, unpacked, database_cache, tmp_path):
    """``pytest`` imports the installed package (the same files as the source folder: see
    above): the tests that touch an extra pass or skip naming it (the fuzz runs' set-up is
    checked above, their examples by the whole suite)."""
    touching = touching_an_extra(unpacked)
    runs = "not fuzz and not sdist and not twenty and not last_tiers"  # the opt-in runs left out
    done = pytest_in(built, database_cache.parent, tmp_path, "pytest", "-m", runs, *touching)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    last = done.stdout.splitlines()[-1]
    assert " passed" in last and "failed" not in last and "error" not in last, last
    reasons = skip_reasons(done.stdout)
    assert reasons and [reason for reason in reasons if not names_an_extra(reason)] == [], done.stdout[-3000:]
