"""Cross-origin requests, for the origins ``--cors-origin`` names only (off by default).

Starlette's CORS middleware, whose preflight answers (plain ``OK``, or a plain-text 400 for an
origin, method or header not allowed) are given the API's JSON shape like every other answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from starlette.datastructures import Headers
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import Response

from .raw import error_body

_ORIGIN = re.compile(r"https?://[^/\s?#@]+")


def origin_error(origin: str) -> str | None:
    """Why ``origin`` is no origin a browser sends (``scheme://host[:port]``, or ``*``), or None."""
    if origin == "*" or _ORIGIN.fullmatch(origin):
        return None
    return "expected scheme://host[:port] with no path, e.g. https://example.org, or *"


class JsonCors(CORSMiddleware):
    def __init__(self, app: Any, origins: Sequence[str]) -> None:
        super().__init__(
            app,
            allow_origins=list(origins),
            allow_methods=["GET", "HEAD", "POST"],
            allow_headers=["Content-Type", "If-None-Match"],
            expose_headers=["ETag"],
            max_age=600,
        )

    def preflight_response(self, request_headers: Headers) -> Response:
        answer = super().preflight_response(request_headers)
        if answer.status_code == 200:
            body = b'{"status":"ok"}'
        else:
            refused = bytes(answer.body).decode("utf-8", "replace")
            body = error_body(f"cross-origin request refused: {refused[0].lower()}{refused[1:]}")
        headers = {k: v for k, v in answer.headers.items() if k.lower() not in ("content-length", "content-type")}
        return Response(body, status_code=answer.status_code, headers=headers, media_type="application/json")
