"""The API's error shape, ``{"error": "one message"}``, written without the framework.

Every error the server answers has this shape: the app's handlers (:mod:`.errors`), the ASGI
middleware in front of the app (as ASGI messages) and the connection layer under it
(:mod:`.protocol`, as raw HTTP/1.1 bytes, for what never reaches the app: a malformed or
oversized request head, a client too slow, a server too busy).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from http import HTTPStatus
from typing import Any

JSON = b"application/json"


def error_body(message: str) -> bytes:
    return json.dumps({"error": message}, separators=(",", ":")).encode()


async def send_error(send: Any, status: int, message: str, headers: list[tuple[bytes, bytes]] | None = None) -> None:
    """Answer one ASGI request with a JSON error."""
    body = error_body(message)
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", JSON), (b"content-length", str(len(body)).encode()), *(headers or ())],
        }
    )
    await send({"type": "http.response.body", "body": body})


def http_error(status: int, message: str, headers: Sequence[tuple[bytes, bytes]] = ()) -> bytes:
    """A whole HTTP/1.1 response carrying a JSON error, closing the connection."""
    body = error_body(message)
    lines = [f"HTTP/1.1 {status} {HTTPStatus(status).phrase}".encode()]
    lines += [name + b": " + value for name, value in headers]
    lines += [b"content-type: " + JSON, b"content-length: " + str(len(body)).encode(), b"connection: close"]
    return b"\r\n".join(lines) + b"\r\n\r\n" + body
