"""Where a database lives: a SQLite file path, a ``sqlite:///`` URL, or another SQLAlchemy URL.

``postgresql://`` (and ``postgres://``) URLs are read and written through psycopg 3, the
driver of the ``[postgres]`` extra, as ``postgresql+psycopg://``. A password in a URL is
shown as ``***`` in every message.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from ..errors import InvalidTargetError


class Target(NamedTuple):
    """A parsed ``--db`` argument."""

    spec: str  # as the user gave it, for messages (a password masked)
    path: Path | None  # the SQLite file, when there is one
    url: str  # what SQLAlchemy connects to

    @classmethod
    def parse(cls, spec: str | Path) -> Target:
        text = str(spec)
        if text.strip() in (":memory:", ""):
            raise InvalidTargetError(
                f"invalid database {text!r}: give a file path or URL (an in-memory database would vanish with the command)"
            )
        if "://" not in text:
            path = _expanded(text, text)
            return cls(text, path, f"sqlite:///{path}")
        scheme, _, rest = text.partition("://")
        if scheme.split("+")[0] == "sqlite":
            if not rest.startswith("/") or rest == "/" or ":memory:" in rest:
                raise InvalidTargetError(
                    f"invalid database {text!r}: a SQLite URL must name a file, e.g. sqlite:///data/ttt.sqlite"
                )
            return cls(text, _expanded(rest[1:], text), text)
        if scheme in ("postgresql", "postgres"):
            return cls(_masked(text), None, f"postgresql+psycopg://{rest}")
        return cls(_masked(text), None, text)

    def __str__(self) -> str:
        return self.spec


def _masked(url: str) -> str:
    """``url`` with the password of its ``user:password@`` part replaced by ``***``."""
    scheme, _, rest = url.partition("://")
    authority, slash, path = rest.partition("/")
    user, at, host = authority.rpartition("@")
    if not at or ":" not in user:
        return url
    return f"{scheme}://{user.partition(':')[0]}:***@{host}{slash}{path}"


def _expanded(path: str, spec: str) -> Path:
    """``path`` with a leading ``~`` or ``~user`` expanded; InvalidTargetError for an unknown user."""
    try:
        return Path(path).expanduser()
    except RuntimeError:  # pathlib's "Could not determine home directory."
        raise InvalidTargetError(f"invalid database {spec!r}: no home directory for {path.split('/')[0]!r}") from None
