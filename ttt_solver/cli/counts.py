"""``stats``: counts over a whole solved table, by value and by remoteness (and a chart of them).

It reads every row, with numpy, so it lives apart from the single-position lookups
(:mod:`.lookup`), which stay free of numpy.
"""

from __future__ import annotations

# Imported in the commands, not at the top: numpy and SQLAlchemy stay off every command that does not need them (--help imports each command module to list it).
import click

from ..charts.tournament_chart import require
from ..game.variant import Variant
from ..lookup.rows import DatabaseRows
from ..store import Target
from ..store.reader import Reader
from .options import chart_option, database_options, require_plot, resolve_database
from .output import echo_json, output_options
from .stopping import StoppingCommand


@click.command(cls=StoppingCommand)
@database_options
@output_options("json")
@chart_option("the positions per ply, by value and remoteness,")
def stats(variant: Variant, db: str | None, fmt: str, plot_path: str | None) -> None:
    """Counts by value and by remoteness, over every board and over canonical rows.

    \b
    Example:
        ttt-lookup stats
        ttt-lookup stats --json
        ttt-lookup stats --plot positions.png
    """
    from ..charts.variant_chart import count, draw
    from ..lookup.stats import compute

    if plot_path is not None:
        require_plot(require)  # before the work: a missing extra fails at once
    with Reader(Target.parse(resolve_database(db, variant)), variant.name) as reader:
        arrays = DatabaseRows(reader, variant).arrays()
    found = compute(arrays)
    if plot_path is not None:
        require_plot(lambda: draw(count(arrays), variant.name, plot_path))
    if fmt == "json":
        echo_json(found.to_dict())
    else:
        click.echo(found.report())
        if plot_path is not None:
            click.echo(f"\nchart written to {plot_path}")


COMMANDS = [stats]
