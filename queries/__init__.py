"""Named SQL questions for ``ttt-lookup query``, installed as ``ttt_solver.queries``.

Each ``NAME.sql`` file holds one read-only statement. Its leading ``--`` comment block
documents it: the first line is the one-line description, a line
``-- param NAME = DEFAULT: what it means`` declares a parameter with a default (``null`` for
SQL NULL), ``-- param NAME: what it means`` a required one, and the rest describes the
columns. Parameters appear in the SQL as ``:NAME``.

Values given on the command line are bound as integers or reals when they look like
numbers, so that ``COUNT(*) >= :min_losing`` compares numbers, not text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import TTTError

_PARAM_LINE = re.compile(r"--\s*param\s+(\w+)\s*(?:=\s*(.*?))?\s*:\s*(.*)")
_PLACEHOLDER = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")
_STRINGS_AND_COMMENTS = re.compile(r"'(?:[^']|'')*'|--[^\n]*")


class QueryError(TTTError, ValueError):
    """An unknown query name, or parameters that do not fit the query."""


@dataclass(frozen=True)
class Param:
    name: str
    default: Any  # only meaningful when not required
    description: str
    required: bool


@dataclass(frozen=True)
class NamedQuery:
    name: str
    description: str
    sql: str
    params: dict[str, Param]

    @classmethod
    def from_text(cls, name: str, text: str) -> NamedQuery:
        header = []
        for line in text.splitlines():
            if not line.startswith("--"):
                break
            header.append(line)
        description = header[0].lstrip("-").strip() if header else ""
        declared: dict[str, Param] = {}
        for line in header:
            match = _PARAM_LINE.fullmatch(line.strip())
            if match:
                pname, default, what = match.groups()
                declared[pname] = Param(pname, coerce(default) if default is not None else None, what, default is None)
        used = dict.fromkeys(_PLACEHOLDER.findall(_STRINGS_AND_COMMENTS.sub(" ", text)))
        params = {p: declared.get(p, Param(p, None, "", True)) for p in used}
        return cls(name, description, text, params)

    def bind(self, given: Mapping[str, str]) -> dict[str, Any]:
        """The parameters to bind: defaults overridden by ``given`` (text, coerced to numbers)."""
        unknown = [key for key in given if key not in self.params]
        if unknown:
            takes = ", ".join(self.params) or "no parameters"
            raise QueryError(f"unknown parameter {unknown[0]!r} for query {self.name!r} (it takes: {takes})")
        missing = [p.name for p in self.params.values() if p.required and p.name not in given]
        if missing:
            raise QueryError(f"query {self.name!r} needs parameter {missing[0]!r}: pass --param {missing[0]}=VALUE")
        return {name: coerce(given[name]) if name in given else p.default for name, p in self.params.items()}


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


def names() -> list[str]:
    from importlib.resources import files

    return sorted(entry.name[:-4] for entry in files(__name__).iterdir() if entry.name.endswith(".sql"))


def get(name: str) -> NamedQuery:
    """The named query; raise QueryError if there is none."""
    from importlib.resources import files

    if name not in names():
        raise QueryError(f"unknown query {name!r}: see ttt-lookup query --list")
    return NamedQuery.from_text(name, files(__name__).joinpath(f"{name}.sql").read_text(encoding="utf-8"))


def available() -> list[NamedQuery]:
    return [get(name) for name in names()]
