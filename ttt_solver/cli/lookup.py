"""Looking positions up: ``analyze``, ``best`` and ``stats``.

Heavy or rarely needed modules are imported inside the commands, so that ``analyze`` starts
almost as fast as click itself.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import click

from ..game import rules
from ..game.variant import Variant
from ..lookup import analysis
from .options import board_input, database_options, load_oracle
from .output import echo_json, grid, output_options

if TYPE_CHECKING:
    from ..lookup.oracle import Oracle


def position_command(f: Callable[[Oracle, rules.Board, str], None]) -> click.Command:
    """A command about one position: ``--db``/``--variant``, BOARD or ``--moves``, ``--json``.

    The board is parsed once, by :func:`~.options.board_input`; here the oracle is opened, and
    the command gets the oracle, the board and ``fmt``."""

    @functools.wraps(f)
    def opened(board: rules.Board, variant: Variant, db: str | None, fmt: str) -> None:
        f(load_oracle(db, variant), board, fmt)

    return click.command()(database_options(board_input(output_options("json")(opened))))


_LETTER = {1: "W", 0: "D", -1: "L"}
_COLOUR = {1: "green", 0: "yellow", -1: "red"}


@position_command
def analyze(oracle: Oracle, board: rules.Board, fmt: str) -> None:
    """Value, remoteness, best and preferred moves of a position, and a perfect line.

    \b
    Example:
        ttt-lookup analyze X...O....
        ttt-lookup analyze --moves 4,0,8 --json
    """
    found = analysis.analyze(oracle, board)  # the HTTP API's answer too
    if fmt == "json":
        echo_json(found)
    else:
        click.echo(describe(found, oracle.variant))


def describe(found: dict[str, Any], variant: Variant) -> str:
    """The human form of ``analyze``'s answer (:func:`~ttt_solver.lookup.analysis.analyze`): a
    headline, the board marked with each move's result, details."""
    board, mover, value, remoteness = found["board"], found["to_move"], found["value"], found["remoteness"]
    labels = list(board)
    styles: list[dict[str, Any]] = [{} for _ in board]
    for move in found["moves"]:
        cell = move["cell"]
        labels[cell] = f"{_LETTER[move['value']]}{move['remoteness']}"
        styles[cell] = {"fg": _COLOUR[move["value"]], "bold": cell in found["preferred_moves"]}
    drawing = "\n".join("  " + row for row in grid(labels, variant, styles).splitlines())
    ply = rules.ply(board)
    if "winner" in found:  # the game is over
        won = found["winner"]
        return f"{board}: game over at ply {ply}, {f'{won} won' if won else 'a draw'}\n\n{drawing}"
    plies = f"{remoteness} {'ply' if remoteness == 1 else 'plies'}"
    if value == 0:
        verdict = f"a draw, {plies} to the end"
    else:
        verdict = f"{mover} {'wins' if value > 0 else 'loses'} in {plies}"
    marks = [mover, rules.O if mover == rules.X else rules.X]
    return "\n".join(
        [
            f"{board}: {mover} to move at ply {ply}, {verdict}",
            "",
            drawing,
            "",
            f"(each empty cell: W/D/L for {mover} after moving there, then plies to the end)",
            *move_sets(value, found["best_moves"], found["preferred_moves"]),
            "moves:       " + "  ".join(f"{m['cell']}:{_LETTER[m['value']]}{m['remoteness']}" for m in found["moves"]),
            "line:        " + " ".join(f"{marks[i % 2]}{cell}" for i, cell in enumerate(found["line"])),
        ]
    )


def move_sets(value: int, best: Sequence[int], preferred: Sequence[int]) -> list[str]:
    """The two sets of moves of a position of ``value``, each with its name: the ``best``
    moves keep the value, the ``preferred`` ones also have the best remoteness (what ``best``,
    the line and the perfect player pick)."""
    outcome = {1: "a win", 0: "a draw", -1: "a loss"}[value]
    then = {1: ": wins fastest", 0: "", -1: ": loses slowest"}[value]
    return [
        f"best moves:  {' '.join(map(str, best))}  (keep the value: {outcome})",
        f"preferred:   {' '.join(map(str, preferred))}  (value, then remoteness{then})",
    ]


@position_command
def best(oracle: Oracle, board: rules.Board, fmt: str) -> None:
    """One preferred move: keeps the value, then wins fastest or loses slowest (lowest cell on ties).

    \b
    Example:
        ttt-lookup best X...O....
        ttt-lookup best --moves 0,4,8 --json
    """
    position = oracle.probe(board)
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
