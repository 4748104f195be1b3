"""Shared fixtures: each variant solved once per test process, and one database per variant
written once for every test process of the same code (3x3, 4x4, and any other through
``variant_db``).

- ``solved(name)``: the variant's solved tables (in memory, solved once per process).
- ``variant_db(name)``, ``db_path`` (3x3), ``db_4x4``: read-only database files (copy one to
  tamper with it). They are built by ``build()`` into a cache folder keyed by a digest of the
  package's code (and numpy's and SQLite's versions), under a lock per variant, so xdist's
  workers, later runs and the source-distribution test share them: ``$TTT_TEST_DATABASES/<key>/``
  when that variable is set, else ``.pytest_cache/d/ttt-databases/<key>/`` (a folder of the
  run's ``run_folder`` with ``-p no:cacheprovider``). A file whose bytes changed since it
  was written is rebuilt; folders of other keys unused for a day are removed.
- ``run_folder``: a temporary folder shared by the xdist workers of one run; ``made_once(name,
  make)``: a folder in it that the first worker to ask fills (the source distribution).
- ``eager_4x4``, ``lazy_4x4``: the 4x4 database's ``Oracle``, in memory and lazy.
- ``pg_cluster``, ``pg_url``: a throwaway PostgreSQL server per process, a new database on it.

Markers (pyproject.toml): ``fuzz`` (the 10,000-example runs, ``@FUZZ`` of fuzzing.py) and
``sdist`` (tests run from the built source distribution) are long and run first, so that
parallel workers (``-n 2``) finish together; ``slow`` builds a big variant.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy
import pytest
from pg_cluster import Cluster, unavailable

import ttt_solver
from ttt_solver import Oracle
from ttt_solver.build import build
from ttt_solver.solve import Tables, solve_tables
from ttt_solver.variant import Variant

ROOT = Path(__file__).resolve().parent.parent
LONG_RUNS = ("sdist", "fuzz")  # started first, in this order
UNUSED_KEYS_KEPT = 24 * 3600  # seconds


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long runs first (a stable sort: the rest keeps its order)."""

    def rank(item: pytest.Item) -> int:
        return next((i for i, name in enumerate(LONG_RUNS) if item.get_closest_marker(name)), len(LONG_RUNS))

    items.sort(key=rank)


@pytest.fixture(scope="session")
def solved() -> Callable[[str], Tables]:
    """``solved("4x4")``: that variant's solved tables, solved once in the process."""
    found: dict[str, Tables] = {}

    def get(name: str) -> Tables:
        if name not in found:
            found[name] = solve_tables(Variant.parse(name))
        return found[name]

    return get


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (made if missing): one xdist worker at a time."""
    with path.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


@pytest.fixture(scope="session")
def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A temporary folder shared by every xdist worker of this run (the session's own without xdist)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def made_once(run_folder: Path) -> Callable[[str, Callable[[Path], None]], Path]:
    """``made_once("sdist", make)``: the folder ``name`` of ``run_folder``, filled by ``make(folder)``
    in the first worker of the run that asks (the others wait for it, then share it)."""

    def get(name: str, make: Callable[[Path], None]) -> Path:
        folder = run_folder / name
        with locked(run_folder / f"{name}.lock"):
            if not (run_folder / f"{name}.made").exists():
                shutil.rmtree(folder, ignore_errors=True)
                folder.mkdir()
                make(folder)
                (run_folder / f"{name}.made").touch()
        return folder

    return get


def code_key() -> str:
    """What the databases' bytes depend on: the package's code, numpy's and SQLite's versions."""
    digest = hashlib.sha256(f"{numpy.__version__} {sqlite3.sqlite_version}".encode())
    package = Path(ttt_solver.__file__).resolve().parent
    for path in sorted(package.rglob("*")):
        if path.suffix in (".py", ".sql") and "__pycache__" not in path.parts:
            digest.update(f"\0{path.relative_to(package).as_posix()}\0".encode() + path.read_bytes())
    return digest.hexdigest()[:16]


def file_digest(path: Path) -> str:
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


@pytest.fixture(scope="session")
def database_cache(request: pytest.FixtureRequest, run_folder: Path) -> Path:
    """The folder of this code's cached databases (see the module's docstring)."""
    if os.environ.get("TTT_TEST_DATABASES"):
        root = Path(os.environ["TTT_TEST_DATABASES"])
    elif getattr(request.config, "cache", None) is not None:  # absent with -p no:cacheprovider
        root = request.config.cache.mkdir("ttt-databases")
    else:
        root = run_folder / "ttt-databases"
    folder = root / code_key()
    folder.mkdir(parents=True, exist_ok=True)
    os.utime(folder)
    for other in root.iterdir():
        if other != folder and other.is_dir() and time.time() - other.stat().st_mtime > UNUSED_KEYS_KEPT:
            shutil.rmtree(other, ignore_errors=True)
    return folder


@pytest.fixture(scope="session")
def variant_db(database_cache: Path, solved: Callable[[str], Tables]) -> Callable[[str], Path]:
    """``variant_db("3x4k3")``: that variant's database, built once for this code (read-only:
    copy it to tamper with it)."""
    checked: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in checked:
            path = database_cache / f"{name}.sqlite"
            stamp = database_cache / f"{name}.sha256"
            with locked(database_cache / f"{name}.lock"):  # another worker may be building it
                if not (path.exists() and stamp.exists() and stamp.read_text() == file_digest(path)):
                    stamp.unlink(missing_ok=True)
                    path.unlink(missing_ok=True)
                    build(path, Variant.parse(name), tables=solved(name))
                    stamp.write_text(file_digest(path))
            checked[name] = path
        return checked[name]

    return get


@pytest.fixture(scope="session")
def db_path(variant_db: Callable[[str], Path]) -> Path:
    """The standard (3x3) database; treat it as read-only (copy it to tamper with it)."""
    return variant_db("3x3")


@pytest.fixture(scope="session")
def db_4x4(variant_db: Callable[[str], Path]) -> Path:
    """The 4x4 database (solved and written once, about 3 s)."""
    return variant_db("4x4")


@pytest.fixture(scope="session")
def eager_4x4(db_4x4: Path) -> Oracle:
    return Oracle.load(db_4x4, "4x4")


@pytest.fixture(scope="session")
def lazy_4x4(db_4x4: Path) -> Oracle:
    return Oracle.load(db_4x4, "4x4", eager=False)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    """A throwaway PostgreSQL server for the session. Skipped where none can start, except when
    ``TTT_REQUIRE_POSTGRES=1`` (CI sets it, having installed the server): then a failure."""
    why = unavailable()
    if why is not None:
        if os.environ.get("TTT_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"TTT_REQUIRE_POSTGRES=1 but {why}")
        pytest.skip(why)
    with Cluster() as cluster:
        yield cluster


@pytest.fixture
def pg_url(pg_cluster: Cluster, request: pytest.FixtureRequest) -> str:
    """The URL of a new, empty database on the session's PostgreSQL server."""
    pg_url.count = getattr(pg_url, "count", 0) + 1  # type: ignore[attr-defined]
    return pg_cluster.database(f"test_{pg_url.count}")  # type: ignore[attr-defined]
