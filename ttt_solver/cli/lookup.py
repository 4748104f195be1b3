"""Looking positions up: ``analyze``, ``best`` and ``stats``.

Heavy or rarely needed modules are imported inside the commands, so that ``analyze`` starts
almost as fast as click itself.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from ..game import rules
from ..game.variant import Variant
from ..lookup.analysis import analysis
from .options import board_input, database_options, load_oracle
from .output import echo_json, grid, output_options

if TYPE_CHECKING:
    from ..lookup.oracle import Oracle, Position


def position_command(f: Callable[[Oracle, Position, str], None]) -> click.Command:
    """A command about one position: ``--db``/``--variant``, BOARD or ``--moves``, ``--json``.

    The board is parsed once, by :func:`~.options.board_input`; here the oracle is opened and
    the board probed, and the command gets the oracle, the position and ``fmt``."""

    @functools.wraps(f)
    def probed(board: rules.Board, variant: Variant, db: str | None, fmt: str) -> None:
        oracle = load_oracle(db, variant)
        f(oracle, oracle.probe(board), fmt)

    return click.command()(database_options(board_input(output_options("json")(probed))))


_LETTER = {1: "W", 0: "D", -1: "L"}
_COLOUR = {1: "green", 0: "yellow", -1: "red"}


@position_command
def analyze(oracle: Oracle, position: Position, fmt: str) -> None:
    """Value, remoteness, best and preferred moves of a position, and a perfect line.

    \b
    Example:
        ttt-lookup analyze X...O....
        ttt-lookup analyze --moves 4,0,8 --json
    """
    line = oracle.line(position.board)
    if fmt == "json":
        echo_json(analysis(position, line, oracle.variant))
    else:
        click.echo(describe(position, line, oracle.variant))


def describe(position: Position, line: list[int], variant: Variant) -> str:
    """The human form of ``analyze``: a headline, the board marked with each move's result, details."""
    board, mover = position.board, position.to_move
    labels = list(board)
    styles: list[dict[str, Any]] = [{} for _ in board]
    for move in position.moves:
        labels[move.cell] = f"{_LETTER[move.value]}{move.remoteness}"
        styles[move.cell] = {"fg": _COLOUR[move.value], "bold": move.cell in position.preferred_moves}
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
        f"preferred:   {' '.join(map(str, position.preferred_moves))}  (value, then remoteness{then})",
    ]


@position_command
def best(oracle: Oracle, position: Position, fmt: str) -> None:
    """One preferred move: keeps the value, then wins fastest or loses slowest (lowest cell on ties).

    \b
    Example:
        ttt-lookup best X...O....
        ttt-lookup best --moves 0,4,8 --json
    """
    move = oracle.best_move(position.board)
    if fmt == "json":
        echo_json(
            {
                "board": position.board,
                "to_move": position.to_move,
                "move": move,
                "value": position.value,
                "remoteness": position.remoteness,
            }
        )
    else:
        click.echo(move)


COMMANDS = [analyze, best]
