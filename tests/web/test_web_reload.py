"""A database that changes under the running server (item 10): single lookups read the file
and are proved one ply down, so damage in place is an error naming the rebuild command, never a
wrong answer; a file renamed over it (a rebuild) is served once noticed; a file that is gone or
holds another variant makes its variant's requests a 503 until a good file is back; a server
database is watched by its digest. Every answer given meanwhile is the right one."""

from __future__ import annotations

import os
import shutil
import sqlite3
import time

import pytest
from support.damage import set_number
from support.extra_markers import need

pytestmark = pytest.mark.web
need("web", "fastapi")
from fastapi.testclient import TestClient

from ttt_solver.web.app import create_app
from ttt_solver.web.data import open_variant

BOARD = "/api/v1/3x3?board=X...O...."
BATCH = "/api/v1/3x3/batch"


@pytest.fixture
def database(db_path, tmp_path):
    copy = tmp_path / "served.sqlite"
    shutil.copy(db_path, copy)
    return copy


@pytest.fixture
def client(database):
    with TestClient(create_app({"3x3": open_variant(database)}, check_interval=0)) as client:
        yield client


def until(client, url: str, done, right: dict, method: str = "GET", seconds: float = 20):
    """Ask ``url`` until ``done(response)``; every 200 on the way must be the ``right`` answer."""
    deadline = time.monotonic() + seconds
    while True:
        response = client.request(method, url, json={"boards": ["X...O...."]} if method == "POST" else None)
        if response.status_code == 200:
            assert response.json() == right, response.json()
        if done(response):
            return response
        assert time.monotonic() < deadline, f"still {response.status_code}: {response.text[:200]}"
        time.sleep(0.02)


def test_damage_in_place_is_an_error_naming_the_rebuild_and_a_rebuild_is_served(client, database, db_path):
    right = client.get(BOARD).json()
    with sqlite3.connect(database) as conn:  # every position after two moves now claims a wrong remoteness
        conn.execute(f"UPDATE positions SET {set_number('remoteness', 'remoteness + 1')} WHERE ply = 2")
    conn.close()
    damaged = until(client, BOARD, lambda r: r.status_code != 200, right)
    assert damaged.status_code == 503 and set(damaged.json()) == {"error"}
    message = damaged.json()["error"]
    assert "contradicts itself" in message
    assert message.endswith(f"rebuild it with: ttt-lookup build --variant 3x3 --db {database} --force")

    fresh = database.with_name("rebuilt.sqlite")
    shutil.copy(db_path, fresh)
    os.replace(fresh, database)  # what a rebuild does
    until(client, BOARD, lambda r: r.status_code == 200, right)


def test_a_file_gone_or_of_another_variant_stops_its_variant_until_a_good_one_is_back(
    client, database, db_path, variant_db
):
    right = client.get(BOARD).json()
    batch_right = client.post(BATCH, json={"boards": ["X...O...."]}).json()
    other = database.with_name("other.sqlite")
    shutil.copy(variant_db("3x3-misere"), other)
    os.replace(other, database)
    refused = until(client, BOARD, lambda r: r.status_code != 200, right)
    assert refused.status_code == 503
    assert refused.json()["error"].startswith(f"database {str(database)!r} holds variant '3x3-misere', not '3x3'")
    assert client.post(BATCH, json={"boards": ["X...O...."]}).status_code == 503
    assert client.get("/api/v1/variants").json() == {"variants": []}

    database.unlink()
    gone = until(client, BOARD, lambda r: "no database at" in r.text, right)
    assert gone.status_code == 503

    shutil.copy(db_path, database)
    until(client, BOARD, lambda r: r.status_code == 200, right)
    until(client, BATCH, lambda r: r.status_code == 200, batch_right, method="POST")
    assert [v["name"] for v in client.get("/api/v1/variants").json()["variants"]] == ["3x3"]


def test_a_server_database_is_watched_by_its_digest(pg_url, solved):
    import psycopg

    from ttt_solver.builder.build import build
    from ttt_solver.game.variant import Variant

    build(pg_url, Variant.parse("3x3"), tables=solved("3x3"))
    with TestClient(create_app({"3x3": open_variant(pg_url)}, check_interval=0)) as client:
        right = client.get(BOARD).json()
        with psycopg.connect(pg_url) as conn:  # the meta table now names another content
            conn.execute(
                "UPDATE meta SET value = CASE WHEN value LIKE '0%' THEN '1' ELSE '0' END || substr(value, 2)"
                " WHERE key = 'digest'"
            )
        refused = until(client, BATCH, lambda r: r.status_code != 200, {"results": [right_row(right)]}, "POST")
        assert refused.status_code == 503 and "the content digest does not match" in refused.json()["error"]
        assert "rebuild it with: ttt-lookup build --variant 3x3 --db postgresql://" in refused.json()["error"]


def right_row(position: dict) -> dict:
    """The batch row of a position, from its ``analyze`` object (its perfect line starts with the best move)."""
    best = position["line"][0] if position["line"] else None
    return {
        "board": position["board"],
        "value": position["value"],
        "remoteness": position["remoteness"],
        "best_move": best,
    }
