"""Where a database lives: a SQLite file path, a ``sqlite:///`` URL, or another SQLAlchemy URL.

``postgresql://`` (and ``postgres://``) URLs are read and written through psycopg 3, the
driver of the ``[postgres]`` extra, as ``postgresql+psycopg://``. A password in a URL is
shown as ``***`` in every message.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, NamedTuple

from ..errors import InvalidTargetError
from .paths import file_name

if TYPE_CHECKING:
    from pathlib import Path


class Target(NamedTuple):
    """A parsed ``--db`` argument."""

    spec: str  # as the user gave it, for messages (a password masked)
    file: str | None  # the SQLite file, when there is one (a str: a lookup does not import pathlib)
    url: str  # what SQLAlchemy connects to

    @classmethod
    def parse(cls, spec: str | os.PathLike[str]) -> Target:
        text = os.fspath(spec) if isinstance(spec, os.PathLike) else spec
        if not isinstance(text, str):
            raise InvalidTargetError(f"invalid database {text!r}: give a file path or URL as text")
        if text.strip() in (":memory:", ""):
            raise InvalidTargetError(
                f"invalid database {text!r}: give a file path or URL (an in-memory database would vanish with the command)"
            )
        if "://" not in text:
            path = _expanded(file_name(text, "database"), text)
            return cls(text, path, f"sqlite:///{path}")
        scheme, _, rest = text.partition("://")
        if scheme.split("+")[0] == "sqlite":
            if not rest.startswith("/") or rest == "/" or ":memory:" in rest:
                raise InvalidTargetError(
                    f"invalid database {text!r}: a SQLite URL must name a file, e.g. sqlite:///data/ttt.sqlite"
                )
            return cls(text, _expanded(file_name(rest[1:], "database"), text), text)
        if "\0" in text or not _utf8(text):
            raise InvalidTargetError(
                f"invalid database {_masked(text)!r}: a URL cannot hold a NUL character or a lone surrogate"
            )
        if scheme in ("postgresql", "postgres"):
            return cls(_masked(text), None, f"postgresql+psycopg://{rest}")
        return cls(_masked(text), None, text)

    @property
    def path(self) -> Path | None:
        """:attr:`file` as a Path."""
        from pathlib import Path

        return None if self.file is None else Path(self.file)

    def __str__(self) -> str:
        return self.spec


def file_kind(path: str) -> str | None:
    """What is at ``path`` when it is not a regular file: ``"a folder"``, ``"a FIFO"``, ...;
    None for a regular file or nothing at all (a symbolic link is followed). OSError when
    the system cannot look (a name too long, a loop of links, a folder it may not enter)."""
    import stat

    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None
    if stat.S_ISREG(mode):
        return None
    kinds = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"))
    return next((name for test, name in kinds if test(mode)), "a device")


def _masked(url: str) -> str:
    """``url`` with the password of its ``user:password@`` part replaced by ``***``."""
    scheme, _, rest = url.partition("://")
    authority, slash, path = rest.partition("/")
    user, at, host = authority.rpartition("@")
    if not at or ":" not in user:
        return url
    return f"{scheme}://{user.partition(':')[0]}:***@{host}{slash}{path}"


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate
        return False
    return True


def _expanded(path: str, spec: str) -> str:
    """``path`` with a leading ``~`` or ``~user`` expanded; InvalidTargetError for an unknown
    user, or for a path that ends in ``/`` (a folder: it names no database file)."""
    expanded = os.path.expanduser(path)
    if expanded.startswith("~"):  # left as it was: no such user, or no home directory
        raise InvalidTargetError(f"invalid database {spec!r}: no home directory for {path.split('/')[0]!r}")
    if expanded.endswith(os.sep) or (os.altsep and expanded.endswith(os.altsep)):
        example = os.path.join(expanded, "ttt.sqlite")
        raise InvalidTargetError(
            f"invalid database {spec!r}: a path ending in {expanded[-1]!r} names a folder; name the database"
            f" file in it, e.g. {example!r}"
        )
    return expanded
