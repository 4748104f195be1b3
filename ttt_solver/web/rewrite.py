"""Two spellings of a request answered as the one the app knows, with no redirect (plain ASGI
middleware, first in line):

- ``HEAD`` is answered as ``GET`` is, headers only (uvicorn sends no body for a HEAD; this
  drops it for any other server too);
- a path ending in ``/`` (other than ``/`` itself) is answered as the path without it.

The framework would redirect ``/api/v1/3x3/`` to an absolute URL made from the request's
``Host`` header, which a client can set to any host; the app turns such redirects off, and
this answers the request in place instead.
"""

from __future__ import annotations

from typing import Any

Scope = dict[str, Any]
Message = dict[str, Any]


class Rewrite:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        head = scope["method"] == "HEAD"
        if head or (len(path) > 1 and path.endswith("/")):
            scope = dict(scope)
            if len(path) > 1 and path.endswith("/"):
                scope["path"] = path.rstrip("/") or "/"
                raw = scope.get("raw_path")
                if raw:
                    scope["raw_path"] = raw.rstrip(b"/") or b"/"
            if head:
                scope["method"] = "GET"
                send = _headers_only(send)
        await self.app(scope, receive, send)


def _headers_only(send: Any) -> Any:
    async def headers_only(message: Message) -> None:
        if message["type"] == "http.response.body":
            message = {**message, "body": b""}
        await send(message)

    return headers_only
