"""The only place that talks SQL: the schema, the writer and the reader of the database.

Writing goes through SQLAlchemy Core. Reading a SQLite file uses the standard library's
``sqlite3`` so that a lookup never pays for importing SQLAlchemy; other URLs are read through
SQLAlchemy. What a lookup needs from here is kept to this module, ``target`` and ``reader``
(no numpy, no SQLAlchemy, nothing it does not use).
"""

from .target import Target

SCHEMA_VERSION = "3"
GENERATOR = "ttt-solver"
MOVE_COLUMNS = ("code", "cell", "value", "remoteness")
# What the meta table holds, every key always (``ttt-lookup verify`` reports a missing or unknown one).
META_KEYS = (
    "generator", "generator_version", "schema_version", "solver_version", "variant",
    "positions", "legal_positions", "moves", "moves_stored", "digest", "built_at",
)  # fmt: skip
# The meta key of a database of shards only (:mod:`.shards`): how many.
SHARDS_KEY = "shards"
# Our tables, in the order a server's locks are taken (by the rebuild's swap and by a reader's
# snapshot): the same order everywhere, so that neither waits for the other while holding a lock.
TABLE_NAMES = ("positions", "moves", "packed", "meta")
SMALL_ROWS = 100_000
"""Most canonical rows whose table an in-memory oracle (:mod:`ttt_solver.lookup.in_memory`)
proves whole at load (3x3: 765 rows in a few milliseconds; 3x4k3: 28,275 in some 30 ms) and
``all_positions()`` resolves board by board; a named query's check (:mod:`ttt_solver.audit.verify`) proves as
many. Bigger variants (4x4: 1.2 million) rely on the digest of their arrays until a batch
lookup proves them."""

__all__ = [
    "GENERATOR",
    "META_KEYS",
    "MOVE_COLUMNS",
    "SCHEMA_VERSION",
    "SHARDS_KEY",
    "SMALL_ROWS",
    "TABLE_NAMES",
    "Target",
    "number_in",
]


def number_in(text: str | None) -> int | None:
    """The number a meta text spells in ASCII digits, else None (``str.isdigit`` alone also
    takes digits such as "²" that ``int`` refuses)."""
    return int(text) if text is not None and text.isascii() and text.isdigit() else None
