"""The players' results as plain data, one way: a frozen dataclass whose ``to_dict`` is its
fields, nested records and tuples included (what ``--json`` prints). A record that adds a
computed field, or writes one differently, extends ``super().to_dict()``."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Record:
    """A result of play as plain data (see the module docstring)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
