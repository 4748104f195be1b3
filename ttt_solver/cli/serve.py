"""``serve``: the HTTP API and the web explorer (FastAPI and uvicorn come from the ``[web]`` extra
and are imported only when the command runs).

Start-up in the order that fails soonest: bad options (exit code 2), the extra imported, the
address bound (a taken port is one ``Error:`` line, exit code 1), the named databases checked
(their meta tables only), and the real address printed once connections are taken: the server
answers at once. Each database is opened when its variant is first asked for, in a thread, with
a line on the console when it starts and ends (see :mod:`ttt_solver.web.watch`). Nothing is
ever built: a variant with no database is answered with the command that builds it.
"""

from __future__ import annotations

import click

from ..errors import MissingExtraError, install_hint, shown
from ..game.variant import Variant
from ..store import Target
from ..system.memory import out_of_memory, reserve_threads
from .bounded_params import Number, Size, Whole
from .options import CLIError, CLIFailure
from .params import PATH
from .stopping import StoppingCommand, raise_if_stopped

WEB_PACKAGES = "fastapi uvicorn uvloop httptools fastapi-offline"


_NOTHING_YET = "no database yet (build one with: ttt-lookup build --variant 3x3)"


def _say(line: str) -> None:
    raise_if_stopped()
    _tell(line)


def _tell(line: str) -> None:
    """A line on the console, from any thread (a database being opened says when it starts and ends)."""
    click.echo(f"ttt-lookup serve: {line}", err=True)


@click.command(cls=StoppingCommand)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind (127.0.0.1: this machine only).")
@click.option(
    "--port", default=8000, show_default=True, type=Whole(0, 65535), help="Port to listen on (0: any free one)."
)
@click.option(
    "--db",
    "databases",
    type=PATH,
    multiple=True,
    metavar="PATH_OR_URL",
    help="A database to serve (repeatable; its variant is read from it). With neither --db nor"
    " --variant: every variant's default database in the data directory (none is ever built).",
)
@click.option(
    "--variant",
    "variant",
    multiple=True,
    metavar="VARIANT",
    callback=lambda _ctx, _param, names: [Variant.parse(name) for name in names],
    help="Serve this variant's default database (repeatable), e.g. --variant 3x3 --variant 4x4.",
)
@click.option(
    "--time-limit",
    default=10.0,
    show_default=True,
    type=Number(0.1),
    help="Seconds a batch request may take before it is refused with 503.",
)
@click.option(
    "--cache-size",
    default="64M",
    show_default=True,
    type=Size(),
    help="Memory for answers kept as bytes, e.g. 64M or 1G (0: compute every request).",
)
@click.option("--access-log", is_flag=True, help="Log every request on stderr (one line each; off by default).")
@click.option(
    "--cors-origin",
    "cors_origins",
    multiple=True,
    metavar="ORIGIN",
    help="Let pages from this origin call the API (repeatable), e.g. https://example.org; * for any. Off by default.",
)
def serve(
    host: str,
    port: int,
    databases: tuple[str, ...],
    variant: list[Variant],
    time_limit: float,
    cache_size: int,
    access_log: bool,
    cors_origins: tuple[str, ...],
) -> None:
    """Serve the JSON API (/api/v1), its docs (/docs) and the explorer page (/), read-only.

    \b
    Example:
        ttt-lookup serve
        ttt-lookup serve --port 8080 --variant 3x3 --variant 4x4
        ttt-lookup serve --db data/4x4.sqlite --db data/ttt.sqlite --access-log
    """
    try:
        # Imported here, not at the top: the web layer needs the optional [web] extra: imported when serve runs.
        from ..web.app import create_app
        from ..web.cors import origin_error
        from ..web.data import databases_of, folder_databases
        from ..web.server import ListenError, Server, listen
        from ..web.watch import Registry
    except ImportError as error:
        if out_of_memory(error):  # installed, but no room to load it: reported as such
            raise
        needed = error.name or "FastAPI"
        raise MissingExtraError(
            f"serve needs {needed} from the [web] extra: {install_hint('web', WEB_PACKAGES)}"
        ) from None
    for origin in cors_origins:
        why = origin_error(origin)
        if why is not None:
            raise CLIError(f"invalid --cors-origin {shown(origin)}: {why}")
    for database in databases:  # bad input before the port: InvalidTargetError, exit code 2
        Target.parse(database)

    try:
        sock = listen(host, port)
    except ListenError as error:
        raise CLIFailure(str(error)) from None
    try:
        if databases or variant:
            registry = Registry(databases_of(databases, variant), progress=_tell)
            names = ", ".join(registry.watched)
        else:
            registry = Registry(folder=True, progress=_tell)
            names = ", ".join(one.name for one, _path in folder_databases()) or _NOTHING_YET
        reserve_threads()  # libuv (uvicorn's loop) aborts the process when its pool thread cannot start
        raise_if_stopped()
        app = create_app(registry, time_limit=time_limit, cache_bytes=cache_size, cors_origins=cors_origins)
        server = Server(app, sock, access_log=access_log, on_ready=lambda url: _say(f"{names} on {url} (Ctrl-C stops)"))
        server.serve_forever()
    finally:
        sock.close()


COMMANDS = [serve]
