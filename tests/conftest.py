"""Shared fixtures: each variant solved once per test process, and one database per variant
written once for every test process of the same code (3x3, 4x4, and any other through
``variant_db``).

- ``solved(name)``: the variant's solved tables (in memory, solved once per process).
- ``variant_db(name)``, ``db_path`` (3x3), ``db_4x4``: read-only database files (copy one to
  tamper with it). ``build()`` writes them into a folder keyed by a digest of the package's
  code (and numpy's and SQLite's versions; tests/support/sharing.py), under a lock per variant, so
  xdist's workers, later runs and the source-distribution test share them:
  ``$TTT_TEST_DATABASES/<key>/`` when that variable is set, else
  ``.pytest_cache/d/ttt-databases/<key>/`` (``run_folder``'s with ``-p no:cacheprovider``). A
  file whose bytes changed since it was written is rebuilt; keys unused for a day are removed.
- ``run_folder``: a temporary folder shared by the xdist workers of one run; ``made_once(name,
  make)``: a folder in it that the first worker to ask fills (the source distribution).
- ``eager_4x4``, ``lazy_4x4``: the 4x4 database's ``Oracle``, in memory and lazy.
- ``pg_cluster``, ``pg_url``: a throwaway PostgreSQL server per process, a new database on it.
- ``dask_client``: a client of a local Dask cluster of 2 worker processes, one per test process
  (starting one takes seconds), without Dask's profiler (``QUIET_DASK``); the test is skipped,
  naming the extra, without it.
- ``base_url``, ``browser``, ``page``, ``own_page`` (support/browser_pages.py): the explorer's
  server and Chromium, started once per process for the browser test modules; a page per module.

Temporary files (``tmp_path``, the builds' scratch folders, the PostgreSQL server's) go to
``/dev/shm`` where it is a writable memory filesystem with room, unless ``TMPDIR`` is set: a test
run needs no durability, and the builds' syncs to a shared disk are slow (see docs/install.md).

Hypothesis runs without deadlines here (profile ``ttt-solver``). Markers (pyproject.toml):
``fuzz`` (the 2,000-example runs, ``@FUZZ`` of fuzzing.py), ``sdist`` (tests run from the
built source distribution) and ``long`` (any other test of more than a few seconds) start first,
in that order, dealt to the head of each xdist worker's share (support/ordering.py) so that
parallel workers (``-n 3``) finish together; ``slow`` builds a big variant.
"""

from __future__ import annotations

import functools
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from support import extra_markers as extras
from support import ordering, sharing
from support.browser_pages import (  # noqa: F401 - the *_fixture names are the browser tests' fixtures
    base_url_fixture,
    browser_fixture,
    db_4x4_fixture,
    own_page_fixture,
    page_fixture,
    shared_page_fixture,
)
from support.pg_cluster import Cluster, unavailable

from ttt_solver import Oracle
from ttt_solver.builder.build import build
from ttt_solver.game.variant import Variant
from ttt_solver.solver.solve import Tables, solve_tables
from ttt_solver.system import compiled_loops

ROOT = Path(__file__).resolve().parent.parent
MEMORY_TEMP = Path("/dev/shm")


def _temporary_files_in_memory() -> None:
    """TMPDIR set to /dev/shm (for this process, its xdist workers and the commands the tests
    start) where it is a writable directory with 4 GiB free, unless TMPDIR is set already."""
    if "TMPDIR" in os.environ or not (MEMORY_TEMP.is_dir() and os.access(MEMORY_TEMP, os.W_OK)):
        return
    if shutil.disk_usage(MEMORY_TEMP).free >= 4 << 30:
        os.environ["TMPDIR"] = str(MEMORY_TEMP)
        tempfile.tempdir = None  # gettempdir() reads TMPDIR again


_temporary_files_in_memory()

# Dask's diagnostics, which no test reads: each worker's statistical profiler samples its threads
# every 10 ms, and each worker and nanny checks its memory every 100 ms, busy or idle. Idle, a
# local cluster of 2 workers took 0.11 s of CPU a second with them, 0.03 s without the profiler
# and with a check a second; a test process keeps its cluster (``dask_client``) for minutes.
QUIET_DASK = {
    "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False",
    "DASK_DISTRIBUTED__WORKER__MEMORY__MONITOR_INTERVAL": "1s",
}


def _quiet_dask_diagnostics() -> None:
    """QUIET_DASK in the environment, before Dask is imported: read by this process's clusters
    (a nanny passes its configuration to its worker) and by the clusters the commands and the
    namespace test start. A value set already wins."""
    for name, value in QUIET_DASK.items():
        os.environ.setdefault(name, value)


_quiet_dask_diagnostics()

# On a loaded machine (two workers on two shared cores) an example may take seconds: no property
# test fails for time. Each test keeps its number of examples; settings given on a test still win.
settings.register_profile("ttt-solver", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ttt-solver")


@pytest.fixture(autouse=True, scope="session")
def _cache_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """What the lookups cache (a big database's arrays, a query's passed check) goes to a folder
    of the test session, never to the user's ``~/.cache``."""
    before = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("cache"))
    yield
    if before is None:
        del os.environ["XDG_CACHE_HOME"]
    else:
        os.environ["XDG_CACHE_HOME"] = before


@pytest.hookimpl(tryfirst=True)  # before -m deselects: `-m "not extras"` sees the markers added here
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Each test of an extra (its marker, see extras.py) also marked ``extras``, and skipped,
    naming the extra, where the extra is not installed; the long runs also marked ``long``, so
    that ``pytest -m "not extras and not long"`` is the quick run."""
    absent = {extra: bool(extras.missing(extra)) for extra in extras.EXTRA_MODULES}
    unbuilt = _compiled_loops_missing()
    for item in items:
        if unbuilt and item.get_closest_marker("compiled"):
            item.add_marker(pytest.mark.skip(reason=unbuilt))
        if any(item.get_closest_marker(name) for name in ("sdist", "fuzz", "slow", "twenty", "last_tiers")):
            item.add_marker(pytest.mark.long)  # one name for the quick run to leave out
        if any(fixture in getattr(item, "fixturenames", ()) for fixture in extras.POSTGRES_FIXTURES):
            item.add_marker(pytest.mark.postgres)
        needed = [extra for extra in extras.EXTRA_MODULES if item.get_closest_marker(extra)]
        if needed:
            item.add_marker(pytest.mark.extras)
        for extra in needed:
            if absent[extra]:
                item.add_marker(pytest.mark.skip(reason=extras.reason(extra)))
                break


def _compiled_loops_missing() -> str | None:
    """Why the tests of the compiled loops (marker ``compiled``) cannot run: the C extension was
    not built; None where it was. With ``TTT_REQUIRE_COMPILED=1`` (CI sets it) a missing
    extension is an error of the whole run, not a skip."""
    if compiled_loops.installed() or compiled_loops.asked() == compiled_loops.NUMPY:
        return None
    why = extras.NOT_BUILT
    if os.environ.get("TTT_REQUIRE_COMPILED") == "1":
        raise pytest.UsageError(f"TTT_REQUIRE_COMPILED=1 but the compiled loops were not built: {why}")
    return why


class _LongRunsFirst:
    """The long runs first, dealt to the head of each xdist worker's share (support/ordering.py),
    once ``-m`` has deselected: the shares are of the tests that run."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        items[:] = ordering.ordered(items, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(_LongRunsFirst(), "ttt-long-runs-first")


@pytest.fixture(scope="session")
def solved() -> Callable[[str], Tables]:
    """``solved("4x4")``: that variant's solved tables, solved once in the process."""
    found: dict[str, Tables] = {}

    def get(name: str) -> Tables:
        if name not in found:
            found[name] = solve_tables(Variant.parse(name))
        return found[name]

    return get


@pytest.fixture(scope="session")
def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A temporary folder shared by every xdist worker of this run (the session's own without xdist)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def made_once(run_folder: Path) -> Callable[[str, Callable[[Path], None]], Path]:
    """``made_once("sdist", make)``: the folder ``name`` of ``run_folder``, filled by ``make(folder)``
    in the first worker of the run that asks (the others wait for it, then share it)."""
    return functools.partial(sharing.folder_made_once, run_folder)


@pytest.fixture(scope="session")
def database_cache(request: pytest.FixtureRequest, run_folder: Path) -> Path:
    """The folder of this code's cached databases (see the module's docstring)."""
    if os.environ.get("TTT_TEST_DATABASES"):
        root = Path(os.environ["TTT_TEST_DATABASES"])
    elif getattr(request.config, "cache", None) is not None:  # absent with -p no:cacheprovider
        root = request.config.cache.mkdir("ttt-databases")
    else:
        root = run_folder / "ttt-databases"
    return sharing.keyed_folder(root, sharing.code_key())


@pytest.fixture(scope="session")
def variant_db(database_cache: Path, solved: Callable[[str], Tables]) -> Callable[[str], Path]:
    """``variant_db("3x4k3")``: that variant's database, built once for this code (read-only:
    copy it to tamper with it)."""

    @functools.cache
    def get(name: str) -> Path:
        return sharing.made_once(
            database_cache, f"{name}.sqlite", lambda path: build(path, Variant.parse(name), tables=solved(name))
        )

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


@pytest.fixture(scope="session")
def dask_client() -> Iterator[object]:
    """A local cluster of 2 workers, started once per test process (each start is seconds of
    CPU) and shared by the tests of the distributed build and verify."""
    distributed = extras.need("dask", "dask.distributed")
    from ttt_solver.engine.engine_dask import local_cluster  # the cluster `--engine dask` starts

    with local_cluster(2) as cluster, distributed.Client(cluster) as connected:
        yield connected
