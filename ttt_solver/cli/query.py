"""``query``: run a named SQL question from the ``queries/`` folder, or the user's own SQL, on a
read-only connection."""

from __future__ import annotations

# Imported in the commands, not at the top: numpy and SQLAlchemy stay off every command that does not need them (--help imports each command module to list it).
import csv
import io
from collections.abc import Sequence
from typing import Any

import click

from ..game.variant import Variant
from . import complete
from .options import CLIError, database_options, resolve_database
from .output import echo_json, echo_long, output_options, table
from .stopping import StoppingCommand


def _parse_params(pairs: tuple[str, ...]) -> dict[str, str]:
    given: dict[str, str] = {}
    for pair in pairs:
        key, equals, value = pair.partition("=")
        if not equals or not key.strip():
            raise CLIError(f"invalid --param {pair!r}: expected KEY=VALUE, e.g. min_losing=3")
        given[key.strip()] = value
    return given


def echo_rows(columns: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str = "table") -> None:
    """Rows as an aligned table, CSV, or a JSON list of objects (a BLOB as SQL writes one, X'0a1b')."""
    if any(value.__class__ is bytes for row in rows for value in row):
        rows = [[f"X'{value.hex()}'" if value.__class__ is bytes else value for value in row] for row in rows]
    if fmt == "json":
        echo_json([dict(zip(columns, row)) for row in rows])
    elif fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(rows)
        echo_long(buffer.getvalue(), nl=False)
    else:
        echo_long(table(columns, rows))


@click.command(cls=StoppingCommand)
@click.argument("name", required=False, metavar="[NAME|SQL]", shell_complete=complete.queries)
@click.option("--param", "-p", "params", multiple=True, metavar="KEY=VALUE", help="Bind :KEY in the SQL to VALUE.")
@click.option("--list", "list_", is_flag=True, help="List the named queries with their descriptions.")
@database_options
@output_options("json", "csv")
def query(name: str | None, params: tuple[str, ...], list_: bool, variant: Variant, db: str | None, fmt: str) -> None:
    """Run a named SQL query (see --list), or your own SELECT, on the database.

    A NAME is a word (traps, ply_counts); anything else is SQL, run on a connection that only
    reads, with :KEY bound by --param KEY=VALUE. The database is checked first (SQLite's own
    check of the file, the meta table, every table equal to the digest-checked packed arrays);
    `ttt-lookup verify` is the whole-table proof against the rules.

    \b
    Example:
        ttt-lookup query --list
        ttt-lookup query traps --param min_losing=4
        ttt-lookup query opening --param first=0 --csv
        ttt-lookup query "SELECT ply, count(*) FROM positions GROUP BY ply" --json
    """
    from ..lookup import named_queries as queries

    if list_:
        if name is not None or params:
            raise CLIError("--list takes no query NAME or --param")
        echo_rows(["name", "description"], [(q.name, q.description) for q in queries.available()], fmt)
        return
    if name is None:
        raise CLIError("no query given: pass a NAME (see ttt-lookup query --list) or a SELECT statement")
    named = queries.question(name)
    named.check_variant(variant.name)
    bound = named.bind(_parse_params(params))
    columns, rows = queries.answer(named, resolve_database(db, variant), variant, bound)
    echo_rows(columns, rows, fmt)


COMMANDS = [query]
