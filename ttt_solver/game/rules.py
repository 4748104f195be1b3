"""Boards: text and array notation, legality, and the rules of play.

A board is ``variant.cells`` cells numbered row-major from the top-left (0-8 on 3x3).
Text form: one character per cell, ``X``, ``O`` or ``.`` (``x``/``o`` and ``-``/``_`` are
accepted; ``/``, ``|`` and white space between rows are ignored). Array form: +1 for X,
-1 for O, 0 for empty. X moves first.

Values follow one convention everywhere in ttt-solver: +1 win, 0 draw, -1 loss, always for
the side to move. A finished game is worth -1 to the side to move when the previous player
just made k in a row (+1 in misère, where making the line loses) and 0 on a full board.

The hot functions work on normalised text (plain ``str``); :class:`Board` wraps one for
callers who like objects.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from operator import index

from ..errors import InvalidBoardError, shown
from .variant import STANDARD, Variant, as_variant

X, O, EMPTY = "X", "O", "."
_CHARS = {"X": X, "x": X, "O": O, "o": O, ".": EMPTY, "-": EMPTY, "_": EMPTY}
_SEPARATORS = frozenset("/| \t\r\n")
_FROM_NUMBER = {1: X, -1: O, 0: EMPTY}
_TO_NUMBER = {X: 1, O: -1, EMPTY: 0}


def normalize(text: str, variant: Variant | str = STANDARD, variant_from: str = "") -> str:
    """Text in any accepted spelling -> canonical spelling; checks characters and length only.
    ``variant_from``: where the variant came from, for the message (``the variant 4x4 of --db
    'data/4x4.sqlite'``), when the caller did not name it."""
    variant = as_variant(variant)
    if not isinstance(text, str):
        raise InvalidBoardError(f"invalid board {shown(text)}: expected text")
    cells = []
    for position, char in enumerate(text):
        if char in _SEPARATORS:
            continue
        mark = _CHARS.get(char)
        if mark is None:
            raise InvalidBoardError(
                f"invalid board {shown(text)}: bad character {char!r} at position {position} (use X, O and . for empty)"
            )
        cells.append(mark)
    if len(cells) != variant.cells:
        source = f" ({variant_from})" if variant_from else ""
        raise InvalidBoardError(
            f"invalid board {shown(text)}: expected {variant.cells} cells{source}, got {len(cells)}"
        )
    return "".join(cells)


def line_owners(text: str, variant: Variant = STANDARD) -> dict[str, list[tuple[int, ...]]]:
    """The completed lines of each player that has one."""
    if variant.__class__ is not Variant:  # a name, or a mistake
        variant = as_variant(variant)
    owners: dict[str, list[tuple[int, ...]]] = {}
    for line, (marks, all_x, all_o) in zip(variant.lines, variant.line_reads):
        read = marks(text)
        if read == all_x or read == all_o:
            owners.setdefault(text[line[0]], []).append(line)
    return owners


def has_line(text: str, variant: Variant) -> bool:
    """Whether a player holds a whole line of the (normalised) board ``text``."""
    for marks, all_x, all_o in variant.line_reads:
        read = marks(text)
        if read == all_x or read == all_o:
            return True
    return False


def legality_error(text: str, variant: Variant | str = STANDARD) -> str | None:
    """Why a normalised board cannot arise in a real game, or None if it can
    (InvalidBoardError if ``text`` is not normalised text of the variant's size)."""
    variant = as_variant(variant)
    if not isinstance(text, str) or len(text) != variant.cells or text.strip("XO."):
        raise _not_normal(text, variant)
    xs, os = text.count(X), text.count(O)
    if xs - os not in (0, 1):
        return (
            f"wrong piece counts: X has {xs} and O has {os}, but X moves first so X must have"
            " as many marks as O or one more"
        )
    if not has_line(text, variant):  # most boards: no line, nothing more to check
        return None
    owners = line_owners(text, variant)
    if len(owners) == 2:
        return f"both X and O have {variant.k} in a row"
    ((owner, lines),) = owners.items()
    last_mover = X if xs > os else O
    if owner != last_mover:
        return (
            f"{owner} has {variant.k} in a row but {last_mover} moved last"
            f" (X has {xs}, O has {os}): the game was already over"
        )
    shared = set(lines[0]).intersection(*lines[1:])
    if not shared:
        return f"{owner} has two separate lines: a move was made after the game ended"
    return None


def parse(text: str, variant: Variant | str = STANDARD, variant_from: str = "") -> str:
    """Normalise and check a text board; raise InvalidBoardError naming what is wrong
    (``variant_from``: see :func:`normalize`)."""
    board = normalize(text, variant, variant_from)
    reason = legality_error(board, variant)
    if reason is not None:
        raise InvalidBoardError(f"illegal board {board!r}: {reason}")
    return board


def _integer(value: object) -> int:
    """An integer (Python or numpy), never a bool, a float or text; TypeError otherwise."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        raise TypeError(value)
    return index(value)  # type: ignore[arg-type]


def from_array(cells: Iterable[int], variant: Variant | str = STANDARD) -> str:
    """+1/-1/0 integers (a list, tuple or numpy array) -> legal normalised text."""
    variant = as_variant(variant)
    try:
        numbers = [_integer(value) for value in cells]
    except TypeError:
        raise InvalidBoardError(f"invalid board {shown(cells)}: expected integers +1, -1 or 0") from None
    marks = [_FROM_NUMBER.get(number) for number in numbers]
    if None in marks:
        bad = numbers[marks.index(None)]
        raise InvalidBoardError(f"invalid board {shown(numbers)}: bad value {shown(bad)} (use +1, -1 or 0)")
    if len(marks) != variant.cells:
        raise InvalidBoardError(f"invalid board {shown(numbers)}: expected {variant.cells} cells, got {len(marks)}")
    return parse("".join(marks), variant)  # type: ignore[arg-type]


def to_array(text: str) -> list[int]:
    """Normalised text -> +1/-1/0 per cell (InvalidBoardError for anything else)."""
    if not isinstance(text, str) or text.strip("XO."):
        raise _not_normal(text, None)
    return [_TO_NUMBER[mark] for mark in text]


# to_move and ply read normalised text and sit on the agents' hot paths: they check only that
# they got text (one class comparison when they did).
def to_move(text: str) -> str:
    """Whose turn it is on a normalised board (on a finished one: who would have moved next)."""
    if text.__class__ is not str and not isinstance(text, str):
        raise _not_normal(text, None)
    return O if text.count(X) > text.count(O) else X


def ply(text: str) -> int:
    """How many marks a normalised board holds."""
    if text.__class__ is not str and not isinstance(text, str):
        raise _not_normal(text, None)
    return len(text) - text.count(EMPTY)


def _not_normal(text: object, variant: Variant | None) -> InvalidBoardError:
    """Why ``text`` is not what the rules take: normalised text (see :func:`parse`) of the
    variant's size (any size without one), which they check cheaply (a type, a length and a
    ``str.strip``) rather than answer wrongly."""
    if not isinstance(text, str):
        example = EMPTY * (variant or STANDARD).cells
        return InvalidBoardError(f"invalid board {shown(text)}: expected text such as {example!r}")
    if variant is not None and len(text) != variant.cells:
        return InvalidBoardError(f"invalid board {shown(text)}: expected {variant.cells} cells for {variant}")
    return InvalidBoardError(f"invalid board {shown(text)}: expected normalised text (X, O and . only)")


def terminal_value(text: str, variant: Variant = STANDARD) -> int | None:
    """The value of a finished game for the side to move, or None while play goes on."""
    if variant.__class__ is not Variant:  # a name, or a mistake (the hot path pays one comparison)
        variant = as_variant(variant)
    if not isinstance(text, str) or len(text) != variant.cells or text.strip("XO."):  # strip leaves any other char
        raise _not_normal(text, variant)
    if has_line(text, variant):
        return 1 if variant.misere else -1
    if EMPTY not in text:
        return 0
    return None


def winner(text: str, variant: Variant = STANDARD) -> str | None:
    """Who won a finished game (None for a draw or a game still going)."""
    value = terminal_value(text, variant)
    if not value:
        return None
    mover = to_move(text)
    return mover if value > 0 else (O if mover == X else X)


def legal_moves(text: str, variant: Variant = STANDARD) -> list[int]:
    if terminal_value(text, variant) is not None:
        return []
    return [cell for cell, mark in enumerate(text) if mark == EMPTY]


def play(text: str, cell: int, variant: Variant = STANDARD) -> str:
    """The board after the side to move plays ``cell``; raise InvalidBoardError if illegal."""
    if variant.__class__ is not Variant:  # a name, or a mistake
        variant = as_variant(variant)
    if cell.__class__ is not int:
        try:
            cell = _integer(cell)
        except TypeError:
            raise InvalidBoardError(f"invalid move {shown(cell)}: expected a cell number") from None
    if not 0 <= cell < variant.cells:
        raise InvalidBoardError(f"invalid move {shown(cell)}: cells are 0 to {variant.cells - 1}")
    if terminal_value(text, variant) is not None:
        raise InvalidBoardError(f"invalid move {cell}: the game on {text!r} is already over")
    if text[cell] != EMPTY:
        raise InvalidBoardError(f"invalid move {cell}: cell {cell} of {text!r} is taken")
    return text[:cell] + to_move(text) + text[cell + 1 :]


def from_moves(moves: Iterable[int], variant: Variant | str = STANDARD) -> str:
    """The board reached by playing ``moves`` (cells) from the empty board."""
    variant = as_variant(variant)
    board = EMPTY * variant.cells
    try:
        cells = iter(moves)
    except TypeError:
        raise InvalidBoardError(f"invalid moves {shown(moves)}: expected a sequence of cell numbers") from None
    for cell in cells:
        board = play(board, cell, variant)
    return board


def cell_number(text: str) -> int | None:
    """A cell number as people type it (``"4"``, ``"-1"``), or None if ``text`` is not one: ASCII
    digits only (int() would also read other scripts' digits, and fail on ``"²"``) and no more of
    them than a cell needs (int() refuses thousands). Whether the cell is on the board is the
    caller's to say."""
    if not isinstance(text, str):
        return None
    digits = text.removeprefix("-")
    return int(text) if digits.isascii() and digits.isdigit() and len(digits) <= 3 else None


def parse_moves(spec: str, variant: Variant | str = STANDARD) -> str:
    """``"4,0,8"`` -> the board after those moves from the empty board."""
    if not isinstance(spec, str):
        raise InvalidBoardError(f"invalid moves {shown(spec)}: expected text such as 4,0,8")
    parts = [part for part in spec.replace(" ", "").split(",") if part]
    cells = [cell for cell in map(cell_number, parts) if cell is not None]
    if len(cells) != len(parts):
        raise InvalidBoardError(f"invalid moves {shown(spec)}: expected cell numbers separated by commas, e.g. 4,0,8")
    return from_moves(cells, variant)


def board_from_input(
    text: str | None,
    moves: str | None,
    variant: Variant | str = STANDARD,
    names: tuple[str, str] = ("board", "moves"),
    variant_from: str = "",
) -> Board:
    """The legal board that user input names: exactly one of a board's text or the cells
    played from the empty board (``"4,0,8"``). The one parser of both, for the command line and
    the HTTP API, where the input enters: what it returns travels on parsed (an
    :class:`~ttt_solver.lookup.oracle.Oracle` takes a Board as it is). ``names`` are what the
    interface calls the two, and ``variant_from`` where the variant came from (for the
    message)."""
    board_name, moves_name = names
    if text is not None and moves is not None:
        raise InvalidBoardError(f"give either {board_name} or {moves_name}, not both")
    if moves is not None:
        variant = as_variant(variant)
        return Board._of_legal(parse_moves(moves, variant), variant)
    if text is None:
        raise InvalidBoardError(f"no board given: pass {board_name} (e.g. X...O....) or {moves_name} (e.g. 4,0,8)")
    variant = as_variant(variant)
    return Board._of_legal(parse(text, variant, variant_from), variant)


def all_boards(variant: Variant | str = STANDARD) -> list[str]:
    """Every legal board, in order of ply (by walking the game from the empty board)."""
    variant = as_variant(variant)
    layer = [EMPTY * variant.cells]
    found = []
    while layer:
        found.extend(layer)
        layer = sorted({play(board, cell, variant) for board in layer for cell in legal_moves(board, variant)})
    return found


def pretty(text: str, variant: Variant | str = STANDARD) -> str:
    """Rows on separate lines, e.g. ``X..\\n.O.\\n...``."""
    variant = as_variant(variant)
    if not isinstance(text, str) or len(text) != variant.cells or text.strip("XO."):
        raise _not_normal(text, variant)
    c = variant.cols
    return "\n".join(text[row * c : (row + 1) * c] for row in range(variant.rows))


class Board:
    """A legal position: normalised text plus its variant. Immutable and hashable."""

    __slots__ = ("text", "variant")
    text: str
    variant: Variant

    def __init__(self, text: str, variant: Variant | str = STANDARD) -> None:
        variant = as_variant(variant)
        object.__setattr__(self, "text", parse(text, variant))
        object.__setattr__(self, "variant", variant)

    @classmethod
    def _of_legal(cls, text: str, variant: Variant) -> Board:
        """The Board of text already parsed, or reached by legal play (:func:`play`): not
        checked again. Anything else goes through ``Board(text, variant)``, which parses."""
        board = object.__new__(cls)
        object.__setattr__(board, "text", text)
        object.__setattr__(board, "variant", variant)
        return board

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and (self.text, self.variant) == (other.text, other.variant)

    def __hash__(self) -> int:
        return hash((self.text, self.variant))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Board is immutable: cannot set {name!r}")

    @classmethod
    def from_text(cls, text: str, variant: Variant | str = STANDARD) -> Board:
        return cls(text, variant)

    @classmethod
    def from_array(cls, cells: Sequence[int], variant: Variant | str = STANDARD) -> Board:
        variant = as_variant(variant)
        return cls._of_legal(from_array(cells, variant), variant)

    @classmethod
    def from_moves(cls, moves: Iterable[int], variant: Variant | str = STANDARD) -> Board:
        variant = as_variant(variant)
        return cls._of_legal(from_moves(moves, variant), variant)

    @classmethod
    def empty(cls, variant: Variant | str = STANDARD) -> Board:
        variant = as_variant(variant)
        return cls._of_legal(EMPTY * variant.cells, variant)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        extra = "" if self.variant == STANDARD else f", Variant.parse({self.variant.name!r})"
        return f"Board({self.text!r}{extra})"

    def to_array(self) -> list[int]:
        return to_array(self.text)

    @property
    def to_move(self) -> str:
        return to_move(self.text)

    @property
    def ply(self) -> int:
        return ply(self.text)

    @property
    def is_over(self) -> bool:
        return terminal_value(self.text, self.variant) is not None

    @property
    def winner(self) -> str | None:
        return winner(self.text, self.variant)

    def legal_moves(self) -> list[int]:
        return legal_moves(self.text, self.variant)

    def play(self, cell: int) -> Board:
        return Board._of_legal(play(self.text, cell, self.variant), self.variant)

    def pretty(self) -> str:
        return pretty(self.text, self.variant)
