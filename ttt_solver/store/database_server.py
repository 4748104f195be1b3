"""A database server, read and written through SQLAlchemy: which of our tables it holds, and
what its driver's missing module and failures say, in one line each."""

from __future__ import annotations

from typing import Any

from ..errors import install_hint
from . import TABLE_NAMES

# What provides a SQLAlchemy driver module, where the two names differ or are well known.
_DRIVER_PACKAGES = {"psycopg2": "psycopg2-binary", "MySQLdb": "mysqlclient", "pymysql": "pymysql"}


def live_tables(conn: Any) -> list[str]:
    """Which of our tables a server connection sees (on the search path), in
    :data:`TABLE_NAMES` order: the order of every lock taken on them."""
    # Imported here, not at the top: SQLAlchemy (server URLs) and numpy stay off the command-line lookup path of a SQLite file.
    from sqlalchemy import inspect

    names = set(inspect(conn).get_table_names())
    return [name for name in TABLE_NAMES if name in names]


def missing_driver(error: ModuleNotFoundError) -> str:
    """What to say when a server URL's driver module is not installed."""
    if error.name == "psycopg":  # the driver of the [postgres] extra
        hint = install_hint("postgres", "'psycopg[binary]'")
        return f"its database driver 'psycopg' is not installed ({hint})"
    package = _DRIVER_PACKAGES.get(error.name or "")
    install = f" (pip install {package})" if package else ""
    return f"its database driver {error.name!r} is not installed{install}"


def server_error(error: BaseException) -> str | None:
    """A SQLAlchemy or driver error in one line (None for any other error): the driver's own
    message, without the SQL or SQLAlchemy's background link."""
    if type(error).__module__.split(".")[0] not in ("sqlalchemy", "psycopg", "psycopg2"):
        return None
    cause = getattr(error, "orig", None) or error
    lines = str(cause).strip().splitlines()
    found = f"{type(cause).__name__}: {lines[0] if lines else ''}".rstrip(": ")
    detail = getattr(getattr(cause, "diag", None), "message_detail", None)  # PostgreSQL's DETAIL
    return f"{found} ({detail.splitlines()[0]})" if detail else found


def unreachable(error: BaseException) -> bool:
    """A server that is down or a connection that failed (not a problem of the data)."""
    return type(error).__name__ in ("OperationalError", "InterfaceError")
