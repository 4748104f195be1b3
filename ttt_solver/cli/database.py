"""Making and checking databases: ``build`` and ``verify``."""

from __future__ import annotations

import click

from ..game.variant import Variant
from .options import CLIFailure, database_options
from .output import echo_json, output_options


def _stderr(line: str) -> None:
    click.echo(line, err=True)


_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def _memory(_ctx: click.Context, _param: click.Parameter, value: str | None) -> int | None:
    """``--memory 512M`` / ``8G`` / a number of bytes -> bytes."""
    if value is None:
        return None
    text = value.strip().upper().removesuffix("B").removesuffix("I")
    number, unit = (text[:-1], text[-1]) if text[-1:] in _UNITS else (text, "")
    try:
        found = float(number) * _UNITS[unit]
    except (ValueError, KeyError):
        found = -1.0
    if not 1 << 16 <= found < 1 << 50:
        raise click.BadParameter(f"invalid memory budget {value!r:.40}: give a size of 64K or more, such as 512M or 8G")
    return int(found)


memory_option = click.option(
    "--memory",
    metavar="SIZE",
    callback=_memory,
    help="Memory budget, e.g. 512M or 8G (default: what the machine can spare, at most 8G).",
)


@click.command()
@database_options
@click.option("--force", is_flag=True, help="Overwrite a target that ttt-solver did not make.")
@click.option("-q", "--quiet", is_flag=True, help="No progress lines on stderr.")
@memory_option
@output_options("json")
def build(variant: Variant, db: str | None, force: bool, quiet: bool, memory: int | None, fmt: str) -> None:
    """Solve a variant exhaustively and write its database (all or nothing).

    The default target is the variant's default database (data/ttt.sqlite for 3x3 in a
    checkout). The SQLite file is written beside the target and renamed into place.

    \b
    Example:
        ttt-lookup build
        ttt-lookup build --variant 4x4
        ttt-lookup build --db my.sqlite --force
    """
    import dataclasses

    from ..build import build as build_database
    from .progress import bars

    if quiet:
        report = build_database(db, variant, force=force, memory=memory)
    else:
        with bars() as shown:
            report = build_database(db, variant, force=force, progress=_stderr, steps=shown.step, memory=memory)
    if fmt == "json":
        echo_json(dataclasses.asdict(report))
    else:
        click.echo(report.summary())


@click.command()
@database_options
@memory_option
@output_options("json")
def verify(variant: Variant, db: str | None, memory: int | None, fmt: str) -> None:
    """Prove a database whole: every row against the rules and its children's rows.

    Checks that the table holds every legal canonical position exactly once and nothing
    else, every finished position's value from the rules, every other row's value,
    remoteness, best moves and move counts from its children's rows, the orbits, the
    readable columns, the moves table (where stored), the meta counts and the content
    digest. Exit code 1 on any contradiction. (Each lookup already checks the rows it
    shows against the rows one ply below; this is the whole-table check.)

    \b
    Example:
        ttt-lookup verify
        ttt-lookup verify --variant 4x4 --json
    """
    from ..lookup.rows import DatabaseRows
    from ..lookup.verify import verify_source
    from ..store import Target
    from ..store.reader import Reader
    from .options import resolve_database
    from .progress import bars

    target = Target.parse(resolve_database(db, variant))
    with Reader(target, variant.name) as reader, bars() as shown:
        report = verify_source(DatabaseRows(reader, variant), memory, shown.step)
    if fmt == "json":
        echo_json(report.to_dict())
    else:
        click.echo(report.text())
    if not report.ok:
        raise CLIFailure(f"{report.found:,} contradictions in {target.spec!r}; {report.hint}")


COMMANDS = [build, verify]
