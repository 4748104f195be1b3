"""Looking positions up: ``analyze``, ``best``, ``play`` and ``stats``.

Heavy or rarely needed modules are imported inside the commands, so that ``analyze`` starts
almost as fast as click itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from .. import board as rules
from ..analysis import analysis
from ..variant import Variant
from .options import board_input, chart_option, database_options, load_oracle, require_plot, resolve_database
from .output import echo_json, grid, output_options
from .values import SEED, Number, OneOf

if TYPE_CHECKING:
    from ..oracle import Oracle, Position

_LETTER = {1: "W", 0: "D", -1: "L"}
_COLOUR = {1: "green", 0: "yellow", -1: "red"}


@click.command()
@database_options
@board_input
@output_options("json")
def analyze(board: str, variant: Variant, db: str | None, fmt: str) -> None:
    """Value, remoteness, best and preferred moves of a position, and a perfect line.

    \b
    Example:
        ttt-lookup analyze X...O....
        ttt-lookup analyze --moves 4,0,8 --json
    """
    oracle = load_oracle(db, variant)
    position = oracle.probe(board)
    line = oracle.line(board)
    if fmt == "json":
        echo_json(analysis(position, line, variant))
    else:
        click.echo(describe(position, line, variant))


def describe(position: Position, line: list[int], variant: Variant) -> str:
    """The human form of ``analyze``: a headline, the board marked with each move's result, details."""
    board, mover = position.board, position.to_move
    labels = list(board)
    styles: list[dict[str, Any]] = [{} for _ in board]
    for move in position.moves:
        labels[move.cell] = f"{_LETTER[move.value]}{move.remoteness}"
        styles[move.cell] = {"fg": _COLOUR[move.value], "bold": move.cell in position.preferred}
    drawing = "\n".join("  " + row for row in grid(labels, variant, styles).splitlines())
    ply = rules.ply(board)
    if position.is_over:
        won = rules.winner(board, variant)
        return f"{board}: game over at ply {ply}, {f'{won} won' if won else 'a draw'}\n\n{drawing}"
    plies = f"{position.remoteness} {'ply' if position.remoteness == 1 else 'plies'}"
    if position.value == 0:
        verdict = f"a draw, {plies} to the end"
    else:
        verdict = f"{mover} {'wins' if position.value > 0 else 'loses'} in {plies}"
    marks = [mover, rules.O if mover == rules.X else rules.X]
    return "\n".join(
        [
            f"{board}: {mover} to move at ply {ply}, {verdict}",
            "",
            drawing,
            "",
            f"(each empty cell: W/D/L for {mover} after moving there, then plies to the end)",
            *move_sets(position),
            "moves:       " + "  ".join(f"{m.cell}:{_LETTER[m.value]}{m.remoteness}" for m in position.moves),
            "line:        " + " ".join(f"{marks[i % 2]}{cell}" for i, cell in enumerate(line)),
        ]
    )


def move_sets(position: Position) -> list[str]:
    """The two sets of moves, each with its name: the best moves keep the value, the preferred
    ones also have the best remoteness (what ``best``, the line and the perfect player pick)."""
    outcome = {1: "a win", 0: "a draw", -1: "a loss"}[position.value]
    then = {1: ": wins fastest", 0: "", -1: ": loses slowest"}[position.value]
    return [
        f"best moves:  {' '.join(map(str, position.best_moves))}  (keep the value: {outcome})",
        f"preferred:   {' '.join(map(str, position.preferred))}  (value, then remoteness{then})",
    ]


@click.command()
@database_options
@board_input
@output_options("json")
def best(board: str, variant: Variant, db: str | None, fmt: str) -> None:
    """One preferred move: keeps the value, then wins fastest or loses slowest (lowest cell on ties).

    \b
    Example:
        ttt-lookup best X...O....
        ttt-lookup best --moves 0,4,8 --json
    """
    oracle = load_oracle(db, variant)
    move = oracle.best_move(board)
    if fmt == "json":
        position = oracle.probe(board)
        echo_json(
            {
                "board": board,
                "to_move": position.to_move,
                "move": move,
                "value": position.value,
                "remoteness": position.remoteness,
            }
        )
    else:
        click.echo(move)


@click.command()
@database_options
@click.option(
    "--as",
    "side",
    type=OneOf(["X", "O"], case_sensitive=False),
    default="X",
    show_default=True,
    help="The side you play (X moves first).",
)
@click.option(
    "--skill",
    type=Number(0, 1),
    default=1.0,
    show_default=True,
    help="Chance that the computer plays a perfect move rather than a random one.",
)
@click.option("--seed", type=SEED, help="Seed the computer's choices, for a repeatable game.")
def play(side: str, skill: float, seed: int | None, variant: Variant, db: str | None) -> None:
    """Play a game against the perfect opponent in the terminal.

    \b
    Example:
        ttt-lookup play
        ttt-lookup play --as O --skill 0.7 --seed 1
    """
    import random

    oracle = load_oracle(db, variant)
    rng = random.Random(seed)
    you = side.upper()
    click.echo(f"You are {you}; the computer plays {'perfectly' if skill == 1 else f'with skill {skill:g}'}.")
    board = rules.EMPTY * variant.cells
    while rules.terminal_value(board, variant) is None:
        if rules.to_move(board) == you:
            click.echo("\n" + grid([m if m != rules.EMPTY else str(i) for i, m in enumerate(board)], variant))
            cell = _ask_move(board, variant)
            if cell is None:
                click.echo("You quit.")
                return
        else:
            cell = _computer_move(oracle, board, skill, rng)
            click.echo(f"The computer plays {cell}.")
        board = rules.play(board, cell, variant)
    click.echo("\n" + grid(list(board), variant))
    won = rules.winner(board, variant)
    click.echo("A draw." if won is None else "You win!" if won == you else "The computer wins.")


def _ask_move(board: str, variant: Variant) -> int | None:
    """The human's move (None to quit), asking again until it is a free cell."""
    free = rules.legal_moves(board, variant)
    while True:
        try:
            answer = click.prompt(f"Your move (a free cell 0-{variant.cells - 1}, q to quit)").strip().lower()
        except click.Abort as stop:
            if not isinstance(stop.__context__, EOFError):
                raise  # Ctrl-C: aborted
            click.echo()  # the input ended (Ctrl-D, or the end of a piped file): as good as q
            return None
        if answer in ("q", "quit"):
            return None
        cell = rules.cell_number(answer)
        if cell in free:
            return cell
        click.echo(f"{answer!r} is not a free cell; choose one of {' '.join(map(str, free))}, or q to quit.")


def _computer_move(oracle: Oracle, board: str, skill: float, rng: Any) -> int:
    """A perfect move with probability ``skill``, otherwise a random legal one."""
    if rng.random() < skill:
        return oracle.best_move(board, rng)
    return int(rng.choice(rules.legal_moves(board, oracle.variant)))


@click.command()
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
    from ..lookup.rows import DatabaseRows
    from ..stats import compute
    from ..store import Target
    from ..store.reader import Reader

    if plot_path is not None:
        from ..plot import require

        require_plot(require)  # before the work: a missing extra fails at once
    with Reader(Target.parse(resolve_database(db, variant)), variant.name) as reader:
        arrays = DatabaseRows(reader, variant).arrays()
    found = compute(arrays)
    if plot_path is not None:
        from ..plot_stats import count, draw

        require_plot(lambda: draw(count(arrays), variant.name, plot_path))
    if fmt == "json":
        echo_json(found.to_dict())
    else:
        click.echo(found.report())
        if plot_path is not None:
            click.echo(f"\nchart written to {plot_path}")


COMMANDS = [analyze, best, play, stats]
