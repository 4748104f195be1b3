"""Option types that check a value against bounds or a list: whole numbers, numbers, sizes in
bytes and one of a few words, each refused in the one wording of :mod:`.params`. The commands
that take such options import this module; a lookup takes none, and leaves it unloaded.
"""

from __future__ import annotations

import math
import re
from typing import Any

import click

from ..system.memory import size_text
from .params import BadValue, Tidy


def _bounds(low: float | None, high: float | None, number: str, fmt: str) -> str:
    if low is not None and high is not None:
        return f"expected {number} from {low:{fmt}} to {high:{fmt}}"
    if low is not None:
        return f"expected {number} of at least {low:{fmt}}"
    return f"expected {number}" if high is None else f"expected {number} of at most {high:{fmt}}"


class Whole(Tidy, click.IntRange):
    """A whole number in a range (click's ``IntRange``)."""

    numeric = True

    def expected(self) -> str:
        return _bounds(self.min, self.max, "a whole number", ",")

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter:
            raise BadValue(value, self.expected(), param, ctx) from None


class Number(Tidy, click.FloatRange):
    """A number in a range (click's ``FloatRange``), never NaN (which passes any range check)."""

    numeric = True

    def expected(self) -> str:
        return _bounds(self.min, self.max, "a number", "g")

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            number = super().convert(value, param, ctx)
        except click.BadParameter:
            number = math.nan
        if math.isnan(number):
            raise BadValue(value, self.expected(), param, ctx)
        return number


class OneOf(Tidy, click.Choice):  # type: ignore[type-arg]
    """One of a few words (click's ``Choice``), said as ``expected X or O``."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter:
            words = [str(choice) for choice in self.choices]
            listed = " or ".join([", ".join(words[:-1]), words[-1]] if len(words) > 1 else words)
            raise BadValue(value, f"expected {listed}", param, ctx) from None


SEED = Whole(0, 2**63 - 1)  # what every seed option takes (numpy's generators need >= 0)


_SIZE = r"([0-9]+)(?:([kmgt])(i?b)?|b)?"  # compiled by re when first matched: a lookup reads no size
_SHIFTS = {"": 0, "k": 10, "m": 20, "g": 30, "t": 40}
SIZE_GRAMMAR = "ASCII digits and a unit, K, M, G or T (KB, KiB, ... in any case; powers of 1,024), no space between"


def parse_size(text: str) -> int | None:
    """Bytes of a size such as ``65536``, ``512MB``, ``4gb``, ``8GiB`` or ``64K``; None for
    anything else (spaces, other digits, a fraction, another unit)."""
    found = re.fullmatch(_SIZE, text, re.IGNORECASE)
    if found is None:
        return None
    return int(found.group(1)) << _SHIFTS[(found.group(2) or "").lower()]


class Size(Tidy):
    """A number of bytes (:func:`parse_size`) from ``minimum`` to ``maximum`` (the machine's
    memory, for a memory budget)."""

    name = "SIZE"
    numeric = True

    def expected(self) -> str:
        return f"expected a size: {SIZE_GRAMMAR}, e.g. 512MB or 4GB"

    def __init__(self, minimum: int = 0, maximum: int | None = None, what: str = "") -> None:
        self.minimum = minimum
        self.maximum = maximum
        self.what = what  # what the maximum is, e.g. "this machine's memory"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, int):
            return value
        size = parse_size(value) if isinstance(value, str) else None
        if size is None:
            raise BadValue(value, self.expected(), param, ctx)
        if size < self.minimum or (self.maximum is not None and size > self.maximum):
            high = "" if self.maximum is None else f" to {size_text(self.maximum)}"
            high += f" ({self.what})" if self.what and self.maximum is not None else ""
            raise BadValue(value, f"expected a size from {size_text(self.minimum)}{high}", param, ctx)
        return size
