"""HTTP behaviour of the app in process: every answer the app can give is JSON in the API's
wording, HEAD is GET without a body, no redirect names a host, variant names in any case, the
response cache keyed on the question and bounded in bytes, and CORS for named origins only."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.extra_markers import need
from support.web_servers import served_for

pytestmark = pytest.mark.web
need("web", "fastapi")
from fastapi.testclient import TestClient

from ttt_solver.web.app import create_app
from ttt_solver.web.response_cache import ResponseCache

BOARD = "/api/v1/3x3?board=X...O...."
PAGES = [
    "/",
    "/health",
    "/api/v1/variants",
    BOARD,
    "/api/v1/3x3?moves=4,0",
    "/api/v1/3x3?board=XX",
    "/api/v1/9x9?board=X",
    "/nowhere",
    "/docs",
    "/openapi.json",
    "/static/app.js",
    "/static/none.js",
]
ROUTES = {  # path -> the methods it answers
    "/health": "GET, HEAD",
    "/api/v1/variants": "GET, HEAD",
    BOARD: "GET, HEAD",
    "/api/v1/3x3/batch": "POST",
    "/": "GET, HEAD",
    "/static/app.js": "GET, HEAD",
}


@pytest.fixture(scope="module")
def served(db_path):
    return served_for(db_path, None)


@pytest.fixture(scope="module")
def client(served):
    with TestClient(create_app(served)) as client:
        yield client


def is_json_error(response) -> bool:
    return response.headers["content-type"] == "application/json" and set(response.json()) == {"error"}


@pytest.mark.parametrize("url", PAGES)
def test_head_is_get_without_a_body(client, url):
    got, head = client.get(url), client.head(url)
    assert head.status_code == got.status_code and head.content == b""
    assert {k: v for k, v in head.headers.items() if k != "date"} == {
        k: v for k, v in got.headers.items() if k != "date"
    }


@pytest.mark.parametrize(("path", "allowed"), ROUTES.items())
@pytest.mark.parametrize("method", ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"])
def test_a_method_not_allowed_is_a_json_405_naming_the_allowed_ones(client, path, allowed, method):
    if method in allowed:
        return
    response = client.request(method, path)
    assert response.status_code == 405 and response.headers["allow"] == allowed
    assert is_json_error(response)
    where = path.split("?")[0]
    assert response.json()["error"] == f"method {method} is not allowed on {where!r}; allowed: {allowed}"


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(
    path=st.sampled_from([p.split("?")[0] for p in PAGES] + ["/api/v1/3x3/batch", "/static", "/docs/assets"]),
    slashes=st.sampled_from(["", "/", "//"]),
    query=st.sampled_from(["", "?board=X...O....", "?moves=4"]),
    host=st.sampled_from(["evil.example", "evil.example:8000", "127.0.0.1:1", "[::1]:80", "x" * 300]),
    method=st.sampled_from(["GET", "HEAD", "POST"]),
)
def test_no_answer_redirects_or_names_the_host_it_was_given(client, path, slashes, query, host, method):
    response = client.request(method, path + slashes + query, headers={"Host": host}, follow_redirects=False)
    assert not 300 <= response.status_code < 400 or response.status_code == 304
    assert "location" not in response.headers
    assert host not in response.text
    if response.status_code >= 400:
        assert method == "HEAD" or is_json_error(response), (path, response.text[:200])


def test_a_trailing_slash_is_answered_in_place(client):
    slashed = client.get("/api/v1/3x3/?board=X...O....", headers={"Host": "evil.example"}, follow_redirects=False)
    assert slashed.status_code == 200 and slashed.json() == client.get(BOARD).json()
    assert client.get("/docs/", follow_redirects=False).status_code == 200


def test_variant_names_are_case_insensitive_as_on_the_command_line(client):
    plain = client.get(BOARD)
    for name in ("3X3", "3x3K3"):
        found = client.get(f"/api/v1/{name}?board=x../.o./...")
        assert found.status_code == 200 and found.content == plain.content
        assert client.post(f"/api/v1/{name}/batch", json={"boards": ["X...O...."]}).status_code == 200


def test_meta_numbers_are_numbers(client, served):
    (listed,) = client.get("/api/v1/variants").json()["variants"]
    meta = listed["meta"]
    assert meta["positions"] == 765 and meta["legal_positions"] == 5478 and meta["moves"] == 2270
    assert meta["moves_stored"] == 1 and meta["schema_version"] == 3
    assert meta["digest"] == served["3x3"].meta["digest"] and isinstance(meta["generator_version"], str)
    assert {key: str(value) for key, value in meta.items()} == served["3x3"].meta


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded"])
def test_a_body_not_marked_as_json_gets_a_415_saying_what_to_send(client, content_type):
    headers = {"content-type": content_type} if content_type else {}
    response = client.post("/api/v1/3x3/batch", content=b'{"boards": ["X...O...."]}', headers=headers)
    assert response.status_code == 415 and is_json_error(response)
    assert response.json()["error"] == (
        'the body is not marked as JSON: send a JSON object such as {"boards": ["X...O...."]}'
        " with Content-Type: application/json"
    )


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "invalid JSON body: nested too deeply"),
        (b'{"boards": ["X\xe9..O...."]}', "invalid JSON body: not UTF-8 (byte 0xe9 at position 14)"),
        (b'{"boards": [', "invalid JSON body: Expecting value at byte 12"),
        (b"", 'no body: send a JSON object such as {"boards": ["X...O...."]} with Content-Type: application/json'),
        (b'{"boards": {"a": 1}}', "boards: Input should be a valid list"),
        (b"[1, 2]", "the body: Input should be a valid dictionary or object to extract fields from"),
    ],
)
def test_a_body_that_is_not_the_schemas_gets_422(client, body, message):
    response = client.post("/api/v1/3x3/batch", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422 and response.json() == {"error": message}


def cache_of(app) -> ResponseCache:
    """The app's response cache (the middleware stack is built on the first request)."""
    layer = app.middleware_stack
    while not isinstance(layer, ResponseCache):
        layer = layer.app
    return layer


def test_the_cache_keeps_one_answer_per_question_however_it_is_spelled(served):
    app = create_app(served)
    client = TestClient(app)
    spellings = ["board=X...O....", "board=x../.o./...", "board=X%2E%2E%2E0....".replace("0", "O"), "moves=0,4"]
    bodies = {client.get(f"/api/v1/{name}?{query}").content for name in ("3x3", "3X3") for query in spellings}
    assert len(bodies) == 1 and len(cache_of(app).entries) == 1


def test_junk_in_the_query_string_is_never_cached(served):
    # The attack, scaled down: one valid board, each request with a different junk parameter.
    app = create_app(served)
    client = TestClient(app)
    for i in range(300):
        response = client.get(BOARD + f"&junk{i}=" + "j" * 1500)
        assert response.status_code == 200
    assert len(cache_of(app).entries) == 0
    assert client.get(BOARD + "&junk=" + "j" * 60_000).status_code == 414


def test_the_cache_is_bounded_in_bytes_and_drops_the_least_recent_first(served):
    from ttt_solver.game import rules

    app = create_app(served, cache_bytes=50_000)
    client = TestClient(app)
    boards = rules.all_boards()[:400]
    for board in boards:
        assert client.get("/api/v1/3x3", params={"board": board}).status_code == 200
    cache = cache_of(app)
    assert 0 < cache.size <= 50_000 and len(cache.entries) < len(boards)
    assert cache.size == sum(entry[-1] for entry in cache.entries.values())
    kept = [key[1] for key in cache.entries]
    assert kept == boards[-len(kept) :]


def test_cors_is_off_by_default(client):
    response = client.get(BOARD, headers={"Origin": "https://a.example"})
    assert response.status_code == 200 and "access-control-allow-origin" not in response.headers
    preflight = client.options(BOARD, headers={"Origin": "https://a.example", "Access-Control-Request-Method": "GET"})
    assert preflight.status_code == 405 and is_json_error(preflight)


def test_cors_answers_the_named_origins_only_even_from_the_cache(served):
    client = TestClient(create_app(served, cors_origins=["https://a.example"]))
    for _ in range(2):  # computed, then from the cache
        allowed = client.get(BOARD, headers={"Origin": "https://a.example"})
        assert allowed.headers["access-control-allow-origin"] == "https://a.example"
        assert "etag" in allowed.headers["access-control-expose-headers"].lower()
        other = client.get(BOARD, headers={"Origin": "https://b.example"})
        assert other.status_code == 200 and "access-control-allow-origin" not in other.headers
    asked = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"}
    preflight = client.options("/api/v1/3x3/batch", headers={"Origin": "https://a.example", **asked})
    assert preflight.status_code == 200 and preflight.json() == {"status": "ok"}
    assert preflight.headers["access-control-allow-origin"] == "https://a.example"
    refused = client.options("/api/v1/3x3/batch", headers={"Origin": "https://b.example", **asked})
    assert refused.status_code == 400 and refused.json() == {
        "error": "cross-origin request refused: disallowed CORS origin"
    }


def test_every_error_the_app_gives_is_json(client):
    # A sample of everything the app refuses, through every layer in front of it.
    requests = [
        ("GET", "/api/v1/3x3?board=" + "%FF" * 10, None),
        ("GET", "/api/v1/3x3?board=X&board=O", None),
        ("POST", "/api/v1/3x3/batch", b"x" * (2 << 20)),
        ("POST", "/api/v1/3x3/batch", json.dumps({"boards": ["X"] * 10_001}).encode()),
        ("GET", "/static/../../etc/passwd", None),
        ("GET", "/docs/assets/none.js", None),
    ]
    for method, url, body in requests:
        response = client.request(method, url, content=body, headers={"content-type": "application/json"})
        assert 400 <= response.status_code < 500 and is_json_error(response), (url, response.text[:200])
