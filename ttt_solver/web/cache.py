"""An in-process HTTP cache in front of the API, as plain ASGI middleware.

A database's answers never change (the ETag is its digest), so a successful GET under the API
prefix is kept as bytes, keyed by its exact path and query string, and a repeated request is
answered from memory (or with 304 for a matching ``If-None-Match``) without passing through
the framework's routing and validation again. Only 200 responses that carry an ETag are kept,
so errors always take the full path; the cache is bounded and starts over when full.
"""

from __future__ import annotations

from typing import Any

Message = dict[str, Any]
Headers = list[tuple[bytes, bytes]]
_KEPT_BY_304 = (b"etag", b"cache-control")


class ResponseCache:
    def __init__(self, app: Any, prefix: str = "/api/v1/", max_entries: int = 1 << 16) -> None:
        self.app = app
        self.prefix = prefix
        self.max_entries = max_entries
        # (path, query) -> (headers, etag, body, the headers of a 304)
        self.entries: dict[tuple[str, bytes], tuple[Headers, bytes, bytes, Headers]] = {}

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "GET" or not scope["path"].startswith(self.prefix):
            await self.app(scope, receive, send)
            return
        key = (scope["path"], scope["query_string"])
        hit = self.entries.get(key)
        if hit is not None:
            headers, etag, body, not_modified = hit
            for name, value in scope["headers"]:
                if name == b"if-none-match" and (value.strip() == b"*" or etag in value.replace(b" ", b"").split(b",")):
                    await send({"type": "http.response.start", "status": 304, "headers": not_modified})
                    await send({"type": "http.response.body", "body": b""})
                    return
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        if self.max_entries <= 0:
            await self.app(scope, receive, send)
            return
        await self.app(scope, receive, self._recording(key, send))

    def _recording(self, key: tuple[str, bytes], send: Any) -> Any:
        started: list[Message] = []
        parts: list[bytes] = []

        async def record(message: Message) -> None:
            if message["type"] == "http.response.start":
                started.append(message)
            elif message["type"] == "http.response.body" and started:
                parts.append(message.get("body", b""))
                if not message.get("more_body", False):
                    self._keep(key, started[0], b"".join(parts))
            await send(message)

        return record

    def _keep(self, key: tuple[str, bytes], start: Message, body: bytes) -> None:
        headers = [(bytes(name).lower(), bytes(value)) for name, value in start.get("headers", ())]
        etag = next((value for name, value in headers if name == b"etag"), None)
        if start["status"] != 200 or etag is None:
            return
        if len(self.entries) >= self.max_entries:
            self.entries.clear()
        self.entries[key] = (headers, etag, body, [pair for pair in headers if pair[0] in _KEPT_BY_304])
