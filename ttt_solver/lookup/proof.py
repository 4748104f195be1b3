"""Each answer checked against the rows one ply below it, in pure Python.

A solved table proves itself locally: a finished position's row follows from the rules, and
every other row's value, remoteness, best moves and move counts follow from its children's
rows (:func:`ttt_solver.game.values.outcome`). :func:`resolve` builds the answer for one real
board from its canonical row and its children's rows (:func:`answer`, seen from the real
board), and with ``prove`` it also checks the row and each child's row against the rows below
them, so that a lookup never shows a number the table contradicts. A contradiction is a
:class:`DatabaseError` naming the board.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from functools import lru_cache

from ..errors import DatabaseError
from ..game import codec, rules
from ..game.values import Outcome, move_result, outcome, rank
from ..game.variant import Permutation, Variant
from ..store.row_data import Row, cells_of
from .position import Move, Position

Fetch = Callable[[Collection[int]], dict[int, Row]]


# Node and Answer are plain classes with slots, not NamedTuples: they never leave this module as
# tuples, and each NamedTuple's class costs a lookup's import some 0.4% of importing click.
class Node:
    """A canonical position as the rules see it."""

    __slots__ = ("board", "children", "terminal")

    def __init__(self, board: str, terminal: int | None, children: tuple[tuple[int, int], ...]) -> None:
        self.board = board  # canonical text
        self.terminal = terminal  # the value of a finished game, None while play goes on
        self.children = children  # (cell, canonical code of the result), ascending by cell


@lru_cache(maxsize=1 << 16)
def node(code: int, variant: Variant) -> Node:
    board = codec.decode(code, variant.cells)
    terminal = rules.terminal_value(board, variant)
    if terminal is not None:
        return Node(board, terminal, ())
    return Node(board, None, codec.canonical_children(board, rules.to_move(board), variant))


def implied(here: Node, rows: dict[int, Row]) -> Outcome:
    """What the rules and the children's rows say the row of ``here`` must hold."""
    if here.terminal is not None:
        return Outcome(here.terminal, 0, (), (), 0, 0, 0)
    return outcome([(cell, *move_result(*rows[child][:2])) for cell, child in here.children])


def contradiction(row: Row, expected: Outcome) -> str | None:
    """What ``row`` holds that ``expected`` denies (its first number that differs), or None."""
    held = (row.value, row.remoteness, cells_of(row.best), row.wins, row.draws, row.losses)  # the mask as its cells
    wanted = (expected.value, expected.remoteness, expected.best, expected.wins, expected.draws, expected.losses)
    if held == wanted:  # the common case, in one comparison
        return None
    return next(
        f"{name} {h!r}, but its children imply {w!r}" for name, h, w in zip(Row._fields, held, wanted) if h != w
    )


class Answer:
    """The answer for a canonical position, in its own cell numbering."""

    __slots__ = ("moves", "row")

    def __init__(self, row: Row, moves: tuple[tuple[int, int, int], ...]) -> None:
        self.row = row
        self.moves = moves  # (cell, value, remoteness) of each move, ascending by cell

    def seen_as(self, text: str, perm: Permutation) -> Position:
        """The answer for the real board ``text``, whose canonical cell ``c`` is its cell
        ``perm[c]``: the moves ranked (value, then remoteness, then the real cell)."""
        moves = sorted(
            (Move(perm[cell], value, remoteness) for cell, value, remoteness in self.moves),
            key=lambda m: (*rank(m.value, m.remoteness), m.cell),
        )
        row = self.row
        best = tuple(sorted(perm[cell] for cell in cells_of(row.best)))
        return Position(text, row.value, row.remoteness, tuple(moves), best, self.preferred_as(perm))

    def preferred_as(self, perm: Permutation) -> tuple[int, ...]:
        """The preferred moves (those that keep the value and the remoteness) as the real
        board's cells, ascending (``perm`` as in :meth:`seen_as`)."""
        value, remoteness = self.row.value, self.row.remoteness
        return tuple(sorted(perm[cell] for cell, v, r in self.moves if v == value and r == remoteness))


def resolve(text: str, variant: Variant, fetch: Fetch, location: str, hint: Callable[[], str], prove: bool) -> Position:
    """The answer for a normalised legal board; with ``prove``, checked one ply down: its row
    and each child's row (the moves it shows) against the rows below them. ``hint()`` says how
    to rebuild the database (called only for an error message)."""
    code, perm = codec.canonical(text, variant)
    return answer(code, variant, fetch, location, hint, prove).seen_as(text, perm)


def preferred(
    text: str, variant: Variant, fetch: Fetch, location: str, hint: Callable[[], str], prove: bool
) -> tuple[int, ...]:
    """The preferred moves of a normalised legal board, ascending, as :func:`resolve` lists them,
    without the rest of its answer; with ``prove``, its row checked against its children's rows
    (a perfect line proves each child's row when it gets there: some hundreds of rows read for a
    line of 20 plies, not thousands)."""
    code, perm = codec.canonical(text, variant)
    return answer(code, variant, fetch, location, hint, prove, children=False).preferred_as(perm)


def answer(
    code: int,
    variant: Variant,
    fetch: Fetch,
    location: str,
    hint: Callable[[], str],
    prove: bool,
    children: bool = True,
) -> Answer:
    """The answer for the canonical position ``code``, in its own cell numbering (as :func:`resolve`)."""
    here = node(code, variant)
    wanted = {code, *(child for _cell, child in here.children)}
    if prove and children:
        wanted.update(grandchild for _cell, child in here.children for _c, grandchild in node(child, variant).children)
    rows = fetch(wanted)
    missing = sorted(wanted - rows.keys())
    if missing:
        board = codec.decode(missing[0], variant.cells)
        raise DatabaseError(f"database {location!r} has no row for board {board!r}: it is incomplete; {hint()}")
    if prove:
        for checked in (code, *dict.fromkeys(child for _cell, child in here.children if children)):
            below = node(checked, variant)
            wrong = contradiction(rows[checked], implied(below, rows))
            if wrong is not None:
                raise DatabaseError(
                    f"database {location!r} contradicts itself at board {below.board!r}: it stores {wrong}; {hint()}"
                )
    return Answer(rows[code], tuple((cell, *move_result(*rows[child][:2])) for cell, child in here.children))
