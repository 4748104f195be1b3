"""Named SQL questions for ``ttt-lookup query``: the ``NAME.sql`` files of the top-level
``queries/`` folder (installed with the package as ``ttt_solver/sql/``).

Each ``NAME.sql`` file holds one read-only statement. Its leading ``--`` comment block
documents it: the first line is the one-line description, a line
``-- param NAME = DEFAULT: what it means`` declares a parameter with a default (``null`` for
SQL NULL), ``-- param NAME (int): what it means`` a required one of a given type, a line
``-- variants: 3x3`` limits the query to those variants (it answers every variant when there
is none), and the rest describes the columns. Parameters appear in the SQL as ``:NAME``.

A parameter's type is the one declared, else its default's (``int``, ``real`` or ``text``);
values given on the command line must parse as that type (integers within SQL's 64-bit
range), so that ``losses >= :min_losing`` compares numbers, never text.

The user's own SQL runs the same way (:func:`question`: text that is not a name is SQL), its
``:NAME`` placeholders bound from ``--param``; the connection only reads, so a statement that
would write is refused by the database (:meth:`~ttt_solver.store.reader.Reader.statement`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from ..audit.verify import check_stored
from ..errors import TTTError
from ..game.suggest import did_you_mean
from ..game.variant import Variant
from ..lookup.rows import DatabaseRows
from ..store import Target
from ..store.reader import Reader

_PARAM_LINE = re.compile(r"--\s*param\s+(\w+)\s*(?:=\s*(.*?))?\s*(?:\((int|real|text)\))?\s*:\s*(.*)")
_VARIANTS_LINE = re.compile(r"--\s*variants:\s*(.*)")
_INT64 = (-(2**63), 2**63 - 1)
_PLACEHOLDER = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")
_STRINGS_AND_COMMENTS = re.compile(r"'(?:[^']|'')*'|--[^\n]*")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")  # a named query's name; any other text is SQL
USER_SQL = "SQL"  # what messages call the user's own statement


class QueryError(TTTError, ValueError):
    """An unknown query name, or parameters that do not fit the query."""


@dataclass(frozen=True)
class Param:
    name: str
    default: Any  # only meaningful when not required
    description: str
    required: bool
    kind: str = "text"  # int, real or text

    def parse(self, text: str, query: str) -> Any:
        """A value given as text -> the bound value; QueryError if it is not of the parameter's type."""
        value = coerce(text)
        if value is None or self.kind == "text":
            return value
        if self.kind == "int" and isinstance(value, int) and _INT64[0] <= value <= _INT64[1]:
            return value
        if self.kind == "real" and isinstance(value, (int, float)) and math.isfinite(value):
            return float(value)
        expected = "an integer" if self.kind == "int" else "a number"
        raise QueryError(
            f"invalid --param {f'{self.name}={text}'!r}: query {query!r} expects {expected} for {self.name}"
        )


@dataclass(frozen=True)
class NamedQuery:
    name: str
    description: str
    sql: str
    params: dict[str, Param]
    variants: tuple[str, ...] = ()  # the variants it answers; () for every variant
    users: bool = False  # the user's own SQL, not one of the files

    @classmethod
    def from_text(cls, name: str, text: str, users: bool = False) -> NamedQuery:
        header = []
        for line in text.splitlines():
            if not line.startswith("--"):
                break
            header.append(line)
        description = header[0].lstrip("-").strip() if header else ""
        declared: dict[str, Param] = {}
        variants: tuple[str, ...] = ()
        for line in header:
            match = _PARAM_LINE.fullmatch(line.strip())
            if match:
                pname, default, kind, what = match.groups()
                value = coerce(default) if default is not None else None
                kind = kind or ("int" if isinstance(value, int) else "real" if isinstance(value, float) else "text")
                declared[pname] = Param(pname, value, what, default is None, kind)
            listed = _VARIANTS_LINE.fullmatch(line.strip())
            if listed:
                variants = tuple(v.strip() for v in listed[1].split(",") if v.strip())
        used = dict.fromkeys(_PLACEHOLDER.findall(_STRINGS_AND_COMMENTS.sub(" ", text)))
        params = {p: declared.get(p, Param(p, None, "", True)) for p in used}
        return cls(name, description, text, params, variants, users)

    def check_variant(self, variant_name: str) -> None:
        """QueryError if the query does not answer ``variant_name``."""
        if self.variants and variant_name not in self.variants:
            raise QueryError(
                f"query {self.name!r} answers {', '.join(self.variants)} only, not {variant_name}"
                " (see ttt-lookup query --list)"
            )

    def bind(self, given: Mapping[str, str]) -> dict[str, Any]:
        """The parameters to bind: defaults overridden by ``given`` (text, coerced to numbers)."""
        unknown = [key for key in given if key not in self.params]
        if unknown:
            takes = ", ".join(self.params) or "no parameters"
            hint = did_you_mean(unknown[0], self.params)
            raise QueryError(
                f"unknown parameter {unknown[0]!r} for query {self.name!r}{f': {hint}' if hint else ''} (it takes: {takes})"
            )
        missing = [p.name for p in self.params.values() if p.required and p.name not in given]
        if missing:
            raise QueryError(f"query {self.name!r} needs parameter {missing[0]!r}: pass --param {missing[0]}=VALUE")
        return {
            name: p.parse(given[name], self.name) if name in given else p.default for name, p in self.params.items()
        }


def answer(named: NamedQuery, db: str, variant: Variant, bound: dict[str, Any]) -> tuple[list[str], list[Any]]:
    """The columns and rows of a named query on the database ``db`` of ``variant``, with the
    parameters ``bound`` (:meth:`NamedQuery.bind`).

    Before the statement runs, the database is checked as far as a query can afford
    (:func:`ttt_solver.audit.verify.check_stored`: SQLite's own check of the file, the meta table,
    every table equal to the digest-checked packed arrays; not the proof against the rules,
    which is ``ttt-lookup verify``), in the same read of a server database as the statement:
    damage is a DatabaseError with the command that rebuilds the database, never rows read
    from it."""

    named.check_variant(variant.name)
    # Opening checks the meta table: a foreign, outdated or mismatched database fails here.
    with Reader(Target.parse(db), variant.name) as reader, reader.snapshot():
        check_stored(DatabaseRows(reader, variant)).raise_for_contradictions("is damaged, so no query answers from it")
        return (reader.statement if named.users else reader.query)(named.sql, bound)


def coerce(text: str) -> Any:
    """``"3"`` -> 3, ``"0.5"`` -> 0.5, ``"null"`` -> None, anything else stays text."""
    if text.lower() == "null":
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def folder() -> Traversable:
    """Where the SQL files are: installed with the package (a wheel maps ``queries/`` to
    ``ttt_solver/sql/``), else the ``queries/`` folder of the source checkout this package is in."""
    installed = files("ttt_solver") / "sql"
    return installed if installed.is_dir() else Path(__file__).resolve().parents[2] / "queries"


def names() -> list[str]:
    return sorted(entry.name[:-4] for entry in folder().iterdir() if entry.name.endswith(".sql"))


def is_name(text: str) -> bool:
    """Whether ``text`` names a query (a word: letters, digits and ``_``, not starting with a
    digit), rather than being SQL of the user's own."""
    return _NAME.fullmatch(text) is not None


def question(text: str) -> NamedQuery:
    """The query ``text`` asks: the named query it names (QueryError if there is none), else
    its SQL as the user's own statement."""
    if is_name(text):
        return get(text)
    if not text.strip():
        raise QueryError("no query given: pass a NAME (see ttt-lookup query --list) or a SELECT statement")
    return NamedQuery.from_text(USER_SQL, text, users=True)


def get(name: str) -> NamedQuery:
    """The named query; raise QueryError if there is none."""
    known = names()
    if name not in known:
        hint, listed = did_you_mean(name, known), "ttt-lookup query --list"
        raise QueryError(f"unknown query {name!r}: {f'{hint} (see {listed})' if hint else f'see {listed}'}")
    return NamedQuery.from_text(name, folder().joinpath(f"{name}.sql").read_text(encoding="utf-8"))


def available() -> list[NamedQuery]:
    return [get(name) for name in names()]
