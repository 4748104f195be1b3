"""The HTTP API through FastAPI's test client: every field against the oracle on every legal 3x3
board and a sample of 4x4, the batch against the batch lookups, and every error path."""

from __future__ import annotations

import asyncio
import json

import httpx2 as httpx
import numpy as np
import pytest
from click.testing import CliRunner
from support.extra_markers import need
from support.parse_spy import count_parses
from support.playouts import playouts
from support.web_servers import built_4x4, served_for

from ttt_solver import Oracle
from ttt_solver.cli import cli
from ttt_solver.game import rules
from ttt_solver.game.variant import Variant
from ttt_solver.lookup import analysis
from ttt_solver.lookup.analysis import OUTCOMES

pytestmark = pytest.mark.web
need("web", "fastapi")
from fastapi.testclient import TestClient

from ttt_solver.web.app import create_app

V3X3, V4X4 = Variant.parse("3x3"), Variant.parse("4x4")


@pytest.fixture(scope="module")
def db_4x4_or_none(request):
    return built_4x4(request)


@pytest.fixture(scope="module")
def served(db_path, db_4x4_or_none):
    return served_for(db_path, db_4x4_or_none)


@pytest.fixture(scope="module")
def client(served):
    with TestClient(create_app(served, time_limit=30)) as client:  # one event loop for every request
        yield client


@pytest.fixture(scope="module")
def oracle_3x3(db_path):
    return Oracle.load(db_path)  # independent of the served one: eager, digest checked


def expected(oracle: Oracle, board: str) -> dict:
    """What the API must say, from the oracle's own lookups (not from analysis())."""
    variant = oracle.variant
    position = oracle.probe(board)
    line, here = [], board
    while rules.terminal_value(here, variant) is None:
        line.append(oracle.best_move(here))
        here = rules.play(here, line[-1], variant)
    found = {
        "board": board,
        "to_move": rules.to_move(board),
        "value": position.value,
        "outcome": OUTCOMES[position.value],
        "remoteness": position.remoteness,
        "best_moves": sorted(m.cell for m in position.moves if m.value == position.value),
        "preferred_moves": sorted(
            m.cell for m in position.moves if (m.value, m.remoteness) == (position.value, position.remoteness)
        ),
        "moves": [{"cell": m.cell, "value": m.value, "remoteness": m.remoteness} for m in position.moves],
        "line": line,
    }
    if rules.terminal_value(board, variant) is not None:
        found["winner"] = rules.winner(board, variant)
    return found


@pytest.mark.long
def test_every_3x3_position_matches_the_oracle(client, oracle_3x3):
    boards = rules.all_boards(V3X3)
    assert len(boards) == 5478

    async def get_all() -> list[httpx.Response]:
        # The same app in process, as TestClient does, minus its per-request thread hop (4x faster).
        transport = httpx.ASGITransport(app=client.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as session:
            return [await session.get("/api/v1/3x3", params={"board": board}) for board in boards]

    for board, response in zip(boards, asyncio.run(get_all()), strict=True):
        assert response.status_code == 200, board
        assert response.json() == expected(oracle_3x3, board), board


def test_moves_are_best_first_and_a_move_is_minus_its_child(client):
    data = client.get("/api/v1/3x3", params={"board": "X...O..X."}).json()
    assert {m["value"] for m in data["moves"]} == {0, -1}
    cells = [m["cell"] for m in data["moves"]]
    assert cells == sorted(cells, key=lambda c: (-rank_of(data, c)[0], rank_of(data, c)[1], c))
    for move in data["moves"]:
        child = client.get("/api/v1/3x3", params={"board": rules.play(data["board"], move["cell"])}).json()
        assert (move["value"], move["remoteness"]) == (-child["value"], child["remoteness"] + 1)


def rank_of(data: dict, cell: int) -> tuple[int, int]:
    """(value, plies that matter): a win is better sooner, a draw or a loss later."""
    move = next(m for m in data["moves"] if m["cell"] == cell)
    return move["value"], move["remoteness"] if move["value"] > 0 else -move["remoteness"]


def test_moves_and_board_spellings_give_the_same_answer(client):
    by_moves = client.get("/api/v1/3x3", params={"moves": "4,0,8"}).json()
    by_board = client.get("/api/v1/3x3", params={"board": "o../.x./..x"}).json()
    assert by_moves == by_board and by_moves["board"] == "O...X...X"


@pytest.mark.parametrize("cache_bytes", [1 << 20, 0], ids=["cache parses", "app parses"])
@pytest.mark.parametrize("query", ["board=x../.o./...", "moves=0,4"])
def test_a_request_parses_its_board_once(served, monkeypatch, cache_bytes, query):
    with TestClient(create_app(served, cache_bytes=cache_bytes)) as fresh:  # nothing asked before
        parsed = count_parses(monkeypatch)
        response = fresh.get(f"/api/v1/3x3?{query}")
    assert response.status_code == 200 and response.json()["board"] == "X...O...."
    assert parsed == [query.partition("=")[2]]


def test_a_sample_of_4x4_positions_matches_a_lazy_oracle(client, db_4x4_or_none):
    if db_4x4_or_none is None:
        pytest.skip("no 4x4 database")
    oracle = Oracle.load(db_4x4_or_none, V4X4, eager=False)
    for board in playouts(V4X4, 40, seed=11):
        response = client.get("/api/v1/4x4", params={"board": board})
        assert response.status_code == 200 and response.json() == expected(oracle, board), board


def batch_expected(oracle: Oracle, boards: list[str]) -> list[dict]:
    array = np.array([rules.to_array(b) for b in boards], dtype=np.int8)
    values, best = oracle.value_batch(array), oracle.best_move_batch(array)
    return [
        {"board": b, "value": int(v), "remoteness": oracle.probe(b).remoteness, "best_move": None if m < 0 else int(m)}
        for b, v, m in zip(boards, values, best, strict=True)
    ]


def test_batch_of_every_3x3_board_matches_the_batch_lookups(client, oracle_3x3):
    boards = rules.all_boards(V3X3)
    response = client.post("/api/v1/3x3/batch", json={"boards": boards})
    assert response.status_code == 200
    results = response.json()["results"]
    assert results == batch_expected(oracle_3x3, boards)
    finished = [r for r in results if rules.terminal_value(r["board"]) is not None]
    assert len(finished) == 958 and all(r["best_move"] is None and r["remoteness"] == 0 for r in finished)
    assert all(r["best_move"] == oracle_3x3.best_move(r["board"]) for r in results if r["best_move"] is not None)


def test_batch_normalises_spellings_and_keeps_order(client):
    boards = ["x../.o./...", "X...O....", "---------", "XXXOO...."]
    results = client.post("/api/v1/3x3/batch", json={"boards": boards}).json()["results"]
    assert [r["board"] for r in results] == ["X...O....", "X...O....", ".........", "XXXOO...."]
    assert client.post("/api/v1/3x3/batch", json={"boards": []}).json() == {"results": []}


def test_batch_of_4x4_matches_the_batch_lookups(client, db_4x4_or_none):
    if db_4x4_or_none is None:
        pytest.skip("no 4x4 database")
    oracle = Oracle.load(db_4x4_or_none, V4X4, eager=False)
    boards = playouts(V4X4, 300, seed=12)
    response = client.post("/api/v1/4x4/batch", json={"boards": boards})
    assert response.status_code == 200 and response.json()["results"] == batch_expected(oracle, boards)


def test_variants_lists_meta_and_stats(client, served):
    data = client.get("/api/v1/variants").json()["variants"]
    assert [v["name"] for v in data] == list(served)
    first = data[0]
    assert (first["rows"], first["cols"], first["k"], first["misere"], first["cells"]) == (3, 3, 3, False, 9)
    assert first["meta"]["digest"] == served["3x3"].meta["digest"] and first["meta"]["variant"] == "3x3"
    assert first["stats"]["boards"]["total"] == 5478 and first["stats"]["canonical"]["total"] == 765
    if len(data) > 1:
        assert data[1]["stats"]["boards"]["total"] == 9_722_011


def test_health(client):
    response = client.get("/health")
    assert response.status_code == 200 and response.json() == {"status": "ok"}


def test_positions_carry_the_digest_as_etag_and_answer_304(client, served):
    response = client.get("/api/v1/3x3", params={"board": "X...O...."})
    etag = response.headers["etag"]
    assert etag == f'"{served["3x3"].meta["digest"][:32]}"' and "max-age" in response.headers["cache-control"]
    again = client.get("/api/v1/3x3", params={"board": "X...O...."}, headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag
    other = client.get("/api/v1/3x3", params={"board": "X...O...."}, headers={"If-None-Match": '"stale"'})
    assert other.status_code == 200
    listed = client.get("/api/v1/variants")
    tag = listed.headers["etag"]
    assert client.get("/api/v1/variants", headers={"If-None-Match": tag}).status_code == 304


@pytest.mark.parametrize(
    ("url", "status", "message"),
    [
        ("/api/v1/3x3", 400, "no board given: pass board (e.g. X...O....) or moves (e.g. 4,0,8)"),
        ("/api/v1/3x3?board=X........&moves=0", 400, "give either board or moves, not both"),
        ("/api/v1/3x3?board=XX", 400, "invalid board 'XX': expected 9 cells, got 2"),
        (
            "/api/v1/3x3?board=XQ.......",
            400,
            "invalid board 'XQ.......': bad character 'Q' at position 1 (use X, O and . for empty)",
        ),
        ("/api/v1/3x3?board=XXXOOO...", 400, "illegal board 'XXXOOO...': both X and O have 3 in a row"),
        ("/api/v1/3x3?moves=4,4", 400, "invalid move 4: cell 4 of '....X....' is taken"),
        ("/api/v1/3x3?moves=9", 400, "invalid move 9: cells are 0 to 8"),
        ("/api/v1/3x3?moves=a", 400, "invalid moves 'a': expected cell numbers separated by commas, e.g. 4,0,8"),
        ("/api/v1/3x3?moves=0,3,1,4,2,5", 400, "invalid move 5: the game on 'XXXOO....' is already over"),
        ("/api/v1/3x3?board=" + "X" * 201, 422, "board: String should have at most 200 characters"),
        (
            "/api/v1/3x3?board=" + "X" * 201 + "&moves=" + "1" * 201,
            422,
            "board, moves: String should have at most 200 characters",
        ),
        ("/api/v1/3x3?board=X...O....&junk=" + "j" * 2100, 414, "the query string is too long: the limit is 2,048"),
        ("/api/v1/9x9?board=X", 404, "variant '9x9' is not served here; served: "),
        ("/api/v1/9x9/batch", 405, "method GET is not allowed on '/api/v1/9x9/batch'; allowed: POST"),
        ("/nowhere", 404, "no such page '/nowhere': the API is under /api/v1, its documentation at /docs"),
    ],
)
def test_error_paths(client, url, status, message):
    response = client.get(url)
    assert response.status_code == status
    assert response.headers["content-type"] == "application/json"
    assert set(response.json()) == {"error"} and response.json()["error"].startswith(message)


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"boards": ["X...O....", "XXXXO...."]}, 400, "boards[1]: illegal board 'XXXXO....': wrong piece counts"),
        ({"boards": ["X...O....", "XO"]}, 400, "boards[1]: invalid board 'XO': expected 9 cells, got 2"),
        ({"boards": ["X" * 9] * 10_001}, 413, "boards: List should have at most 10000 items"),
        ({"boards": [1, 2]}, 422, "boards[0], boards[1]: Input should be a valid string"),
        (
            {"boards": [1, "X........", None, 3, 4, 5, 6, 7], "more": True},
            422,
            (
                "boards[0], boards[2], boards[3], boards[4], boards[5] and 2 more: Input should be a valid string;"
                " more: Extra inputs are not permitted"
            ),
        ),
        ({"board": ["X........"]}, 422, "boards: Field required"),
        ({"boards": "X........"}, 422, "boards: Input should be a valid list"),
    ],
)
def test_batch_error_paths(client, body, status, message):
    response = client.post("/api/v1/3x3/batch", json=body)
    assert response.status_code == status and response.json()["error"].startswith(message)


# -- a batch that answers every board it can: each bad board an error object in its place --------------
def test_a_batch_with_bad_boards_answers_the_others_with_on_error_item(client, oracle_3x3):
    good = (rules.all_boards(V3X3) * 2)[:9_997]  # 10,000 boards with the three below
    boards = [*good[:5], "XO", *good[5:100], "XXXXO....", *good[100:], "x../.o./..."]
    response = client.post("/api/v1/3x3/batch", json={"boards": boards, "on_error": "item"})
    assert response.status_code == 200
    results = response.json()["results"]
    assert len(results) == 10_000
    assert results[5] == {"board": "XO", "error": "invalid board 'XO': expected 9 cells, got 2"}
    assert results[101] == {
        "board": "XXXXO....",
        "error": "illegal board 'XXXXO....': wrong piece counts: X has 4 and O has 1, but X moves first so X must"
        " have as many marks as O or one more",
    }
    answered = [r for i, r in enumerate(results) if i not in (5, 101)]
    assert answered == batch_expected(oracle_3x3, [*good, "X...O...."])


def test_a_batch_with_a_few_bad_boards_reads_only_those_one_by_one(client, monkeypatch):
    # The good boards are found in numpy passes, as a batch of good boards is answered: a few bad
    # boards among 10,000 once cost 7x the good batch, every board parsed alone to find them.
    good = (rules.all_boards(V3X3) * 2)[:10_000]
    boards = [*good[:5], "XO", "XXXXO....", "x../.o./...", *good[8:]]
    parsed = count_parses(monkeypatch)
    response = client.post("/api/v1/3x3/batch", json={"boards": boards, "on_error": "item"})
    assert response.status_code == 200 and parsed == ["XO", "XXXXO...."]
    results = response.json()["results"]
    assert results[7] == client.post("/api/v1/3x3/batch", json={"boards": ["X...O...."]}).json()["results"][0]
    assert [result.get("error", "")[:7] for result in results[4:8]] == ["", "invalid", "illegal", ""]


def test_each_item_error_is_what_the_single_lookup_says(client):
    bad = ["XO", "X..?O....", "XXX......", "XXXOOO...", ""]
    results = client.post("/api/v1/3x3/batch", json={"boards": bad, "on_error": "item"}).json()["results"]
    for board, result in zip(bad, results, strict=True):
        single = client.get("/api/v1/3x3", params={"board": board})
        assert single.status_code == 400 and result == {"board": board, "error": single.json()["error"]}


def test_on_error_refuse_is_the_default_and_item_keeps_the_answer_when_all_are_good(client):
    boards = ["X...O....", "XO"]
    default = client.post("/api/v1/3x3/batch", json={"boards": boards})
    refused = client.post("/api/v1/3x3/batch", json={"boards": boards, "on_error": "refuse"})
    assert default.status_code == refused.status_code == 400 and default.json() == refused.json()
    good = {"boards": ["X...O....", "........."]}
    assert (
        client.post("/api/v1/3x3/batch", json={**good, "on_error": "item"}).json()
        == client.post("/api/v1/3x3/batch", json=good).json()
    )
    wrong = client.post("/api/v1/3x3/batch", json={**good, "on_error": "skip"})
    assert wrong.status_code == 422 and wrong.json()["error"].startswith("on_error: Input should be 'refuse' or 'item'")


def test_the_schema_offers_per_item_errors(client):
    schema = client.get("/openapi.json").json()["components"]["schemas"]
    assert schema["BatchIn"]["properties"]["on_error"]["enum"] == ["refuse", "item"]
    kinds = schema["BatchOut"]["properties"]["results"]["items"]["anyOf"]
    assert [kind["$ref"] for kind in kinds] == [
        "#/components/schemas/BatchResult",
        "#/components/schemas/BatchItemError",
    ]
    assert set(schema["BatchItemError"]["required"]) == {"board", "error"}


def test_batch_refuses_a_body_over_the_limit_and_bad_json(client):
    huge = client.post("/api/v1/3x3/batch", content=b"x" * (2 << 20), headers={"content-type": "application/json"})
    assert huge.status_code == 413 and huge.json() == {"error": "request body too large: the limit is 1,048,576 bytes"}
    bad = client.post("/api/v1/3x3/batch", content=b"{bad", headers={"content-type": "application/json"})
    assert bad.status_code == 422 and bad.json()["error"].startswith("invalid JSON body")
    unknown = client.post("/api/v1/9x9/batch", json={"boards": []})
    assert unknown.status_code == 404


def test_batch_over_time_is_refused_with_503(served):
    slow = TestClient(create_app(served, time_limit=1e-6))  # every batch takes longer than that
    boards = playouts(V4X4, 4000, seed=13) if "4x4" in served else []
    if not boards:
        pytest.skip("needs the 4x4 database")
    response = slow.post("/api/v1/4x4/batch", json={"boards": boards})
    assert response.status_code == 503 and "took longer than allowed" in response.json()["error"]


def test_a_server_bug_is_a_logged_500_with_no_details(served, monkeypatch, caplog):
    from ttt_solver.web import data

    app_client = TestClient(create_app(served), raise_server_exceptions=False)
    monkeypatch.setattr(data, "analyze", lambda *_: 1 / 0)
    response = app_client.get("/api/v1/3x3", params={"board": "X.......O"})
    assert response.status_code == 500 and response.json() == {"error": "internal server error (logged on the server)"}
    assert "ZeroDivisionError" in caplog.text


def test_the_page_and_the_offline_docs_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    docs = client.get("/docs").text
    assert "/docs/assets/swagger-ui-bundle.js" in docs and "cdn" not in docs.lower()
    assert client.get("/docs/assets/swagger-ui-bundle.js").status_code == 200
    schema = client.get("/openapi.json").json()
    assert {"/api/v1/{variant}", "/api/v1/{variant}/batch", "/api/v1/variants", "/health"} <= set(schema["paths"])


# -- one contract: the command line's analyze --json and the HTTP answer ------------------------------
@pytest.mark.parametrize("board", ["X...O....", ".........", "XXXOO....", "XOXXOOOXX", "OX.XO.X.."])
def test_the_cli_json_and_the_http_answer_are_one_answer(client, db_path, board, monkeypatch):
    # Both go through lookup.analysis.analyze, and print what it gives.
    calls = []
    real = analysis.analyze
    monkeypatch.setattr(analysis, "analyze", lambda oracle, asked: calls.append(asked) or real(oracle, asked))
    done = CliRunner(env={"TTT_DB": None}).invoke(cli, ["analyze", board, "--json", "--db", str(db_path)])
    assert (done.exit_code, len(calls)) == (0, 1), done.output
    answer = client.get("/api/v1/3x3", params={"board": board})
    assert answer.status_code == 200
    assert json.loads(done.stdout) == answer.json() == real(Oracle.load(db_path), board)
