"""Output for every command: the ``--json``/``--csv`` options, JSON, aligned tables, grids."""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import click

from ..game.variant import Variant

F = Callable[..., Any]

_FORMAT_HELP = {"json": "Print JSON.", "csv": "Print CSV with a header row."}


def output_options(*formats: str) -> Callable[[F], F]:
    """Add ``--json`` (and ``--csv``, ...) flags and ``--color/--no-color``; the command gets
    ``fmt`` ("table" when none is given). Two of the flags together are a usage error."""

    def decorate(f: F) -> F:
        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            chosen = [name for name in formats if kwargs.pop(f"as_{name}")]
            if len(chosen) > 1:
                raise click.UsageError(f"give only one of {' and '.join('--' + name for name in chosen)}")
            return f(*args, fmt=chosen[0] if chosen else "table", **kwargs)

        for name in reversed(formats):
            wrapper = click.option(f"--{name}", f"as_{name}", is_flag=True, help=_FORMAT_HELP[name])(wrapper)
        return colour_option(wrapper)

    return decorate


def colour_option(f: F) -> F:
    """``--color/--no-color``: colour on a terminal unless NO_COLOR is set or TERM is dumb.

    Only a terminal gets colour at all (click strips it from pipes and files); this decides
    for terminals. The choice goes into the click context, which every ``click.echo`` reads and
    subcommands inherit, so ``ttt-lookup --no-color analyze ...`` works as well.
    """
    return click.option(
        "--color/--no-color",
        default=None,
        expose_value=False,
        is_eager=True,
        callback=_set_colour,
        help="Colour on a terminal [default: yes, unless NO_COLOR is set or TERM=dumb].",
    )(f)


def _set_colour(ctx: click.Context, _param: click.Parameter, value: bool | None) -> None:
    if value is not None:
        ctx.color = value
    elif ctx.color is None and (os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb"):
        ctx.color = False  # https://no-color.org: any non-empty value


def echo_json(data: Any) -> None:
    echo_long(dumps(data))


PIECE = 1 << 16  # characters a write


def echo_long(text: str, nl: bool = True) -> None:
    """``click.echo`` for output that may run to megabytes (a query's rows), a piece at a time.

    A reader that leaves in the middle (``| head``) cuts a write short; CPython does not report
    a short write, so one big write would end the command as if all were read, while the next
    write fails with a closed pipe (exit code 141, see :mod:`ttt_solver.cli`), as it does for
    every shorter output.
    """
    *pieces, last = [text[start : start + PIECE] for start in range(0, len(text), PIECE)] or [""]
    for piece in pieces:
        click.echo(piece, nl=False)
    click.echo(last, nl=nl)


def dumps(data: Any, indent: str = "") -> str:
    """JSON that ``json.loads`` reads and people can scan: an array or object that holds no
    array or object (a list of cells, a move, a row of a query) stands on one line as
    ``json.dumps`` writes it (``[1, 2, 6]``, ``{"cell": 1, "value": 0}``), except a list of text
    too long for a line (``verify``'s checks); any other has one item a line, indented by two
    spaces. So one 3x3 ``analyze --json`` is a screen, not 60 lines.

    Each scalar is written by ``json``; a dict whose keys are not all text is written by
    ``json`` whole."""
    flat = _flat(data)
    if flat is not None and not (len(indent) + len(flat) > _WIDTH and _texts(data)):
        return flat
    inner = indent + "  "
    if data.__class__ is dict and all(key.__class__ is str for key in data):
        items = (f"{inner}{_scalar(key)}: {dumps(value, inner)}" for key, value in data.items())
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    if data.__class__ in (list, tuple):
        return "[\n" + ",\n".join(inner + dumps(item, inner) for item in data) + "\n" + indent + "]"

    return json.dumps(data, indent=2).replace("\n", "\n" + indent)


_WIDTH = 96  # a list of text longer than this goes one item a line


def _texts(data: Any) -> bool:
    return data.__class__ in (list, tuple) and any(item.__class__ is str for item in data)


def _flat(data: Any) -> str | None:
    """The one-line form of a scalar, or of an array or object of scalars (``json.dumps``'s,
    written in one call); None for any other."""
    if data.__class__ in (list, tuple):
        items: Iterable[Any] = data
    elif data.__class__ is dict:
        if not all(key.__class__ is str for key in data):
            return None
        items = data.values()
    else:
        return _scalar(data)
    return None if any(isinstance(item, (list, tuple, dict)) for item in items) else json.dumps(data)


def _scalar(data: Any) -> str | None:
    """A scalar as JSON (None for an array or object)."""
    if isinstance(data, (list, tuple, dict)):
        return None
    return json.dumps(data)


def table(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A plain aligned table: numbers right-aligned, whole numbers with thousands separators
    (``333,792``, as every command prints counts), text left-aligned, NULL as blank."""
    cells = [[_cell(value) for value in row] for row in rows]
    numeric = [
        all(isinstance(row[i], (int, float)) or row[i] is None for row in rows) and bool(rows)
        for i in range(len(columns))
    ]
    widths = [max([len(name), *(len(row[i]) for row in cells)]) for i, name in enumerate(columns)]

    def line(values: Sequence[str]) -> str:
        parts = [v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric)]
        return "  ".join(parts).rstrip()

    return "\n".join([line(columns), line(["-" * w for w in widths]), *(line(row) for row in cells)])


def _cell(value: Any) -> str:
    if value is None:
        return ""
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


def grid(labels: Sequence[str], variant: Variant, styles: Sequence[dict[str, Any]] | None = None) -> str:
    """A board drawn with one label per cell (``X``, ``O``, ``D7``, ``3``, ...), optionally styled."""
    width = max(len(label) for label in labels)
    cols = variant.cols

    def cell(i: int) -> str:
        text = labels[i].center(width)
        return click.style(text, **styles[i]) if styles and styles[i] else text

    rows = [" | ".join(cell(r * cols + c) for c in range(cols)) for r in range(variant.rows)]
    rule = "-+-".join("-" * width for _ in range(cols))
    return f"\n{rule}\n".join(rows)
