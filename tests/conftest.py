"""Shared fixtures: each variant solved once per test session, and one database per variant
written from that solution (3x3, 4x4, and any other through ``variant_db``)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pg_cluster import Cluster, unavailable

from ttt_solver import Oracle
from ttt_solver.build import build
from ttt_solver.game.variant import Variant
from ttt_solver.solver.solve import Tables, solve_tables

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def solved() -> Callable[[str], Tables]:
    """``solved("4x4")``: that variant's solved tables, solved once in the session."""
    found: dict[str, Tables] = {}

    def get(name: str) -> Tables:
        if name not in found:
            found[name] = solve_tables(Variant.parse(name))
        return found[name]

    return get


@pytest.fixture(scope="session")
def variant_db(tmp_path_factory: pytest.TempPathFactory, solved: Callable[[str], Tables]) -> Callable[[str], Path]:
    """``variant_db("3x4k3")``: that variant's database, written once in the session (read-only:
    copy it to tamper with it)."""
    built: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in built:
            path = tmp_path_factory.mktemp("variant") / f"{name}.sqlite"
            build(path, Variant.parse(name), tables=solved(name))
            built[name] = path
        return built[name]

    return get


@pytest.fixture(scope="session")
def db_path(variant_db: Callable[[str], Path]) -> Path:
    """The standard (3x3) database; treat it as read-only (copy it to tamper with it)."""
    return variant_db("3x3")


@pytest.fixture(scope="session")
def db_4x4(variant_db: Callable[[str], Path]) -> Path:
    """The 4x4 database (solved and written once, about 5 s)."""
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
