"""An in-process HTTP cache in front of the position endpoint, as plain ASGI middleware.

A database's answers never change, so the answer for a position is kept as bytes, keyed by
the question itself: the served copy of the variant (:attr:`~ttt_solver.web.data.Served.serial`)
and the normalised board, however the request spelled it (``board=x../.o./...`` or
``moves=0,4``; any case of the variant's name). A request with anything else in its query
string (an unknown or repeated parameter) is answered by the app and not kept, so junk cannot
fill the cache; the cache is bounded in bytes and drops the least recently used answers
first. A repeated question is answered from memory (or with 304 for a matching
``If-None-Match``) without passing through the framework's routing and validation. Only 200
responses that carry an ETag are kept: errors always take the full path.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote_plus

from ..errors import TTTError
from ..game.rules import Board
from . import data
from .watch import Loading, Registry

PARSED_BOARD = "ttt_solver.board"  # the scope key under which the cache hands the app the board it parsed
Message = dict[str, Any]
Headers = list[tuple[bytes, bytes]]
Key = tuple[int, str]
_KEPT_BY_304 = (b"etag", b"cache-control")
_ENTRY_OVERHEAD = 200  # bytes of bookkeeping per answer, beyond its body and headers
_SPELLINGS = 4096  # queries remembered with their normalised board (each under 700 bytes: 3 MB at most)


class ResponseCache:
    def __init__(self, app: Any, registry: Registry, prefix: str = "/api/v1/", max_bytes: int = 64 << 20) -> None:
        self.app = app
        self.registry = registry
        self.prefix = prefix
        self.max_bytes = max_bytes
        self.size = 0  # bytes held
        # key -> (headers, etag, body, the headers of a 304, size)
        self.entries: OrderedDict[Key, tuple[Headers, bytes, bytes, Headers, int]] = OrderedDict()
        self._boards: dict[tuple[str, bytes], Board] = {}  # (variant, query) -> its board

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        asked = self._question(scope) if self.max_bytes > 0 else None
        if asked is None:
            await self.app(scope, receive, send)
            return
        serial, board = asked
        key = serial, board.text
        hit = self.entries.get(key)
        if hit is None:
            # Parsed once a request: the app takes the board from here (see parsed_board).
            await self.app({**scope, PARSED_BOARD: board}, receive, self._recording(key, send))
            return
        self.entries.move_to_end(key)
        headers, etag, body, not_modified, _size = hit
        for name, value in scope["headers"]:
            if name == b"if-none-match" and (value.strip() == b"*" or etag in value.replace(b" ", b"").split(b",")):
                await send({"type": "http.response.start", "status": 304, "headers": list(not_modified)})
                await send({"type": "http.response.body", "body": b""})
                return
        # A copy: the layers in front (CORS) add their headers to the message's own list.
        await send({"type": "http.response.start", "status": 200, "headers": list(headers)})
        await send({"type": "http.response.body", "body": body})

    def _question(self, scope: dict[str, Any]) -> tuple[int, Board] | None:
        """The question of a GET for one position: the served copy's serial and the board, or
        None for any other request."""
        if scope["type"] != "http" or scope["method"] != "GET" or not scope["path"].startswith(self.prefix):
            return None
        variant = scope["path"][len(self.prefix) :]
        query = scope["query_string"]
        if "/" in variant or b";" in query or query.count(b"=") != 1 or b"&" in query:
            return None
        name, _, raw = query.partition(b"=")
        if name not in (b"board", b"moves") or len(raw) > 600:
            return None
        try:
            served = self.registry.get(variant)
            board = self._boards.get((variant, query)) or self._board(served, variant, query)
        except (TTTError, Loading, UnicodeError, ValueError):
            return None  # the app says what is wrong, or waits for the variant
        return served.serial, board

    def _board(self, served: data.Served, variant: str, query: bytes) -> Board:
        """The board of a ``board=`` or ``moves=`` query, parsed as the app parses it."""
        name, _, raw = query.partition(b"=")
        text = unquote_plus(raw.decode("ascii"), errors="strict")
        board = data.question(served, text if name == b"board" else None, text if name == b"moves" else None)
        if len(self._boards) >= _SPELLINGS:
            self._boards.clear()
        self._boards[variant, query] = board  # a variant's name spells the same geometry in every copy
        return board

    def _recording(self, key: Key, send: Any) -> Any:
        started: list[Message] = []
        parts: list[bytes] = []

        async def record(message: Message) -> None:
            if message["type"] == "http.response.start":
                started.append({**message, "headers": list(message.get("headers", ()))})  # as the app sent it
            elif message["type"] == "http.response.body" and started:
                parts.append(message.get("body", b""))
                if not message.get("more_body", False):
                    self._keep(key, started[0], b"".join(parts))
            await send(message)

        return record

    def _keep(self, key: Key, start: Message, body: bytes) -> None:
        headers = [(bytes(name).lower(), bytes(value)) for name, value in start.get("headers", ())]
        etag = next((value for name, value in headers if name == b"etag"), None)
        if start["status"] != 200 or etag is None or key in self.entries:
            return
        size = len(body) + sum(len(n) + len(v) for n, v in headers) + len(key[1]) + _ENTRY_OVERHEAD
        if size > self.max_bytes:
            return
        while self.size + size > self.max_bytes:
            _old, (*_rest, freed) = self.entries.popitem(last=False)
            self.size -= freed
        self.entries[key] = (headers, etag, body, [pair for pair in headers if pair[0] in _KEPT_BY_304], size)
        self.size += size


def parsed_board(scope: Mapping[str, Any]) -> Board | None:
    """The board the cache parsed for this request (a GET of one position that it did not
    answer itself), or None: the app parses the query then."""
    found = scope.get(PARSED_BOARD)
    return found if isinstance(found, Board) else None
