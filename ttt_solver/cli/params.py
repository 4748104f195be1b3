"""Option values: the types that check them, and the one wording of a bad value.

Every bad value reads the same, whoever finds it (a type here, a callback, the library):
``invalid WHAT 'VALUE': what was expected``, where WHAT is the option (``--games``) or the kind
of value (``board``, ``variant``, ``agent``); one ``Error:`` line and exit code 2. The types
below, and those of :mod:`.bounded_params` (numbers, sizes, choices) and :mod:`.engine_params`
(the engine's places), are click's, with their messages (``Invalid value for '--games': 0 is not
in the range 1<=x<=10000000.``) said that way instead; click still shows their ranges in ``--help``.

Every parameter's text follows one rule, :class:`Tidy`'s: whitespace around it is dropped
(``--variant '3x3 '``, ``--memory ' 1G'``), and a number is written in ASCII digits
(``--workers ２`` is refused, as ``--memory １G`` is); a path is taken as given (:data:`PATH`:
a file may be named ``' a.sqlite'``). The command group gives every plain text parameter the
:data:`TEXT` type, so no parameter escapes the rule.
"""

from __future__ import annotations

from typing import Any

import click

from ..errors import shown


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
