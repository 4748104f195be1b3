"""The only place that talks SQL: the schema, the writer and the reader of the database.

Writing goes through SQLAlchemy Core. Reading a SQLite file uses the standard library's
``sqlite3`` so that a lookup never pays for importing SQLAlchemy; other URLs are read through
SQLAlchemy.
"""

from .content import SCHEMA_VERSION, GENERATOR, content_digest, rebuild_hint
from .target import Target

__all__ = ["SCHEMA_VERSION", "GENERATOR", "Target", "content_digest", "rebuild_hint"]
