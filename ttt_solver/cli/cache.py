"""``cache``: what the cache folder holds, and clearing it.

Whole-table work on a big database (the batch lookups, ``stats``, ``verify``) keeps what it
made once per database content in the cache folder (see :mod:`ttt_solver.store.cache_folder`):
memory-mapped arrays can take hundreds of megabytes. They only ever save time, so removing
them is always safe.
"""

from __future__ import annotations

import click

from ..store.cache_folder import CacheEntry, cache_entries, cache_folder, clear_cache
from .output import echo_json, output_options


def _megabytes(size: int) -> str:
    return f"{size / 1e6:,.1f} MB"


def _summary(entries: list[CacheEntry]) -> str:
    count = len(entries)
    return f"{count:,} {'entry' if count == 1 else 'entries'}, {_megabytes(sum(e.size for e in entries))}"


@click.command()
@click.option("--clear", is_flag=True, help="Remove the cache folder and everything in it.")
@output_options("json")
def cache(clear: bool, fmt: str) -> None:
    """Show what the cache folder holds (entries and sizes), or remove it with --clear.

    The cache only saves time: what a database needs is written again on its next use.

    \b
    Example:
        ttt-lookup cache
        ttt-lookup cache --clear
    """
    folder = cache_folder()
    entries = clear_cache() if clear else cache_entries()
    if fmt == "json":
        listed = [{"name": e.name, "bytes": e.size} for e in entries]
        echo_json({"folder": folder, "cleared": clear, "entries": listed, "bytes": sum(e.size for e in entries)})
    elif clear:
        click.echo(f"removed {folder} ({_summary(entries)})" if entries else f"nothing to clear in {folder}")
    elif not entries:
        click.echo(f"{folder}: empty")
    else:
        width = max(len(e.name) for e in entries)
        click.echo(folder)
        for entry in entries:
            click.echo(f"  {entry.name:<{width}}  {_megabytes(entry.size):>12}")
        click.echo(f"{_summary(entries)} (ttt-lookup cache --clear removes them)")


COMMANDS = [cache]
