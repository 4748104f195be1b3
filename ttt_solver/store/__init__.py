"""The only place that talks SQL: the schema, the writer and the reader of the database.

Writing goes through SQLAlchemy Core. Reading a SQLite file uses the standard library's
``sqlite3`` so that a lookup never pays for importing SQLAlchemy; other URLs are read through
SQLAlchemy.
"""

from .content import GENERATOR, SCHEMA_VERSION
from .hints import build_hint, rebuild_hint
from .target import Target

__all__ = ["GENERATOR", "SCHEMA_VERSION", "Target", "build_hint", "rebuild_hint"]
