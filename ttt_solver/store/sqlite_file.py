"""A SQLite file as ttt-solver opens it: the ``file:`` URI of a read-only connection, and what
SQLite's errors say, for the reader and the writer alike (standard library only: a
command-line lookup imports nothing more)."""

from __future__ import annotations

import os
import sqlite3


def sqlite_uri(path: str | os.PathLike[str], mode: str = "ro") -> str:
    """A ``file:`` URI for ``path``: ``%``, ``?`` and ``#`` in a file name are escaped, so they
    stay part of the name instead of starting URI syntax. A read of a write-ahead-log database
    that SQLite could not open otherwise is marked ``immutable`` (see :func:`_whole_without_log`)."""
    path = os.fspath(path)
    escaped = path.replace("%", "%25").replace("?", "%3f").replace("#", "%23")
    uri = f"file:{escaped}?mode={mode}"
    return f"{uri}&immutable=1" if mode == "ro" and _whole_without_log(path) else uri


_WAL_HEADER = 32  # bytes of a -wal file before its first page


def _whole_without_log(path: str) -> bool:
    """A WAL-mode file (a user ran ``PRAGMA journal_mode=WAL``) that holds every committed
    change itself, in a folder this process cannot write.

    SQLite reads a WAL-mode file through its ``-wal`` log and ``-shm`` index, creating them when
    they are missing, which it cannot do in such a folder (a read-only mount, another user's
    folder): even a read fails. When both exist it reads them. When the log is missing or holds
    no page, the file alone is the database, and ``immutable=1`` (SQLite's answer for read-only
    media) reads it without them. Immutable also skips locking and change detection: safe here,
    because ttt-solver never changes a database in place (a rebuild renames a new file over it,
    and an open connection keeps reading the file it opened), and a writer that appeared after
    this check would write its log, not the file, until a checkpoint. A log that holds pages is
    never skipped: without its index SQLite's own error stands (see ``Connection._open``).
    """
    try:
        with open(path, "rb") as file:
            header = file.read(20)
    except OSError:
        return False
    if header[18:20] != b"\x02\x02" or os.access(folder_of(path), os.W_OK):  # bytes 18-19: 2 in WAL mode
        return False
    log, index = f"{path}-wal", f"{path}-shm"
    if os.path.exists(index):
        return not os.path.exists(log)
    return not os.path.exists(log) or os.path.getsize(log) <= _WAL_HEADER


def folder_of(path: str) -> str:
    """The folder of a file, ``.`` for a bare name."""
    return os.path.dirname(path) or "."


# What a statement on a SQLite file raises when the file is at fault. The second: Python's
# sqlite3 fails to decode SQLite's own message when it quotes a damaged schema's bytes.
SQLITE_ERRORS = (sqlite3.Error, UnicodeDecodeError)


# On a read-only connection these are its temporary files' (the database is only read): a full
# disk (SQLITE_FULL, "database or disk is full"), a write refused (SQLITE_IOERR_WRITE: a file-size limit).
SQLITE_FULL, SQLITE_IOERR_WRITE = 13, 778
TEMPORARY_FILE_ERRORS = (SQLITE_FULL, SQLITE_IOERR_WRITE)


def temp_folder() -> str:
    """The folder where SQLite makes its temporary files (the sort of an ``ORDER BY`` that no
    index gives), as SQLite on POSIX picks it: the first of ``SQLITE_TMPDIR``, ``TMPDIR``,
    ``/var/tmp``, ``/usr/tmp`` and ``/tmp`` that is a folder this process can write, else the
    current folder; on Windows the system's (``TMP``, then ``TEMP``)."""
    if os.name != "posix":  # pragma: no cover - Windows
        return os.environ.get("TMP") or os.environ.get("TEMP") or "."
    for folder in (os.environ.get("SQLITE_TMPDIR"), os.environ.get("TMPDIR"), "/var/tmp", "/usr/tmp", "/tmp"):
        if folder and os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK):
            return folder
    return "."


def sqlite_message(error: BaseException) -> str:
    """The message of one of :data:`SQLITE_ERRORS`, short (Python's sqlite3 quotes the whole
    text it could not decode: megabytes for a column read whole), undecodable bytes replaced."""
    if isinstance(error, UnicodeDecodeError) and isinstance(error.object, bytes):
        text = error.object.decode("utf-8", "replace")
    else:
        text = str(error)
    return text if len(text) <= 200 else text[:197] + "..."
