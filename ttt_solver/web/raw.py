"""The API's error shape, ``{"error": "one message"}``, written without the framework.

Every error the app answers has this shape: its handlers (:mod:`.errors`) and the ASGI
middleware in front of it (as ASGI messages). What never reaches the app (a malformed request
head, a server at its concurrency cap) is answered by uvicorn itself, in plain text.
"""

from __future__ import annotations

import json
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
