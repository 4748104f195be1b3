"""``play``: a game against the database in the terminal, with hints, take-backs and new games.

The keys are one table, :data:`KEYS`: the prompts, ``play --help`` and the docs' lists of them
(checked by a test) all come from it. A cell number moves; ``q`` and the end of the input quit.
"""

from __future__ import annotations

import itertools
import random
from typing import TYPE_CHECKING, Any, NamedTuple

import click

from ..game import rules
from ..game.variant import Variant
from .bounded_params import SEED, Number, OneOf
from .lookup import move_sets
from .options import database_options, load_oracle
from .output import grid
from .stopping import StoppingCommand

if TYPE_CHECKING:
    from ..lookup.oracle import Oracle

HINT, UNDO, AGAIN, QUIT = "hint", "undo", "again", "quit"


class Key(NamedTuple):
    """A key of the game: its letter, the word a player may type instead (what it does, for
    the code), its name in the lists of keys, and what it does, for the help."""

    letter: str
    word: str
    label: str
    does: str


_HINT = Key("h", HINT, "hint", "shows the best and the preferred moves (as analyze names them)")
_UNDO = Key("u", UNDO, "undo", "takes back your last move and the computer's reply")
_AGAIN = Key("r", AGAIN, "play again", "(once the game is over) starts a new game with the same settings")
_QUIT = Key("q", QUIT, "quit", "quits (so does the end of the input, Ctrl-D)")
KEYS = (_HINT, _UNDO, _AGAIN, _QUIT)  # every key, in the order the help lists them
MOVE_KEYS = (_HINT, _UNDO, _QUIT)  # while it is your move
OVER_KEYS = (_AGAIN, _UNDO, _QUIT)  # when the game is over


def listed(keys: tuple[Key, ...]) -> str:
    """``h hint, u undo, q quit``: the keys as the prompts and the docs list them."""
    return ", ".join(f"{key.letter} {key.label}" for key in keys)


def _word(answer: str, keys: tuple[Key, ...]) -> str | None:
    """What ``answer`` (a letter or a word) asks of ``keys``, as the key's word; None if none."""
    return next((key.word for key in keys if answer in (key.letter, key.word)), None)


def _help() -> str:
    """``play``'s help, from :data:`KEYS`."""
    keys = "; ".join(f"{key.letter} {key.does}" for key in KEYS)
    return (
        f"Play a game against the perfect opponent in the terminal ({listed(KEYS)}).\n\n"
        f"Type a free cell's number to move; {keys}.\n\n"
        "\b\nExample:\n    ttt-lookup play\n    ttt-lookup play --as O --skill 0.7 --seed 1"
    )


@click.command(cls=StoppingCommand, help=_help())
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
    """A game in the terminal; the help is :func:`_help`'s, from the table of keys."""
    oracle = load_oracle(db, variant)
    rng = random.Random(seed)
    you = side.upper()
    click.echo(f"You are {you}; the computer plays {'perfectly' if skill == 1 else f'with skill {skill:g}'}.")
    history = [rules.EMPTY * variant.cells]  # every board of the game so far, the empty one first
    while True:
        board = history[-1]
        action: str | int | None
        if rules.terminal_value(board, variant) is not None:
            action = _game_over(history, you, variant)
        elif rules.to_move(board) == you:
            click.echo("\n" + grid([m if m != rules.EMPTY else str(i) for i, m in enumerate(board)], variant))
            action = _ask_move(oracle, board)
        else:
            cell = _computer_move(oracle, board, skill, rng)
            click.echo(f"The computer plays {cell}.")
            history.append(rules.play(board, cell, variant))
            continue
        if action is None:
            if rules.terminal_value(board, variant) is None:
                click.echo("You quit.")
            return
        if action == AGAIN:
            click.echo("\nA new game.")
            history = history[:1]
        elif action == UNDO:
            _take_back(history, you)
        else:
            history.append(rules.play(board, int(action), variant))


def _game_over(history: list[str], you: str, variant: Variant) -> str | None:
    """Show the end of the game and its moves; then AGAIN, UNDO or None (quit)."""
    board = history[-1]
    click.echo("\n" + grid(list(board), variant))
    won = rules.winner(board, variant)
    click.echo("A draw." if won is None else "You win!" if won == you else "The computer wins.")
    click.echo(f"The game: {' '.join(_moves(history))}")
    letters = [key.letter for key in OVER_KEYS]
    while True:
        answer = _prompt(f"Game over ({listed(OVER_KEYS)})")
        word = QUIT if answer is None else _word(answer, OVER_KEYS)
        if word is not None:
            return None if word == QUIT else word
        click.echo(f"{answer!r} is not one of {', '.join(letters[:-1])} or {letters[-1]}.")


def _ask_move(oracle: Oracle, board: str) -> str | int | None:
    """The human's move, UNDO or None (quit), asking again until it is one; h shows a hint."""
    free = rules.legal_moves(board, oracle.variant)
    keys = listed(MOVE_KEYS)
    while True:
        answer = _prompt(f"Your move (a free cell 0-{oracle.variant.cells - 1}; {keys})")
        word = QUIT if answer is None else _word(answer, MOVE_KEYS)
        if word == HINT:
            position = oracle.probe(board)
            click.echo("\n".join(move_sets(position.value, position.best_moves, position.preferred_moves)))
            continue
        if word is not None:
            return None if word == QUIT else word
        assert answer is not None
        cell = rules.cell_number(answer)
        if cell in free:
            return cell
        click.echo(f"{answer!r} is not a free cell; choose one of {' '.join(map(str, free))} ({keys}).")


def _prompt(text: str) -> str | None:
    """What the player typed, trimmed and in lower case; None when the input ended (Ctrl-D, or
    the end of a piped file), which is as good as q."""
    try:
        return str(click.prompt(text)).strip().lower()
    except click.Abort as stop:
        if not isinstance(stop.__context__, EOFError):
            raise  # Ctrl-C: aborted
        click.echo()
        return None


def _take_back(history: list[str], you: str) -> None:
    """Back to your turn before your last move (so the computer's reply goes too)."""
    turns = [i for i in range(len(history) - 1) if rules.to_move(history[i]) == you]
    if not turns:
        click.echo("Nothing to undo: you have not moved yet.")
        return
    del history[turns[-1] + 1 :]
    click.echo("Took back your last move.")


def _moves(history: list[str]) -> list[str]:
    """The moves of the game as ``X4 O0 X8 ...``."""
    return [
        f"{after[cell]}{cell}"
        for before, after in itertools.pairwise(history)
        for cell in range(len(after))
        if before[cell] != after[cell]
    ]


def _computer_move(oracle: Oracle, board: str, skill: float, rng: Any) -> int:
    """A perfect (preferred) move with probability ``skill``, otherwise a random legal one."""
    if rng.random() < skill:
        return oracle.best_move(board, rng)
    return int(rng.choice(rules.legal_moves(board, oracle.variant)))


COMMANDS = [play]
