"""The HTTP API and the explorer page, as a FastAPI app over the served databases.

``create_app(served)`` takes the variants to serve: a :class:`~.watch.Registry` (each
database opened when its variant is first asked for, in a thread, the variant answered
"loading" meanwhile), or databases already opened. It opens a database again when the file
changed under it (:mod:`.watch`), and never builds or writes one. Values are +1 win, 0 draw,
-1 loss for the side to move.

Answers for one database content never change: every position carries the content digest as
its ETag, and :class:`~ttt_solver.web.response_cache.ResponseCache` keeps successful answers as bytes.
In front of the app: :class:`~.rewrite.Rewrite` (HEAD, trailing slashes),
:class:`~.limits.RequestLimits` (query and body sizes), the cache, and CORS when asked for.
"""

from __future__ import annotations

import asyncio
import json
import operator
import time
from collections.abc import Mapping, Sequence
from importlib.resources import files
from pathlib import Path
from typing import Annotated, Any

import numpy as np
from fastapi import FastAPI, Query, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from starlette.responses import Response

from ..version import __version__
from . import data, error_responses
from .cors import JsonCors
from .limits import RequestLimits
from .models import BatchIn, BatchOut, ErrorOut, HealthOut, PositionOut, VariantsOut
from .response_cache import ResponseCache, parsed_board
from .rewrite import Rewrite
from .watch import Loading, Registry

API = "/api/v1"
MAX_BODY_BYTES = 1 << 20  # 10,000 boards of 16 cells in any spelling fit easily
MAX_BOARD_CHARS = 200  # a query's board or moves text
MAX_QUERY_BYTES = 2048  # a query string: board or moves, percent-encoded, with room to spare
CACHE_BYTES = 64 << 20
CACHE_CONTROL = "public, max-age=3600"
LOAD_WAIT = 1.0  # seconds a request waits for its variant's database to open before "loading"
_JSON = "application/json"
_ERROR_TEXTS = {
    400: "Bad input: an illegal board or move list, or both or neither given",
    404: "The variant is not served, or has no database (the message names the command that builds it)",
    413: "The body or the batch is too large",
    414: "The query string is too long",
    415: "The body is not marked as JSON",
    422: "The request does not match the schema",
    503: "The variant's database is being opened (status 'loading', with Retry-After), cannot be read now"
    " (the message names the command that rebuilds it), or the batch took too long",
}


def _errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    return {status: {"model": ErrorOut, "description": _ERROR_TEXTS[status]} for status in statuses}


def _dumps(thing: Any) -> bytes:
    return json.dumps(thing, separators=(",", ":")).encode()


def _not_modified(request: Request, etag: str) -> bool:
    match = request.headers.get("if-none-match")
    return match is not None and (match.strip() == "*" or etag in (tag.strip() for tag in match.split(",")))


def create_app(
    served: Registry | Mapping[str, data.Served],
    *,
    time_limit: float = 10.0,
    max_body: int = MAX_BODY_BYTES,
    cache_bytes: int = CACHE_BYTES,
    check_interval: float = 1.0,
    cors_origins: Sequence[str] = (),
) -> FastAPI:
    """The app serving ``served`` (a registry, or variant name -> opened database);
    ``time_limit`` (seconds) bounds a batch, ``max_body`` (bytes) a request body,
    ``cache_bytes`` the answers kept (0: none); each opened database is checked for changes at
    most every ``check_interval`` seconds (see :mod:`.watch`; a registry has its own);
    ``cors_origins`` may call the API from a browser page (none: no CORS)."""
    app = FastAPI(
        title="ttt-solver",
        version=__version__,
        summary="Exact values, remoteness and best moves of tic-tac-toe and its m,n,k and misère variants",
        description="Values are +1 win, 0 draw, -1 loss, always for the side to move. "
        "Remoteness is the number of plies to the end under perfect play.",
        docs_url=None,
        redoc_url=None,
        redirect_slashes=False,  # its redirects name the Host header's host; Rewrite answers in place
    )
    registry = served if isinstance(served, Registry) else Registry.of_opened(served.values(), check_interval)
    error_responses.install(app)
    app.add_middleware(ResponseCache, registry=registry, prefix=f"{API}/", max_bytes=cache_bytes)
    app.add_middleware(RequestLimits, max_body=max_body, max_query=MAX_QUERY_BYTES)
    app.add_middleware(Rewrite)
    if cors_origins:
        app.add_middleware(JsonCors, origins=cors_origins)
    _meta_routes(app, registry)
    _position_routes(app, registry, time_limit)
    _mount_page(app)
    return app


def _meta_routes(app: FastAPI, registry: Registry) -> None:
    """``/health`` and the list of variants served."""
    listing = _Listing(registry)

    @app.get("/health", response_model=HealthOut, tags=["meta"])
    async def health() -> Response:
        """Liveness: always ``{"status": "ok"}``."""
        return Response(b'{"status":"ok"}', media_type=_JSON)

    @app.get(f"{API}/variants", response_model=VariantsOut, tags=["meta"])
    async def variants(request: Request) -> Response:
        """The variants served, with their database's meta table and statistics; a variant
        whose database is not opened yet has ``status`` "not loaded" or "loading" and null
        meta and stats (asking for one of its positions opens it)."""
        body, etag = listing.current()
        headers = {"ETag": etag, "Cache-Control": CACHE_CONTROL}
        if _not_modified(request, etag):
            return Response(status_code=304, headers=headers)
        return Response(body, media_type=_JSON, headers=headers)


def _position_routes(app: FastAPI, registry: Registry, time_limit: float) -> None:
    """One position, and a batch of them (``time_limit``: seconds a batch may take)."""

    @app.get(
        f"{API}/{{variant}}",
        response_model=PositionOut,
        responses={**_errors(400, 404, 414, 422, 503), 304: {}},
        tags=["positions"],
    )
    async def position(
        request: Request,
        variant: str,
        board: Annotated[
            str | None, Query(max_length=MAX_BOARD_CHARS, description="Board text, e.g. X...O....")
        ] = None,
        moves: Annotated[
            str | None, Query(max_length=MAX_BOARD_CHARS, description="Cells played from the empty board, e.g. 4,0")
        ] = None,
    ) -> Response:
        """One position: exactly the fields of ``ttt-lookup analyze --json``. Give ``board`` or ``moves``."""
        one = await _current(registry, variant)
        asked = parsed_board(request.scope) or data.question(one, board, moves)
        headers = {"ETag": one.etag, "Cache-Control": CACHE_CONTROL}
        if _not_modified(request, one.etag):
            return Response(status_code=304, headers=headers)
        return Response(_dumps(data.position(one, asked)), media_type=_JSON, headers=headers)

    @app.post(
        f"{API}/{{variant}}/batch",
        response_model=BatchOut,
        responses=_errors(400, 404, 413, 415, 422, 503),
        tags=["positions"],
    )
    async def batch(variant: str, body: BatchIn) -> Response:
        """Value, remoteness and one best move of up to 10,000 boards, in the order given
        (``best_move`` is null on a finished board). A bad board makes the batch a 400, or, with
        ``"on_error": "item"``, an error object in its place."""
        one = await _current(registry, variant)
        found = data.batch(one, body.boards, time.monotonic() + time_limit, each=body.on_error == "item")
        return Response(_batch_json(found, body.boards), media_type=_JSON)


async def _current(registry: Registry, name: str) -> data.Served:
    """The variant's current copy; one being opened is waited for up to ``LOAD_WAIT`` seconds
    (a small database opens in less), then answered "loading" (see :mod:`.watch`)."""
    deadline = time.monotonic() + LOAD_WAIT
    while True:
        try:
            return registry.get(name)
        except Loading:
            if time.monotonic() >= deadline:
                raise
            await asyncio.sleep(0.02)


class _Listing:
    """The body and ETag of the variant list, made again only when the copies served change."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self.made: dict[tuple[tuple[str, str, int], ...], tuple[bytes, str]] = {}

    def current(self) -> tuple[bytes, str]:
        listed = self.registry.listed()
        key = tuple((one.name, one.status, one.served.serial if one.served else 0) for one in listed)
        if key not in self.made:
            self.made.clear()
            body = _dumps({"variants": [one.describe() for one in listed]})
            tags = [one.served.etag.strip('"')[:12] if one.served else f"{one.name}-{one.status}" for one in listed]
            self.made[key] = body, '"' + "-".join(tags).replace(" ", "_") + '"'
        return self.made[key]


def _batch_json(found: dict[str, Any], given: list[str]) -> bytes:
    """The batch answer as JSON text. Board texts are plain X, O and ., and a row's other
    fields take few distinct values, so each distinct tail is formatted once. Each bad board
    (``found["errors"]``) is an error object in its place, with the board as ``given``."""
    boards: list[str] = found["boards"]
    errors: dict[int, str] = found["errors"]
    rows: list[str] = []
    if boards:
        # value + 1, remoteness and best move + 1 each fit in 6 bits (at most 25 cells)
        code = (found["values"].astype(np.int32) + 1) << 12
        code |= found["remoteness"].astype(np.int32) << 6
        code |= found["best_moves"].astype(np.int32) + 1
        kinds, which = np.unique(code, return_inverse=True)
        tails = [_tail(int(kind)) for kind in kinds]
        rows = ['{"board":"' + row + "}" for row in map(operator.add, boards, [tails[i] for i in which.tolist()])]
    if errors:
        answered = iter(rows)
        rows = [
            json.dumps({"board": given[i], "error": errors[i]}, separators=(",", ":"))
            if i in errors
            else next(answered)
            for i in range(len(given))
        ]
    return ('{"results":[' + ",".join(rows) + "]}").encode()


def _tail(code: int) -> str:
    value, remoteness, cell = (code >> 12) - 1, (code >> 6) & 63, (code & 63) - 1
    return f'","value":{value},"remoteness":{remoteness},"best_move":{"null" if cell < 0 else cell}'


def _mount_page(app: FastAPI) -> None:
    """The explorer at ``/`` and the offline API documentation at ``/docs``."""
    static = Path(str(files("ttt_solver.web") / "static"))
    index = (static / "index.html").read_bytes()

    @app.get("/", include_in_schema=False)
    async def page() -> Response:
        return HTMLResponse(index)

    app.mount("/static", StaticFiles(directory=static), name="static")
    try:
        # Imported here, not at the top: fastapi-offline is optional.
        import fastapi_offline
    except ImportError:  # pragma: no cover - the [web] extra installs it
        return
    assets = Path(fastapi_offline.__file__).parent / "static"
    app.mount("/docs/assets", StaticFiles(directory=assets), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url="/openapi.json",
            title="ttt-solver API",
            swagger_js_url="/docs/assets/swagger-ui-bundle.js",
            swagger_css_url="/docs/assets/swagger-ui.css",
            swagger_favicon_url="/docs/assets/favicon.png",
        )
