"""What a request may be, checked before the app sees it (plain ASGI middleware, no cost beyond
a header check): a query string of at most ``max_query`` bytes (414: no question to this API
comes near it) and a body of at most ``max_body`` bytes (413, by its ``Content-Length`` or as
it streams in). How fast it must arrive is the reverse proxy's business (``docs/deploy.md``).
"""

from __future__ import annotations

from typing import Any

from .raw import send_error

Scope = dict[str, Any]
Message = dict[str, Any]


class RequestLimits:
    def __init__(self, app: Any, max_body: int, max_query: int) -> None:
        self.app = app
        self.max_body = max_body
        self.max_query = max_query

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if len(scope["query_string"]) > self.max_query:
            too_long = f"the query string is too long: the limit is {self.max_query:,} bytes (a board is far shorter)"
            await send_error(send, 414, too_long)
            return
        if scope["method"] in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        for name, value in scope["headers"]:
            if name == b"content-length" and (not value.isdigit() or int(value) > self.max_body):
                await self._refuse(send)
                return
        # Read the body here (it is small by construction), then replay it to the app.
        chunks: list[bytes] = []
        seen = 0
        more = True
        while more:
            message: Message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunk = message.get("body", b"")
            seen += len(chunk)
            if seen > self.max_body:
                await self._refuse(send)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if sent:
                later: Message = await receive()
                return later
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)

    async def _refuse(self, send: Any) -> None:
        await send_error(send, 413, f"request body too large: the limit is {self.max_body:,} bytes")
