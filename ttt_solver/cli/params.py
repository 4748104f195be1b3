"""Option values: the types that check them, and the one wording of a bad value.

Every bad value reads the same, whoever finds it (a type here, a callback, the library):
``invalid WHAT 'VALUE': what was expected``, where WHAT is the option (``--games``) or the kind
of value (``board``, ``variant``, ``agent``); one ``Error:`` line and exit code 2. The types
below are click's, with their messages (``Invalid value for '--games': 0 is not in the range
1<=x<=10000000.``) said that way instead; click still shows their ranges in ``--help``.

Every parameter's text follows one rule, :class:`Tidy`'s: whitespace around it is dropped
(``--variant '3x3 '``, ``--memory ' 1G'``), and a number is written in ASCII digits
(``--workers ２`` is refused, as ``--memory １G`` is); a path is taken as given (:data:`PATH`:
a file may be named ``' a.sqlite'``). The command group gives every plain text parameter the
:data:`TEXT` type, so no parameter escapes the rule.
"""

from __future__ import annotations

import math
import re
from typing import Any

import click

from ..errors import shown
from ..system.memory import size_text


class BadValue(click.BadParameter):
    """A value an option cannot take: ``invalid --games '0': expected a whole number from 1 to 10``."""

    def __init__(
        self, value: Any, expected: str, param: click.Parameter | None = None, ctx: click.Context | None = None
    ) -> None:
        super().__init__(expected, ctx=ctx, param=param)
        self.value = value

    def format_message(self) -> str:
        return f"invalid {option_name(self.param)} {shown(str(self.value))}: {self.message}"  # as typed: text


def option_name(param: click.Parameter | None) -> str:
    """How a message names a parameter: its long option (``--games``), or an argument's name."""
    if param is None:
        return "value"
    if isinstance(param, click.Option):
        return max(param.opts, key=len)
    return (param.human_readable_name or param.name or "value").lower()


class Tidy(click.ParamType):  # type: ignore[type-arg]
    """The one rule for the text of every parameter (see the module docstring), applied before
    the type reads it. A ``numeric`` type refuses text that is not ASCII, with its own
    :meth:`expected` message (Python's int() and float() read other scripts' digits)."""

    numeric = False
    path = False  # a file, folder or URL: its spaces are part of its name

    def __call__(self, value: Any, param: click.Parameter | None = None, ctx: click.Context | None = None) -> Any:
        if isinstance(value, str):
            if not self.path:
                value = value.strip()
            if self.numeric and not value.isascii():
                raise BadValue(value, self.expected(), param, ctx)
        return super().__call__(value, param, ctx)

    def expected(self) -> str:
        """What a value must be, for the message of a bad one."""
        return "expected text"


class Text(Tidy, click.types.StringParamType):
    """Plain text (click's default type), under the one rule."""


TEXT = Text()


class PathText(Tidy, click.types.StringParamType):
    """A file or folder name, or a URL (``--db``), taken as given."""

    path = True


PATH = PathText()


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


class FileName(Tidy, click.Path):
    """A file to write (click's ``Path`` with ``dir_okay=False``): a folder is refused in our words."""

    path = True

    def __init__(self) -> None:
        super().__init__(dir_okay=False)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter:
            raise BadValue(value, "that is a folder; expected a file name, e.g. chart.png", param, ctx) from None


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
