"""``serve``: the HTTP API and the web explorer (FastAPI and uvicorn come from the ``[web]`` extra
and are imported only when the command runs)."""

from __future__ import annotations

import click

from ..errors import MissingExtraError
from ..variant import Variant
from .values import Number, Whole

INSTALL_HINT = "pip install -e '.[web]'"


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind (127.0.0.1: this machine only).")
@click.option("--port", default=8000, show_default=True, type=Whole(0, 65535), help="Port to listen on.")
@click.option(
    "--db",
    "databases",
    multiple=True,
    metavar="PATH_OR_URL",
    help="A database to serve (repeatable; its variant is read from it). With neither --db nor"
    " --variant: every database in the data directory, and the 3x3 one (built on first use).",
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
    default=1 << 16,
    show_default=True,
    type=Whole(0),
    help="Answers kept in memory as bytes (0: compute every request).",
)
def serve(
    host: str, port: int, databases: tuple[str, ...], variant: list[Variant], time_limit: float, cache_size: int
) -> None:
    """Serve the JSON API (/api/v1), its docs (/docs) and the explorer page (/), read-only.

    \b
    Example:
        ttt-lookup serve
        ttt-lookup serve --port 8080 --variant 3x3 --variant 4x4
        ttt-lookup serve --db data/4x4.sqlite --db data/ttt.sqlite
    """
    try:
        import uvicorn

        from ..web.app import create_app
    except ImportError as error:
        raise MissingExtraError(f"serve needs {error.name or 'FastAPI'} from the [web] extra: {INSTALL_HINT}") from None
    from ..web.data import open_all

    served = open_all(list(databases), variant)
    click.echo(f"ttt-lookup serve: {', '.join(served)} on http://{host}:{port}/ (Ctrl-C stops)", err=True)
    app = create_app(served, time_limit=time_limit, cache_size=cache_size)
    # One worker; beyond 256 open connections uvicorn answers 503 rather than queueing without bound.
    uvicorn.run(app, host=host, port=port, log_level="warning", limit_concurrency=256, timeout_keep_alive=5)


COMMANDS = [serve]
