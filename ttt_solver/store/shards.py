"""A database of shards: its ``positions`` rows in several SQLite files, one range of codes
each, written side by side by a distributed build's workers (one SQLite file is built by one
writer at about 0.5 us a row, however many workers solved it: ``docs/engine.md``).

The database is still one file to name (``--db X``): the main file, which holds ``meta`` (its
key ``shards`` says how many), an empty ``moves`` and the ``shards`` table, one row per shard:
its file (relative to the main file's folder: ``X.shards/BUILD-K.sqlite``, made by
:func:`shard_file`), the build it belongs to, its first code and its rows. Shard ``K`` holds the
rows whose code is at least its first code and below the next shard's, in a ``positions`` table
of the same schema; the parts of the packed arrays made of those rows, numbered after the parts
of the shards before it, in a ``packed`` table; and a ``meta`` table naming the variant, the
build and ``K``.

A reader attaches every shard read-only and joins their tables in temporary views named
``positions`` and ``packed`` (:func:`attach`): every query of them, named or not, reads the
shards as one table, and SQLite merges them in key order for an ``ORDER BY``. SQLite attaches
at most :data:`MOST_SHARDS` files to a connection. Standard library only: a command-line
lookup opens a database of shards as it opens one file.
"""

from __future__ import annotations

import os
import re
import sqlite3

from . import GENERATOR
from .sqlite_file import sqlite_uri

MOST_SHARDS = 10  # SQLite's default SQLITE_MAX_ATTACHED: the most files a connection attaches
SHARD_TABLES = ("positions", "packed")  # a shard's tables, read through views of these names
# The one rule of a shard's file name: BUILD-INDEX.sqlite, BUILD a build's name (secrets.token_hex(8)),
# in the folder NAME.shards beside the main file NAME (:func:`shard_file`). Patterns, compiled by re
# when first matched: only a sharded database's reads and the builds match them, not every lookup.
BUILD_NAME = r"[0-9a-f]{16}"
SHARD_NAME = rf"({BUILD_NAME})-([0-9]+)\.sqlite"
_FILE = rf"[^/\\]+\.shards/{SHARD_NAME}"


class ShardError(Exception):
    """A shard that is missing or not the one its main file names (the message says which)."""


class Shard:
    """One row of the ``shards`` table (a plain class with slots: a NamedTuple's class would cost
    every lookup's import some 0.4% of importing click)."""

    __slots__ = ("build", "file", "first_code", "number", "rows")

    def __init__(self, number: int, file: str, build: str, first_code: int, rows: int) -> None:
        self.number = number  # 0, 1, ... in code order
        self.file = file  # relative to the main file's folder
        self.build = build
        self.first_code = first_code
        self.rows = rows


def shard_file(main_name: str, build: str, index: int) -> str:
    """Where shard ``index`` of build ``build`` of the database file named ``main_name`` lies,
    relative to the main file's folder."""
    return f"{shard_folder(main_name)}/{build}-{index}.sqlite"


def shard_folder(main: str) -> str:
    """The folder of the shards a build of the database file ``main`` writes (a path or a name)."""
    return f"{main}.shards"


def read_shards(conn: sqlite3.Connection, count: int) -> list[Shard]:
    """The ``shards`` table of an open main file, checked to list ``count`` shards numbered
    from 0, each in a file of the name a build gives it, first codes ascending (ShardError)."""
    try:
        rows = conn.execute("SELECT shard, file, build, first_code, rows FROM main.shards ORDER BY shard").fetchall()
    except sqlite3.Error as error:
        raise ShardError(f"its shards table cannot be read ({error})") from None
    shards: list[Shard] = []
    for index, row in enumerate(rows):
        shard = Shard(*row)
        named = re.fullmatch(_FILE, shard.file) if isinstance(shard.file, str) else None
        if not (
            named
            and shard.number == index
            and named.group(1) == shard.build
            and int(named.group(2)) == index
            and all(isinstance(n, int) and n >= 0 for n in (shard.first_code, shard.rows))
            and (not shards or shard.first_code > shards[-1].first_code)
        ):
            raise ShardError(f"its shards table is damaged at row {index}")
        shards.append(shard)
    if len(shards) != count or not 1 < count <= MOST_SHARDS:
        raise ShardError(f"its shards table lists {len(shards)} shards, its meta table {count}")
    return shards


def attach(conn: sqlite3.Connection, main: str, shards: list[Shard], variant_name: str) -> list[str]:
    """Attach each shard of the database whose main file is ``main`` to ``conn`` read-only, as
    ``shard0``, ``shard1``..., each checked to be the shard its row names (its meta table), and
    make the temporary views :data:`SHARD_TABLES` over them; the shards' paths (ShardError if
    one is missing or not that shard)."""
    folder = os.path.dirname(os.path.realpath(main))
    paths = []
    for shard in shards:
        path = os.path.join(folder, shard.file)
        if not os.path.isfile(path):
            raise ShardError(f"its shard {shard.file!r} is missing (a database of shards is moved with its folder)")
        schema = f"shard{shard.number}"
        conn.execute(f"ATTACH DATABASE ? AS {schema}", (sqlite_uri(path),))
        try:
            meta = dict(conn.execute(f"SELECT key, value FROM {schema}.meta").fetchall())
        except sqlite3.Error as error:
            raise ShardError(f"its shard {shard.file!r} cannot be read ({error})") from None
        expected = {
            "generator": GENERATOR,
            "variant": variant_name,
            "build": shard.build,
            "shard": str(shard.number),
        }
        if meta != expected:
            raise ShardError(f"{shard.file!r} is not its shard {shard.number} (its meta table differs)")
        paths.append(path)
    for table in SHARD_TABLES:
        joined = " UNION ALL ".join(f"SELECT * FROM shard{shard.number}.{table}" for shard in shards)
        conn.execute(f"CREATE TEMP VIEW {table} AS {joined}")
    return paths
