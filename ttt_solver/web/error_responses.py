"""Errors as JSON: ``{"error": "one message"}`` with a 4xx status for anything the client sent,
and a 500 (logged, with no details) only for a bug in the server.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.responses import Response

from ..errors import InvalidBoardError, InvalidVariantError, TTTError
from .data import BatchTimeout
from .raw import error_body
from .watch import Loading

log = logging.getLogger("ttt_solver.web")


def error_response(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    return Response(error_body(message), status_code=status, headers=headers, media_type="application/json")


_LOCATIONS = ("body", "query", "path", "header", "cookie")
_PLACES_SHOWN = 5
RETRY_AFTER = 2  # seconds a client asking for a variant being opened is told to wait
SEND_JSON = 'send a JSON object such as {"boards": ["X...O...."]} with Content-Type: application/json'


def where(loc: Sequence[int | str]) -> str:
    """A place in a request, as every error names it: ``boards[3]`` (names joined by dots,
    indexes in brackets; the parameter's own name for a query parameter)."""
    parts = list(loc)
    if parts and parts[0] in _LOCATIONS:
        parts = parts[1:]
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else str(part)
    return text or "the body"


def validation_message(problems: Sequence[Any]) -> str:
    """Every problem pydantic found, in one line: each distinct message once, after the places
    it was found (the first few of them, and how many more)."""
    if not problems:
        return "invalid request"
    first = problems[0]
    if first.get("type") == "json_invalid":
        loc = tuple(first.get("loc", ()))
        at = f" at byte {loc[1]}" if len(loc) > 1 and isinstance(loc[1], int) else ""
        return f"invalid JSON body: {first.get('ctx', {}).get('error', first.get('msg', 'invalid JSON'))}{at}"
    places: dict[str, list[str]] = {}
    for problem in problems:
        places.setdefault(str(problem.get("msg", "invalid value")), []).append(where(problem.get("loc", ())))
    parts = []
    for message, found in places.items():
        shown = ", ".join(found[:_PLACES_SHOWN])
        more = f" and {len(found) - _PLACES_SHOWN:,} more" if len(found) > _PLACES_SHOWN else ""
        parts.append(f"{shown}{more}: {message}")
    return "; ".join(parts)


def _not_json(request: Request) -> bool:
    """A body sent as something other than JSON (or with no type at all)."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    return not (kind == "application/json" or (kind.startswith("application/") and kind.endswith("+json")))


def _unparsed(error: BaseException | None) -> str:
    """Why a JSON body could not be read (FastAPI says only "error parsing the body")."""
    if isinstance(error, RecursionError):
        return "invalid JSON body: nested too deeply"
    if isinstance(error, UnicodeDecodeError):
        return f"invalid JSON body: not UTF-8 (byte {error.object[error.start]:#04x} at position {error.start})"
    return "invalid JSON body"


def install(app: FastAPI) -> None:
    """Register the handlers that turn every failure into one JSON error."""

    async def http_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        if error.status_code == 304:
            return Response(status_code=304, headers=error.headers)
        headers = dict(error.headers or {})
        message = error.detail if isinstance(error.detail, str) else "request refused"
        if error.status_code == 404 and message == "Not Found":
            message = f"no such page {request.url.path!r}: the API is under /api/v1, its documentation at /docs"
        elif error.status_code == 405:
            allowed = [m.strip() for m in headers.pop("allow", headers.pop("Allow", "")).split(",") if m.strip()]
            if "GET" in allowed and "HEAD" not in allowed:
                allowed.append("HEAD")
            headers["Allow"] = ", ".join(allowed)
            message = f"method {request.method} is not allowed on {request.url.path!r}; allowed: {headers['Allow']}"
        elif error.status_code == 400 and message == "There was an error parsing the body":
            return error_response(422, _unparsed(error.__cause__))
        return error_response(error.status_code, message, headers)

    async def validation_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, RequestValidationError)
        problems = list(error.errors())
        if request.method == "POST" and _not_json(request):
            return error_response(415, f"the body is not marked as JSON: {SEND_JSON}")
        if any(tuple(p.get("loc", ())) == ("body",) and p.get("type") == "missing" for p in problems):
            return error_response(422, f"no body: {SEND_JSON}")
        too_long = any(p.get("type") == "too_long" and tuple(p.get("loc", ()))[-1:] == ("boards",) for p in problems)
        return error_response(413 if too_long else 422, validation_message(problems))

    async def library_error(_request: Request, error: Exception) -> Response:
        if isinstance(error, BatchTimeout):
            return error_response(503, str(error))
        if isinstance(error, InvalidVariantError):
            return error_response(404, str(error))
        if isinstance(error, (InvalidBoardError, ValueError)):
            return error_response(400, str(error))
        log.error("database error: %s", error)
        return error_response(503, str(error))

    async def loading(_request: Request, error: Exception) -> Response:
        body = json.dumps({"error": str(error), "status": "loading"}, separators=(",", ":")).encode()
        headers = {"Retry-After": str(RETRY_AFTER)}
        return Response(body, status_code=503, headers=headers, media_type="application/json")

    async def server_bug(request: Request, error: Exception) -> Response:
        log.exception("internal error on %s %s", request.method, request.url.path, exc_info=error)
        return error_response(500, "internal server error (logged on the server)")

    handlers: dict[Any, Any] = {
        HTTPException: http_error,
        RequestValidationError: validation_error,
        TTTError: library_error,
        BatchTimeout: library_error,
        Loading: loading,
        Exception: server_bug,
    }
    for kind, handler in handlers.items():
        app.add_exception_handler(kind, handler)
