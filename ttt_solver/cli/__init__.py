"""``ttt-lookup``: the command line over the solved database.

The library does the work; these modules only parse arguments, call it and format the
result. Each command module lists its commands in ``COMMANDS``; to add a module, name it and
its commands in ``COMMAND_MODULES``. A module is imported only when one of its commands runs
(or for the command list in ``--help``), so ``analyze`` never pays for ``arena``; still keep
module-level imports light (numpy and SQLAlchemy stay inside the commands that need them).

Errors: any TTTError raised while a command runs becomes one ``Error: ...`` line on stderr,
with exit code 2 for bad input and 1 for a database that cannot be read, built or proved; so
does running out of memory. Ctrl-C and SIGTERM stop a command the same way (``Aborted!``, exit
code 130 or 143, as a shell reports the signal), after the code they interrupt has cleaned up
(the handlers: :mod:`.stopping`, installed by the commands that run long or write). A
closed pipe (``| head``) stops any command quietly, with exit code 141 (a shell's for SIGPIPE).
``python build_db.py`` runs the ``build`` command through the same path.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from importlib import import_module
from typing import Any, NoReturn

import click
from click.exceptions import NoArgsIsHelpError

from ..errors import raised_from
from ..game.suggest import did_you_mean
from ..system.memory import guard_command_line
from ..version import __version__
from .options import translate_errors
from .output import colour_option
from .params import TEXT, BadValue, option_name
from .terminated import Terminated

# module in ttt_solver.cli -> the commands it defines (and lists in its COMMANDS)
COMMAND_MODULES = {
    "lookup": ("analyze", "best"),
    "counts": ("stats",),
    "play": ("play",),
    "query": ("query",),
    "contests": ("compare", "tournament"),
    "database": ("build", "verify"),
    "serve": ("serve",),
    "cache": ("cache",),
}


# A closed pipe (`ttt-lookup query ... | head`) ends a command quietly with the code a shell gives a
# program that SIGPIPE stopped (128 + 13), as `seq 1000000 | head` does: the reader had enough.
CLOSED_PIPE = 141


HELP_OPTIONS = ["-h", "--help"]


# -h/--help and --version as click's help_option and version_option make them, but with their
# text given: those decorators look their default text up in gettext's translations, which
# searches the file system and imports locale, 2.5% of importing click, on every command line.
def _eager_flag(opts: list[str], help_text: str, shown: Callable[[click.Context], str]) -> click.Option:
    """A flag that, given, prints ``shown(ctx)`` and ends the command before any other parameter."""

    def show(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
        if value and not ctx.resilient_parsing:
            click.echo(shown(ctx), color=ctx.color)
            ctx.exit()

    return click.Option(opts, is_flag=True, expose_value=False, is_eager=True, help=help_text, callback=show)


def _help_option() -> click.Option:
    return _eager_flag(HELP_OPTIONS, "Show this message and exit.", click.Context.get_help)


def _version_option() -> click.Option:
    return _eager_flag(["--version"], "Show the version and exit.", lambda _ctx: f"ttt-lookup {__version__}")


class TTTGroup(click.Group):
    """A click group that loads command modules on demand and turns library errors into one line."""

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        # Every command's -h/--help is a parameter of its own: click builds the implicit one from
        # the first context that asks and keeps it, and a context of the command alone (as a
        # documentation generator makes) would leave it --help only for the rest of the process.
        if not any(HELP_OPTIONS[0] in param.opts for param in cmd.params):
            cmd.params.append(_help_option())
        for param in cmd.params:  # plain text too follows the one rule of every parameter's text
            if type(param.type) is click.types.StringParamType:
                param.type = TEXT
        super().add_command(cmd, name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *(name for names in COMMAND_MODULES.values() for name in names)})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            for module, names in COMMAND_MODULES.items():
                if cmd_name in names:
                    with translate_errors(f"{ctx.command_path} {cmd_name}"):  # a module that cannot load
                        commands = import_module(f".{module}", __name__).COMMANDS
                    for command in commands:
                        self.add_command(command)
        return self.commands.get(cmd_name)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """Click's, except that a mistyped command gets the names it resembles (of every command,
        not only those loaded so far): ``unknown command 'anlyze': did you mean 'analyze'?``."""
        name = args[0]
        if not name.startswith("-") and not ctx.resilient_parsing and self.get_command(ctx, name) is None:
            hint = did_you_mean(name, self.list_commands(ctx))
            raise click.UsageError(f"unknown command {name!r}{f': {hint}' if hint else ''}", ctx)
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list with each command's whole summary (click cuts them to fit one line)."""
        rows = [(name, command.get_short_help_str(limit=1 << 16)) for name, command in self._listed(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def _listed(self, ctx: click.Context) -> list[tuple[str, click.Command]]:
        found = ((name, self.get_command(ctx, name)) for name in self.list_commands(ctx))
        return [(name, command) for name, command in found if command is not None and not command.hidden]

    def make_context(
        self, info_name: str | None, args: list[str], parent: click.Context | None = None, **extra: Any
    ) -> click.Context:
        with closed_pipe_ends():  # ttt-lookup --help | head
            return super().make_context(info_name, args, parent, **extra)

    def invoke(self, ctx: click.Context) -> Any:
        with closed_pipe_ends(), translate_errors():  # every command, its own --help included
            return super().invoke(ctx)

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        """Click's main, except that a usage error is one ``Error:`` line, not a usage block."""
        # click's overloads of main cannot match arguments forwarded as *args (they might hold
        # standalone_mode), so mypy finds no overload; the call is the one click documents.
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)  # type: ignore[call-overload]
        try:
            result = super().main(*args, standalone_mode=False, **kwargs)  # type: ignore[call-overload]
        except NoArgsIsHelpError as error:  # a bare ttt-lookup: the help, as --help gives it
            click.echo(error.ctx.get_help() if error.ctx is not None else self.get_help(click.Context(self)))
            sys.exit(0)
        except click.ClickException as error:  # a usage error, or a library error turned into one line
            click.echo(f"Error: {one_line(error_message(error))}", err=True)
            sys.exit(error.exit_code)
        except OSError as error:  # writing the output failed: a full disk (a closed pipe: closed_pipe_ends)
            _silence(sys.stdout)
            click.echo(f"Error: cannot write the output: {error.strerror or error}", err=True)
            sys.exit(1)
        except (click.Abort, EOFError, KeyboardInterrupt, Terminated) as error:
            _aborted(error)
        except SystemError as error:  # a stop raised inside C code that did not pass it on as itself
            stop = _stop_behind(error)
            if stop is None:
                raise
            _aborted(stop)
        sys.exit(result if isinstance(result, int) else 0)


def _aborted(error: BaseException) -> NoReturn:
    """``Aborted!`` and the exit code of a stopped command."""
    with suppress(OSError):  # after SIGHUP the terminal may be gone
        click.echo("Aborted!", err=True)
    # Ctrl-C exits 130, SIGTERM 143 and SIGHUP 129, as a shell reports them (128 + the
    # signal); click turns Ctrl-C into Abort (after a blank line that ends the terminal's ^C).
    interrupted = isinstance(error, KeyboardInterrupt) or isinstance(error.__context__, KeyboardInterrupt)
    sys.exit(128 + error.signum if isinstance(error, Terminated) else 130 if interrupted else 1)


def _stop_behind(error: BaseException) -> KeyboardInterrupt | Terminated | None:
    """The Ctrl-C or stop signal an exception was raised from, if any: a signal that arrives
    inside numpy's ``fromfile`` (in the ``os.fspath`` it calls) comes out as "SystemError:
    <built-in function fspath> returned a result with an exception set", raised from it."""
    for cause in raised_from(error):
        if isinstance(cause, KeyboardInterrupt | Terminated):
            return cause
    return None


@click.group(cls=TTTGroup, context_settings={"help_option_names": HELP_OPTIONS})
@colour_option
def cli() -> None:
    """Look up exact values, remoteness and best moves of tic-tac-toe positions.

    BOARD is the text form, one character per cell row-major (X, O, . for empty),
    e.g. X...O....; or give --moves 4,0,8 instead. Values are for the side to move.

    \b
    Example:
        ttt-lookup analyze X...O....
        ttt-lookup best --moves 4,0
    """


cli.params += [_version_option(), _help_option()]


def _complete_commands(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[str]:
    return [name for name in cli.list_commands(ctx) if name.startswith(incomplete)]


@cli.command("help")
@click.argument("command", required=False, metavar="[COMMAND]", shell_complete=_complete_commands)
@click.pass_context
def help_command(ctx: click.Context, command: str | None) -> None:
    """Show the help of ttt-lookup, or of one COMMAND (as COMMAND --help does).

    \b
    Example:
        ttt-lookup help
        ttt-lookup help analyze
    """
    group = ctx.parent
    assert group is not None  # help runs inside the ttt-lookup group
    if command is None:
        click.echo(group.get_help())
        return
    name, found, _rest = cli.resolve_command(group, [command])  # a mistyped name: did you mean ...?
    assert found is not None and name is not None
    with click.Context(found, info_name=name, parent=group) as sub:
        click.echo(found.get_help(sub))


def error_message(error: click.ClickException) -> str:
    """What an ``Error:`` line says, in one wording for every command: a bad value as ``invalid
    --games '0': expected ...`` (see :mod:`.values`), click's own usage errors in our words
    (``unknown option '--jsn': did you mean '--json'?``), each usage error ending with where to
    read the usage; the library's messages as they are."""
    if isinstance(error, BadValue):
        return error.format_message()
    if isinstance(error, click.BadParameter) and not isinstance(error, click.MissingParameter):
        return f"invalid {option_name(error.param)}: {_sentence(error.message)}"  # a check outside .values
    if isinstance(error, click.NoSuchOption):
        hint = did_you_mean(error.option_name, _long_options(error.ctx) or error.possibilities or ())
        message = f"unknown option {error.option_name!r}{f': {hint}' if hint else ''}"
    elif isinstance(error, click.UsageError):
        message = _sentence(error.format_message())
    else:
        return error.format_message()
    ctx = error.ctx
    return f"{message} (see '{ctx.command_path} --help')" if ctx is not None else message


def _long_options(ctx: click.Context | None) -> list[str]:
    """Every long option a command shows in its help (click hands over only those it finds close)."""
    if ctx is None:
        return []
    params = [param for param in ctx.command.get_params(ctx) if not getattr(param, "hidden", False)]
    return [name for param in params for name in (*param.opts, *param.secondary_opts) if name.startswith("--")]


def _sentence(text: str) -> str:
    """Click's message as ours read: no capital to start (unless an acronym), no final full stop."""
    if text[:1].isupper() and not text[1:2].isupper():
        text = text[0].lower() + text[1:]
    return text.removesuffix(".")


def one_line(message: str) -> str:
    """A message as one printable line: a control character, line break or lone surrogate
    taken from the input (click quotes some values raw) is written as its escape, as repr does."""
    if message.isprintable():
        return message
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in message)


@contextmanager
def closed_pipe_ends() -> Iterator[None]:
    """A closed pipe ends the command quietly with exit code :data:`CLOSED_PIPE`. (Click's own
    handling, which runs first unless this does, exits 1; the same ``| head`` then ended some
    commands with 1 and others with 141.)"""
    try:
        yield
    except BrokenPipeError:
        _silence(sys.stdout, sys.stderr)  # or the interpreter fails again flushing them at exit
        raise click.exceptions.Exit(CLOSED_PIPE) from None


def _silence(*streams: Any) -> None:
    """Send what is left to write on ``streams`` to the null device."""

    for stream in streams:
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
        except (OSError, ValueError):
            pass


def main(argv: list[str] | None = None, prog_name: str = "ttt-lookup") -> None:
    """The ``ttt-lookup`` program: run one command, then the process ends."""
    guard_command_line()
    cli(argv, prog_name=prog_name)
