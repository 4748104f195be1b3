"""``cache``: what the cache folder holds, and clearing it; the work stopped builds kept.

Whole-table work on a big database (the batch lookups, ``stats``, ``verify``) keeps what it
made once per database content in the cache folder (see :mod:`ttt_solver.store.cache_folder`):
memory-mapped arrays can take hundreds of megabytes. They only ever save time, so removing
them is always safe.
"""

from __future__ import annotations

import dataclasses

import click

from ..builder.kept import StoppedBuild, remove_stopped_builds, stopped_builds
from ..store.cache_folder import CacheEntry, cache_entries, cache_folder, clear_cache
from ..system.memory import size_text
from .output import echo_json, output_options
from .stopping import StoppingCommand


def _megabytes(size: int) -> str:
    return f"{size / 1e6:,.1f} MB"


def _summary(entries: list[CacheEntry]) -> str:
    count = len(entries)
    return f"{count:,} {'entry' if count == 1 else 'entries'}, {_megabytes(sum(e.size for e in entries))}"


@click.command(cls=StoppingCommand)
@click.option("--clear", is_flag=True, help="Remove the cache folder and everything in it.")
@click.option(
    "--remove-stopped",
    is_flag=True,
    help="Remove the work kept by stopped builds in the data and cache folders (never a running build's).",
)
@output_options("json")
def cache(clear: bool, remove_stopped: bool, fmt: str) -> None:
    """Show what the cache folder holds (entries and sizes) and the builds stopped in the data
    folder; remove the cache with --clear, the stopped builds' work with --remove-stopped.

    The cache only saves time: what a database needs is written again on its next use. A
    stopped build's folder (``.NAME.solving``) is what the same build command resumes from.

    \b
    Example:
        ttt-lookup cache
        ttt-lookup cache --clear
        ttt-lookup cache --remove-stopped
    """
    folder = cache_folder()
    entries = clear_cache() if clear else cache_entries()
    stopped = stopped_builds()
    removed = {build.folder for build in remove_stopped_builds(stopped)} if remove_stopped else set()
    if fmt == "json":
        listed = [{"name": e.name, "bytes": e.size} for e in entries]
        builds = [{**dataclasses.asdict(b), "bytes": b.size, "removed": b.folder in removed} for b in stopped]
        for build in builds:
            del build["size"]
        echo_json({
            "folder": folder, "cleared": clear, "entries": listed, "bytes": sum(e.size for e in entries),
            "stopped": builds,
        })  # fmt: skip
        return
    if clear:
        click.echo(f"removed {folder} ({_summary(entries)})" if entries else f"nothing to clear in {folder}")
    elif not entries:
        click.echo(f"{folder}: empty")
    else:
        width = max(len(e.name) for e in entries)
        click.echo(folder)
        for entry in entries:
            click.echo(f"  {entry.name:<{width}}  {_megabytes(entry.size):>12}")
        click.echo(f"{_summary(entries)} (ttt-lookup cache --clear removes them)")
    _echo_stopped(stopped, removed, remove_stopped)


def _echo_stopped(stopped: list[StoppedBuild], removed: set[str], removing: bool) -> None:
    """The stopped builds, each with its size, and what became of them."""
    if removing and not stopped:
        click.echo("no stopped builds to remove")
    if not stopped:
        return
    if not removing:
        click.echo("stopped builds (the same build command resumes one; --remove-stopped removes them):")
    for build in stopped:
        name = build.variant or "unknown variant"
        if build.folder in removed:
            state = "removed"
        elif build.running:
            state = "a build is running in it: left as it is"
        elif removing:
            state = "could not be removed"
        else:
            state = ""
        shown = f"  {name}  {build.folder}  {size_text(build.size)}"  # as the stopped build said it
        click.echo(f"{shown}  {state}" if state else shown)


COMMANDS = [cache]
