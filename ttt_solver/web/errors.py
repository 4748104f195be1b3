"""Errors as JSON: ``{"error": "one message"}`` with a 4xx status for anything the client sent,
and a 500 (logged, with no details) only for a bug in the server.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse, Response

from ..errors import InvalidBoardError, InvalidVariantError, TTTError
from .data import BatchTimeout

log = logging.getLogger("ttt_solver.web")


class ApiError(Exception):
    """A request the API refuses: a status and one message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def error_response(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


def _validation_message(error: RequestValidationError) -> str:
    """The first problem pydantic found, as one line naming where it is."""
    problems = list(error.errors())
    if not problems:
        return "invalid request"
    first = problems[0]
    where = ".".join(str(part) for part in first.get("loc", ()) if part != "body") or "request"
    message = str(first.get("msg", "invalid value"))
    if first.get("type") == "json_invalid":
        return f"invalid JSON body: {first.get('ctx', {}).get('error', message)}"
    more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
    return f"{where}: {message}{more}"


def install(app: FastAPI) -> None:
    """Register the handlers that turn every failure into one JSON error."""

    async def api_error(_request: Request, error: Exception) -> Response:
        assert isinstance(error, ApiError)
        return error_response(error.status, error.message)

    async def http_error(_request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        if error.status_code == 304:
            return Response(status_code=304, headers=error.headers)
        message = error.detail if isinstance(error.detail, str) else "request refused"
        if error.status_code == 404 and message == "Not Found":
            message = f"no such page {_request.url.path!r}: the API is under /api/v1, its documentation at /docs"
        return error_response(error.status_code, message, dict(error.headers or {}))

    async def validation_error(_request: Request, error: Exception) -> Response:
        assert isinstance(error, RequestValidationError)
        too_long = any(
            p.get("type") == "too_long" and tuple(p.get("loc", ()))[-1:] == ("boards",) for p in error.errors()
        )
        return error_response(413 if too_long else 422, _validation_message(error))

    async def library_error(_request: Request, error: Exception) -> Response:
        if isinstance(error, BatchTimeout):
            return error_response(503, str(error))
        if isinstance(error, InvalidVariantError):
            return error_response(404, str(error))
        if isinstance(error, (InvalidBoardError, ValueError)):
            return error_response(400, str(error))
        log.error("database error: %s", error)
        return error_response(503, str(error))

    async def server_bug(request: Request, error: Exception) -> Response:
        log.exception("internal error on %s %s", request.method, request.url.path, exc_info=error)
        return error_response(500, "internal server error (logged on the server)")

    handlers: dict[Any, Any] = {
        ApiError: api_error,
        HTTPException: http_error,
        RequestValidationError: validation_error,
        TTTError: library_error,
        BatchTimeout: library_error,
        Exception: server_bug,
    }
    for kind, handler in handlers.items():
        app.add_exception_handler(kind, handler)
