"""What every command shares: the database options, the board argument, and error conversion.

Command modules (``lookup``, ``query``, ``arena``, ...) build on these so that every command
takes ``--db``/``--variant`` the same way, reads a board the same way and fails the same way:
one ``Error: ...`` line on stderr, exit code 2 for bad input and 1 for a bad database.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click

from ..errors import (
    BuildError,
    CacheError,
    DatabaseError,
    EngineError,
    InvalidVariantError,
    MissingExtraError,
    TTTError,
    VerifyError,
)
from ..game import rules
from ..game.variant import STANDARD, Variant
from ..lookup.oracle import Oracle
from ..store import Target
from ..store.paths import database_file, existing_default
from ..store.reader import Reader
from ..system.memory import out_of_memory
from .params import PATH, BadValue, FileName

F = Callable[..., Any]


class CLIError(click.ClickException):
    """Bad input: one ``Error: ...`` line and exit code 2, the usage-error code.

    Unlike ``click.UsageError`` it prints no usage lines, so the message is the whole output.
    """

    exit_code = 2


class CLIFailure(CLIError):
    """A database that cannot be read, or built: one ``Error: ...`` line and exit code 1."""

    exit_code = 1


@contextmanager
def translate_errors(command: str | None = None) -> Iterator[None]:
    """Turn the library's TTTError, and running out of memory, into a CLIError (the one place
    where that happens). ``command``: what runs, for the memory message (default: the context's)."""
    try:
        yield
    except Exception as error:
        # Running out of memory: numpy's, SQLite's or Python's MemoryError, anywhere in any
        # command, or a C extension (numpy, SQLAlchemy, uvicorn's) that could not be loaded.
        if out_of_memory(error):
            ctx = click.get_current_context(silent=True)
            if command is None:
                command = " ".join(filter(None, (ctx.command_path, ctx.invoked_subcommand))) if ctx else "the command"
            raise CLIFailure(
                f"not enough memory to run {command!r}: free some memory, or raise this process's memory limit"
            ) from None
        if isinstance(error, DatabaseError | BuildError | CacheError | EngineError | VerifyError):
            raise CLIFailure(str(error)) from None
        if isinstance(error, TTTError):
            raise CLIError(str(error)) from None
        raise


CHART_FORMATS = ("png", "svg", "pdf", "jpg", "jpeg", "webp", "tif", "tiff", "eps", "ps")


def chart_path(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A ``--plot FILE`` callback: refuse, before any work, a file no chart can be written to."""
    if value is None:
        return None

    folder, name = os.path.split(value)
    if not name or name.startswith("."):
        raise BadValue(value, "expected a file name, e.g. chart.png", param, ctx)
    if os.path.splitext(name)[1].lower().lstrip(".") not in CHART_FORMATS:
        raise BadValue(value, f"the name must end in .{', .'.join(CHART_FORMATS)}", param, ctx)
    if not os.path.isdir(folder or "."):
        raise BadValue(value, f"there is no folder {folder or '.'!r}", param, ctx)
    return value


def chart_option(what: str) -> Callable[[F], F]:
    """``--plot FILE`` (checked by :func:`chart_path`); the command gets ``plot_path``."""
    return click.option(
        "--plot",
        "plot_path",
        type=FileName(),
        callback=chart_path,
        metavar="FILE",
        help=f"Also draw {what} to FILE (.png, .svg, .pdf); needs matplotlib (the [plot] extra).",
    )


def require_plot(action: Callable[[], Any]) -> Any:
    """Run ``action`` (which draws or checks for matplotlib); a missing extra is one error line."""

    try:
        return action()
    except MissingExtraError as error:
        raise CLIFailure(f"--plot: {error}") from None


def _parse_variant(_ctx: click.Context, _param: click.Parameter, value: str | None) -> Variant | None:
    return None if value is None else Variant.parse(value)


def _complete_variants(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    # Imported here, not at the top: builder and completion import numpy: imported where needed, off the lookup path.
    from .complete import variants  # only on a TAB press

    return variants(ctx, param, incomplete)


# The key of click's context meta under which database_options says where the variant came from.
VARIANT_FROM = "ttt_solver.variant_from"


def database_options(f: F, writes: bool = False) -> F:
    """Add ``--db PATH_OR_URL`` (envvar TTT_DB) and ``--variant``; the command gets ``db`` and
    ``variant``, a Variant: the one given, else the one the database named by ``--db`` holds,
    else 3x3. A ``--variant`` that differs from the one the database holds is an error, except
    for a command that ``writes`` the database (a build replaces what is there): see
    :func:`target_options`.

    Stack it above :func:`board_input`, which reads the board in that variant.
    """

    @functools.wraps(f)
    def wrapper(*args: Any, variant: Variant | None, db: str | None, **kwargs: Any) -> Any:
        chosen, held = _chosen_variant(db, variant, writes)
        if held:  # for board_input's messages: the 16 of "expected 16 cells" came from --db
            click.get_current_context().meta[VARIANT_FROM] = f"the variant {chosen.name} of --db {db!r}"
        return f(*args, variant=chosen, db=db, **kwargs)

    wrapper = click.option(
        "--variant",
        metavar="VARIANT",
        callback=_parse_variant,
        shell_complete=_complete_variants,
        help="Board variant, e.g. 4x4k3 [default: the one --db holds, else 3x3].",
    )(wrapper)
    return click.option(
        "--db",
        type=PATH,
        metavar="PATH_OR_URL",
        envvar="TTT_DB",
        help="SQLite file or SQLAlchemy URL (env TTT_DB; default: the variant's default database).",
    )(wrapper)


def target_options(f: F) -> F:
    """:func:`database_options` for a command that writes the database (``--variant`` wins)."""
    return database_options(f, writes=True)


def command_variant(db: str | None, given: Variant | None, writes: bool = False) -> Variant:
    """The variant a command works on: ``given``, else the one database ``db`` holds, else 3x3.

    A ``db`` that names no database at all is an error here, even for a command that would not
    read it; one that cannot be read (missing, not ours, damaged) says nothing: the command's
    own read reports it, in its words and with its exit code."""
    return _chosen_variant(db, given, writes)[0]


def _chosen_variant(db: str | None, given: Variant | None, writes: bool) -> tuple[Variant, bool]:
    """:func:`command_variant`, and whether it came from database ``db`` (no ``--variant``)."""
    if db is None:
        return given or STANDARD, False

    target = Target.parse(db)  # InvalidTargetError: bad input, whatever the command
    try:
        reader = Reader(target, None)
    except DatabaseError:
        return given or STANDARD, False
    try:
        held = Variant.parse(reader.variant_name)
    except InvalidVariantError:
        reader.close()
        return given or STANDARD, False
    _keep_open(reader, writes or (given is not None and held != given))
    if given is None:
        return held, True
    if held != given and not writes:
        raise CLIFailure(
            f"database {target.spec!r} holds variant {held.name!r}, not {given.name!r}: drop --variant (--db"
            f" implies the variant), or build the {given.name} database with: ttt-lookup build --variant {given.name}"
        )
    return given, False


# The key of click's context meta under which database_options keeps the database it opened to
# learn its variant, for load_oracle: a command opens its database once.
OPENED = "ttt_solver.opened"


def _keep_open(reader: Reader, close: bool) -> None:
    """Keep ``reader`` for :func:`load_oracle`, closed when the command ends unless it takes it
    (or now, when ``close``, or outside a command)."""
    ctx = click.get_current_context(silent=True)
    if close or ctx is None:
        reader.close()
        return
    ctx.meta[OPENED] = reader
    ctx.call_on_close(reader.close)


def board_input(f: F) -> F:
    """Add BOARD and ``--moves``; the command gets ``board`` (normalised text) and ``variant``.

    Stack it under :func:`database_options`, which supplies ``variant``.
    """

    @functools.wraps(f)
    def wrapper(*args: Any, board: str | None, moves: str | None, variant: Variant, **kwargs: Any) -> Any:
        variant_from = click.get_current_context().meta.get(VARIANT_FROM, "")
        parsed = rules.board_from_input(board, moves, variant, ("BOARD", "--moves"), variant_from)
        return f(*args, board=parsed, variant=variant, **kwargs)

    wrapper = click.option(
        "--moves", metavar="CELLS", help="Cells played from the empty board, e.g. 4,0,8 (instead of BOARD)."
    )(wrapper)
    return click.argument("board", required=False, metavar="[BOARD]")(wrapper)


def resolve_database(db: str | None, variant: Variant) -> str:
    """``--db`` as given, or the variant's default database: a missing one of a small variant is
    built first, with one line on stderr that says so and ``build``'s progress bar; a bigger one
    is an error naming the build command (:mod:`.first_build`)."""
    if db is not None:
        return db

    found = database_file(variant)
    if os.path.exists(found):
        return found
    from .first_build import built_default  # only when it is missing: the builder and the bars (tqdm)

    return built_default(variant)


def existing_database(db: str | None, variant: Variant) -> str:
    """``--db`` as given, or the variant's default database, never built here (``verify``): a
    missing one is an error naming the build command."""
    if db is not None:
        return db

    return existing_default(variant)


def load_oracle(db: str | os.PathLike[str] | None, variant: Variant, many: bool = False) -> Oracle:
    """An oracle for the command line. One lookup reads and proves only the rows it shows
    (no load at all); ``many``: thousands of lookups will follow (games, accuracy), so the
    oracle loads the digest-checked arrays once instead.
    """

    ctx = click.get_current_context(silent=True)
    opened = None if ctx is None else ctx.meta.pop(OPENED, None)
    if (
        opened is not None
        and db is not None
        and opened.target == Target.parse(db)
        and opened.variant_name == variant.name
    ):
        return Oracle.from_reader(opened, eager=many)
    return Oracle.load(resolve_database(None if db is None else str(db), variant), variant, eager=many)
