"""Each variant's database is opened when the variant is first asked for, in a thread (issue 25
item 6): meanwhile that variant is a JSON 503 with ``"status": "loading"`` and Retry-After, every
other variant is answered, and the console hears when the opening starts and ends; a database
that cannot be opened is a 503 naming the command that rebuilds it."""

from __future__ import annotations

import shutil
import threading
import time

import pytest
from support.extra_markers import need

from ttt_solver.game.variant import Variant

pytestmark = pytest.mark.web
need("web", "fastapi")
from fastapi.testclient import TestClient

from ttt_solver.web import data
from ttt_solver.web.app import create_app
from ttt_solver.web.watch import Registry

V3X3, MISERE = Variant.parse("3x3"), Variant.parse("3x3-misere")
BOARD = "/api/v1/3x3?board=X...O...."


@pytest.fixture
def held(monkeypatch):
    """Opening a 3x3 database waits until ``held.set()``; other variants open as usual."""
    release = threading.Event()
    opening = data.open_variant

    def slow(database, variant=None, progress=None, reuse=None):
        if variant == V3X3:
            assert release.wait(30)
        return opening(database, variant, progress, reuse)

    monkeypatch.setattr(data, "open_variant", slow)
    yield release
    release.set()


def test_a_variant_being_opened_is_loading_and_the_others_are_answered(db_path, variant_db, held):
    said: list[str] = []
    registry = Registry({V3X3: str(db_path), MISERE: str(variant_db("3x3-misere"))}, progress=said.append)
    client = TestClient(create_app(registry))
    listed = client.get("/api/v1/variants").json()["variants"]
    assert [(v["name"], v["status"], v["meta"], v["stats"]) for v in listed] == [
        ("3x3", "not loaded", None, None),
        ("3x3-misere", "not loaded", None, None),
    ]
    started = time.monotonic()
    loading = client.get(BOARD)
    assert 0.9 < time.monotonic() - started < 10  # waited a second for it, then said so
    assert loading.status_code == 503 and loading.headers["retry-after"] == "2"
    assert loading.json() == {
        "error": f"variant '3x3' is loading (its database {str(db_path)!r} is being opened); ask again in a few seconds",
        "status": "loading",
    }
    batch = client.post("/api/v1/3x3/batch", json={"boards": ["X...O...."]})
    assert batch.status_code == 503 and batch.json()["status"] == "loading"
    assert client.get("/api/v1/3x3-misere?moves=4").status_code == 200  # opened in under a second
    statuses = [(v["name"], v["status"]) for v in client.get("/api/v1/variants").json()["variants"]]
    assert statuses == [("3x3", "loading"), ("3x3-misere", "ready")]

    held.set()
    deadline = time.monotonic() + 30
    while (answer := client.get(BOARD)).status_code != 200:
        assert answer.status_code == 503 and time.monotonic() < deadline, answer.text
    assert answer.json()["board"] == "X...O...."
    assert [v["status"] for v in client.get("/api/v1/variants").json()["variants"]] == ["ready", "ready"]
    opened = [line.split(":")[0] for line in said if line.startswith("loading ")]
    assert sorted(opened) == [f"loading 3x3 from {db_path}", f"loading 3x3-misere from {variant_db('3x3-misere')}"]
    assert {line.split(" (")[0] for line in said if "ready" in line} == {"3x3 ready", "3x3-misere ready"}


def test_a_database_that_cannot_be_opened_is_a_503_naming_the_rebuild(db_path, variant_db, tmp_path):
    database = tmp_path / "ttt.sqlite"
    shutil.copy(variant_db("3x3-misere"), database)  # another variant's file where 3x3's should be
    said: list[str] = []
    client = TestClient(create_app(Registry({V3X3: str(database)}, progress=said.append)))
    deadline = time.monotonic() + 30
    while (answer := client.get(BOARD)).status_code == 503 and answer.json().get("status") == "loading":
        assert time.monotonic() < deadline
    assert answer.status_code == 503 and set(answer.json()) == {"error"}
    assert answer.json()["error"].startswith(f"database {str(database)!r} holds variant '3x3-misere', not '3x3'")
    assert said[-1] == f"3x3 cannot be served: {answer.json()['error']}"
    assert client.get("/api/v1/variants").json() == {"variants": []}

    shutil.copy(db_path, database)  # fixed: served at the next check
    while (answer := client.get(BOARD)).status_code != 200:
        assert time.monotonic() < deadline, answer.text
        time.sleep(0.05)
