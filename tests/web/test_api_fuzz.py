"""Fuzzing the Python API: every call answers correctly or raises one of the project's errors.

Hypothesis calls the public functions (the ``Oracle`` lookups and their ``get_*`` and batch
forms, ``Oracle.load``, ``Board``, ``Variant``, the board functions) with legal and illegal boards in every
spelling, arrays and numpy arrays of odd dtypes and shapes, ragged lists, bools, floats,
NaN, huge integers, strings and random generators of every kind. An answer is checked
against an independent computation (a plain negamax written here from the rules, the
per-board form for the batch forms); a refusal must be a ``TTTError`` of the right kind.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from support.fuzzing import FUZZ

from ttt_solver.errors import GameOverError, InvalidArgumentError, InvalidBoardError, InvalidVariantError, TTTError
from ttt_solver.game import rules
from ttt_solver.game.rules import Board
from ttt_solver.game.variant import MAX_CELLS, Variant
from ttt_solver.lookup.oracle import Oracle

VARIANTS = ("3x3", "3x3-misere", "2x3")
ORACLES = ("3x3", "3x3 lazy", "3x3-misere", "2x3")  # "lazy": every lookup reads and proves its rows


# -- the truth, from the rules alone --------------------------------------------------------
@cache
def truth(board: str, name: str) -> tuple[int, int, dict[int, tuple[int, int]]]:
    """(value, remoteness, {cell: (value for the mover, plies to the end)}) of a legal board."""
    variant = Variant.parse(name)
    if any(board[line[0]] != "." and all(board[c] == board[line[0]] for c in line) for line in variant.lines):
        return (1 if variant.misere else -1), 0, {}
    if "." not in board:
        return 0, 0, {}
    mark = "O" if board.count("X") > board.count("O") else "X"
    moves = {}
    for cell, here in enumerate(board):
        if here == ".":
            value, plies, _ = truth(board[:cell] + mark + board[cell + 1 :], name)
            moves[cell] = (-value, plies + 1)
    value = max(v for v, _ in moves.values())
    plies = [r for v, r in moves.values() if v == value]
    return value, (min(plies) if value > 0 else max(plies)), moves


@cache
def legal(name: str) -> tuple[str, ...]:
    """Every board a game can reach, by playing from the empty board."""
    seen, layer = [], ["." * Variant.parse(name).cells]
    while layer:
        seen += layer
        layer = sorted(
            {board[:c] + ("O" if board.count("X") > board.count("O") else "X") + board[c + 1 :]
             for board in layer if truth(board, name)[2] for c in truth(board, name)[2]}
        )  # fmt: skip
    return tuple(seen)


@cache
def legal_set(name: str) -> frozenset[str]:
    return frozenset(legal(name))


def preferred(board: str, name: str) -> set[int]:
    value, plies, moves = truth(board, name)
    return {cell for cell, (v, r) in moves.items() if v == value and r == plies}


SPELLING = {"X": "X", "x": "X", "O": "O", "o": "O", ".": ".", "-": ".", "_": "."}
NUMBER = {1: "X", -1: "O", 0: "."}


def normalised(text: str, name: str) -> str | None:
    """A text in any accepted spelling in the normal one (legal or not); None if it is not one."""
    cells = [SPELLING.get(char) for char in text if char not in "/| \t\r\n"]
    if None in cells or len(cells) != Variant.parse(name).cells:
        return None
    return "".join(cells)  # type: ignore[arg-type]


def spelled(value: Any, name: str) -> str | None:
    """The normalised legal board ``value`` stands for (README: any accepted spelling, a Board,
    or the numbers +1/-1/0 as a list, tuple or numpy array), or None if it stands for none."""
    variant = Variant.parse(name)
    if isinstance(value, str):
        text = normalised(value, name)
    elif isinstance(value, Board):
        text = value.text if value.variant == variant else None
    elif isinstance(value, (list, tuple, np.ndarray, bytes)) and getattr(value, "ndim", 1) == 1:
        numbers = [
            int(v) if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) else None for v in value
        ]
        text = "".join(NUMBER.get(n, "?") for n in numbers)  # type: ignore[arg-type]
    else:
        return None
    return text if text in legal_set(name) else None


# -- strategies (built once: a strategy made inside a draw costs its set-up every time) ----------
RNGS: tuple[Callable[[], Any], ...] = (  # makers, so that every example gets a fresh generator
    lambda: None, lambda: None, lambda: None, lambda: random.Random(1), lambda: np.random.default_rng(2),
    lambda: 0, lambda: "seed", lambda: 1.5, lambda: True, lambda: np.random.RandomState(0),
    lambda: np.random.SeedSequence(1), object,
)  # fmt: skip
rngs = st.sampled_from(RNGS).map(lambda make: make())
GOOD_RNG = (type(None), random.Random, np.random.Generator)
text_garbage = st.one_of(
    st.text(max_size=12),
    st.text(alphabet="XOxo.-_/| \t\r\n?0", max_size=20),
    st.sampled_from(["", "X" * 10_000, "٣", "X..\u2028O..", "\x00" * 9, "X.........", "........"]),
)
SCALARS = (None, 0, 1, -1, 2, 2**70, -(2**70), 1.0, float("nan"), float("inf"), True, False, "1", b"\x01", object())
scalars = st.sampled_from(SCALARS)
NUMBERS = (1, 0, -1, np.int8(1), np.int64(-1), np.uint8(0), np.intp(0))  # what a cell may hold
NOT_NUMBERS = (2, -2, 2**70, True, False, np.True_, 0.0, 1.0, float("nan"), "1", None, np.float32(1), [1])
any_number = st.sampled_from(NUMBERS + NOT_NUMBERS)
DTYPES = ("int8", "int16", "int64", "uint8", "uint64", "float32", "float64", "bool", "object", "complex64", "U1")
dtypes, integer_dtypes = st.sampled_from(DTYPES), st.sampled_from(DTYPES[:5])
index = st.integers(0, 15)  # taken modulo the length it indexes
forms = st.integers(0, 11)
empties, separators = st.sampled_from(".-_"), st.sampled_from(["/", "|", " ", "\n", ""])
boards_of = {
    name: st.deferred(lambda name=name: st.sampled_from(legal(name))) for name in VARIANTS
}  # walked when first drawn
other_variants = st.sampled_from(VARIANTS)
short_texts = st.text(alphabet="XO.", max_size=18)


def as_numbers(board: str) -> list[Any]:
    return [{"X": 1, "O": -1, ".": 0}[c] for c in board]


@st.composite
def board_likes(draw: st.DrawFn, name: str) -> Any:
    """Anything a board might be given as, most often a legal board of ``name`` in some form."""
    board = draw(boards_of[name])
    form = draw(forms)
    if form <= 2:
        return board
    if form == 3:
        swap = {"X": "x", "O": "o", ".": draw(empties)}
        return draw(separators).join(swap[c] for c in board)
    if form == 4:  # a Board, now and then of another variant
        other = draw(other_variants)
        return Board(board if other == name else draw(boards_of[other]), Variant.parse(other))
    numbers = as_numbers(board)
    if form == 5:
        return numbers if draw(index) % 2 else tuple(numbers)
    if form == 6:
        return _typed([numbers], draw(dtypes))[0]
    if form == 7:  # one number swapped for another, or for something that is not a number
        numbers[draw(index) % len(numbers)] = draw(any_number)
        return numbers
    if form == 8:  # a wrong length or shape
        return [numbers[:-1], [*numbers, 0], [], [numbers], np.array([numbers]), bytes(n % 3 for n in numbers)][
            draw(index) % 6
        ]
    if form == 9:
        return draw(scalars)
    if form == 10:
        return draw(short_texts)
    return draw(text_garbage)


BOARD_LIKES = {name: board_likes(name) for name in VARIANTS}
oracle_names = st.sampled_from(ORACLES)
LOOKUPS = ("value", "remoteness", "best_moves", "preferred_moves", "best_move", "moves", "line", "probe")
GETS = ("get_value", "get_remoteness", "get_best_moves", "get_preferred_moves", "get_best_move")
lookup_methods = st.sampled_from(LOOKUPS + GETS)


@st.composite
def lookups(draw: st.DrawFn) -> tuple[Any, ...]:
    oracle = draw(oracle_names)
    return ("lookup", oracle, draw(lookup_methods), draw(BOARD_LIKES[oracle.split()[0]]), draw(rngs))


@cache
def row_pool(name: str) -> tuple[str, ...]:
    """256 boards to fill batches from, one byte each: legal ones (finished ones among them) and
    a few that no game reaches."""
    boards = legal(name)
    cells = Variant.parse(name).cells
    odd = [
        "X" * cells,
        "O" * cells,
        "XXX" + "O" * 3 + "." * (cells - 6),
        "O" + "." * (cells - 1),
        "XX" + "." * (cells - 2),
    ]
    return tuple(boards[i * len(boards) // 240] for i in range(240)) + tuple(odd[i % len(odd)] for i in range(16))


row_bytes = st.binary(max_size=6)  # one draw for the rows of a whole batch
batch_forms = st.integers(0, 9)
batch_methods = st.sampled_from(["value_batch", "remoteness_batch", "best_move_batch"])
out_of_range = st.sampled_from([2, -2, 2**62, -(2**62), 127])


@st.composite
def batches(draw: st.DrawFn) -> tuple[Any, ...]:
    oracle = draw(oracle_names)
    name = oracle.split()[0]
    cells = Variant.parse(name).cells
    pool = row_pool(name)
    rows = [as_numbers(pool[byte]) for byte in draw(row_bytes)]
    form = draw(batch_forms)
    boards: Any
    if form <= 2:
        boards = _typed(rows, draw(integer_dtypes)).reshape(len(rows), cells)
    elif form == 3:
        boards = rows  # a list of lists
    elif form == 4:  # an odd dtype
        boards = _typed(rows, draw(dtypes)).reshape(len(rows), cells)
    elif form == 5:  # something else in a cell
        if rows:
            rows[draw(index) % len(rows)][draw(index) % cells] = draw(any_number)
        boards = rows if draw(index) % 2 else _array_or_list(rows)
    elif form == 6:  # ragged: a row too long or too short
        if rows:
            rows[draw(index) % len(rows)] = [[], [0] * (cells - 1), [0] * (cells + 1)][draw(index) % 3]
        boards = rows if draw(index) % 2 else _array_or_list(rows)
    elif form == 7:  # another shape
        flat = np.array(rows, dtype=np.int8).reshape(-1)
        shapes = [
            flat,
            flat.reshape(len(rows), 1, cells),
            np.zeros((2, cells + 1), np.int8),
            np.zeros((0, cells), np.int64),
        ]
        boards = shapes[draw(index) % 4]
    elif form == 8:
        boards = draw(scalars) if draw(index) % 2 else draw(text_garbage)
    else:  # numbers out of range in an integer array
        boards = np.array(rows, dtype=np.int64).reshape(len(rows), cells)
        if rows:
            boards[draw(index) % len(rows), draw(index) % cells] = draw(out_of_range)
    return ("batch", oracle, draw(batch_methods), boards, draw(rngs))


def _typed(rows: list[list[int]], dtype: str) -> np.ndarray:
    try:
        return np.array(rows, dtype=dtype)
    except OverflowError:  # -1 as an unsigned integer: numpy's way of writing it
        return np.array(rows, dtype=np.int64).astype(dtype)


def _array_or_list(rows: list[list[Any]]) -> Any:
    try:
        return np.array(rows)
    except (ValueError, OverflowError):
        return rows


cells_in = st.one_of(st.integers(-2, 17), any_number, st.sampled_from([np.int64(4), 10**30, "4", 4.0]))
variant_names = st.sampled_from(VARIANTS)
move_lists = st.one_of(
    st.lists(st.integers(-1, 9), max_size=10),
    st.lists(st.one_of(st.integers(0, 8), any_number), max_size=6),
    st.text(alphabet="0123456789, -", max_size=14),
    scalars,
    text_garbage,
)
board_functions = st.sampled_from(["Board", "from_array", "from_moves", "play", "rules", "rules", "moves"])


@st.composite
def board_calls(draw: st.DrawFn) -> tuple[Any, ...]:
    name = draw(variant_names)
    what = draw(board_functions)
    if what in ("Board", "from_array", "rules"):
        return ("board", what, name, draw(BOARD_LIKES[name]), draw(cells_in))
    if what == "play":
        return ("board", what, name, Board(draw(boards_of[name]), Variant.parse(name)), draw(cells_in))
    return ("board", what, name, draw(move_lists), None)


variant_texts = st.one_of(
    st.sampled_from(
        ["3x3", "4x4k3", "3x3-misere", " 4X4 ", "1x16", "16x1", "17x1", "4x5", "21x1", "5x5", "0x3", "3x3k2", "3x3k4"]
    ),
    st.tuples(st.integers(0, 20), st.integers(0, 20), st.integers(-1, 20), st.booleans()).map(
        lambda p: f"{p[0]}x{p[1]}{f'k{p[2]}' if p[2] >= 0 else ''}{'-misere' if p[3] else ''}"
    ),
    st.text(max_size=12),
    scalars,
)
variant_parts = st.one_of(st.integers(-1, 17), st.sampled_from([True, 3.0, "3", None, 2**70, np.int64(3)]))
variant_calls = st.one_of(
    st.tuples(st.just("variant"), st.just("parse"), variant_texts),
    st.tuples(
        st.just("variant"),
        st.just("init"),
        st.tuples(variant_parts, variant_parts, variant_parts, st.one_of(st.booleans(), scalars)),
    ),
)
LOAD_TARGETS = (
    "{3x3}", "{2x3}", "{3x3-misere}", "{3x3}", "{missing}", "", " ", ":memory:", "bogus://x", "sqlite:///", "sqlite://",
    "~nosuchuser-ttt/x.sqlite", "a\x00b", "/", b"x", 5, Path("no/such.sqlite"), "\udcff",
)  # fmt: skip
LOAD_VARIANTS = ("3x3", "2x3", "3x3-misere", " 3X3 ", Variant(), Variant.parse("2x3"), "4x4", "", None, 5, "x", b"3x3")
load_calls = st.tuples(
    st.just("load"),
    st.sampled_from(LOAD_TARGETS),
    st.sampled_from(LOAD_VARIANTS),
    st.sampled_from([False] * 3 + [True]),
)
LOOKUP_CASES, BATCH_CASES, BOARD_CASES = lookups(), batches(), board_calls()
CASES = st.one_of(
    LOOKUP_CASES,
    LOOKUP_CASES,
    LOOKUP_CASES,
    BATCH_CASES,
    BATCH_CASES,
    BOARD_CASES,
    BOARD_CASES,
    variant_calls,
    load_calls,
)


# -- the oracles ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def oracles(variant_db: Callable[[str], Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    found: dict[str, Any] = {name: Oracle.load(variant_db(name), name) for name in VARIANTS}
    found["3x3 lazy"] = Oracle.load(variant_db("3x3"), "3x3", eager=False)
    paths = {f"{{{name}}}": str(variant_db(name)) for name in VARIANTS}
    found["paths"] = paths | {"{missing}": str(tmp_path_factory.mktemp("api-fuzz") / "missing.sqlite")}
    yield found
    for oracle in found.values():
        if isinstance(oracle, Oracle):
            oracle.close()


# -- checks -----------------------------------------------------------------------------------
def check_lookup(oracle: Oracle, name: str, method: str, board: Any, rng: Any) -> None:
    expected = spelled(board, name)
    call = getattr(oracle, method)
    kwargs = {"rng": rng} if method in ("best_move", "line", "get_best_move") else {}
    if method.startswith("get_"):
        default = object()
        try:
            answer = call(board, default=default, **kwargs)
        except InvalidArgumentError:
            assert not isinstance(rng, GOOD_RNG)
            return
        if expected is None or (method == "get_best_move" and not truth(expected, name)[2]):
            assert answer is default, (method, board, answer)
            return
        check_answer(method.removeprefix("get_"), answer, expected, name, rng)
        return
    try:
        answer = call(board, **kwargs)
    except InvalidBoardError:
        assert expected is None, (method, board)
        return
    except GameOverError:
        assert method == "best_move" and expected is not None and not truth(expected, name)[2]
        return
    except InvalidArgumentError:
        assert not isinstance(rng, GOOD_RNG), (method, board, rng)
        return
    assert expected is not None, (method, board, answer)
    check_answer(method, answer, expected, name, rng)


def check_answer(method: str, answer: Any, board: str, name: str, rng: Any) -> None:
    value, plies, moves = truth(board, name)
    if method == "value":
        assert answer == value and type(answer) is int
    elif method == "remoteness":
        assert answer == plies and type(answer) is int
    elif method == "best_moves":
        assert answer == sorted(cell for cell, (v, _) in moves.items() if v == value)
    elif method == "preferred_moves":
        assert answer == sorted(preferred(board, name))
    elif method == "best_move":
        assert answer in preferred(board, name) and type(answer) is int
        assert rng is not None or answer == min(preferred(board, name))
    elif method == "moves":
        assert {(m.cell, m.value, m.remoteness) for m in answer} == {(c, v, r) for c, (v, r) in moves.items()}
        ranks = [(-m.value, m.remoteness if m.value > 0 else -m.remoteness, m.cell) for m in answer]
        assert ranks == sorted(ranks)
    elif method == "line":
        assert len(answer) == plies
        for cell in answer:
            assert cell in preferred(board, name)
            board = rules.play(board, cell, Variant.parse(name))
        assert not truth(board, name)[2]
    else:
        assert answer.board == board and (answer.value, answer.remoteness) == (value, plies)
        assert set(answer.preferred_moves) == preferred(board, name)


def check_batch(oracle: Oracle, name: str, method: str, boards: Any, rng: Any) -> None:
    cells = Variant.parse(name).cells
    try:
        array = np.asarray(boards)
        texts = None
        if array.dtype.kind in "iu" and array.ndim == 2 and array.shape[1] == cells:
            texts = ["".join(NUMBER.get(int(v), "?") for v in row) for row in array]
            if not all(text in legal_set(name) for text in texts):
                texts = None
    except (ValueError, OverflowError, TypeError):
        texts = None
    kwargs = {"rng": rng} if method == "best_move_batch" else {}
    try:
        answer = getattr(oracle, method)(boards, **kwargs)
    except InvalidBoardError:
        assert texts is None, (method, boards)
        return
    except InvalidArgumentError:
        assert texts is not None and not isinstance(rng, GOOD_RNG), (method, boards, rng)
        return
    assert texts is not None, (method, boards, answer)
    assert isinstance(answer, np.ndarray) and answer.shape == (len(texts),)
    for text, got in zip(texts, answer.tolist()):
        value, plies, moves = truth(text, name)
        if method == "value_batch":
            assert got == value
        elif method == "remoteness_batch":
            assert got == plies
        elif not moves:
            assert got == -1
        else:
            assert got in preferred(text, name)
            assert rng is not None or got == oracle.best_move(text)


def check_board(what: str, name: str, value: Any, cell: Any) -> None:
    variant = Variant.parse(name)
    if what == "play":
        board: Board = value
        ok = isinstance(cell, (int, np.integer)) and not isinstance(cell, (bool, np.bool_))
        expected = board.text if ok and 0 <= cell < variant.cells and board.text[int(cell)] == "." else None
        if expected is not None and not board.is_over:
            mark = "O" if board.text.count("X") > board.text.count("O") else "X"
            expected = board.text[: int(cell)] + mark + board.text[int(cell) + 1 :]
        else:
            expected = None
        try:
            child = board.play(cell)
        except InvalidBoardError:
            assert expected is None, (board, cell)
            return
        assert child.text == expected and child.variant == variant
        return
    if what in ("moves", "from_moves"):  # both: every way of reading a move list
        expected = _replayed(value, name)
        for function in (
            lambda v: Board.from_moves(v, variant).text,
            lambda v: rules.from_moves(v, variant),
            lambda v: rules.parse_moves(v, variant),
        ):
            try:
                answer = function(value)
            except InvalidBoardError:
                continue
            assert answer == (expected if not isinstance(value, str) else _replayed(_cells_of(value), name)), (
                value,
                answer,
            )
        return
    if what == "rules":
        check_rules(value, cell, name)
        return
    expected = spelled(value, name)
    if what == "from_array" and isinstance(value, (str, Board)):
        expected = None
    try:
        board = Board(value, variant) if what == "Board" else Board.from_array(value, variant)
    except InvalidBoardError:
        assert expected is None or (what == "Board" and not isinstance(value, str)), (what, value)
        return
    assert board.text == expected and (what == "from_array" or isinstance(value, str)), (what, value)
    assert eval(repr(board), {"Board": Board, "Variant": Variant}) == board
    assert Board.from_array(board.to_array(), variant) == board
    assert board.is_over == (not truth(board.text, name)[2])
    assert board.legal_moves() == sorted(truth(board.text, name)[2])
    assert rules.parse(board.pretty(), variant) == board.text


def _cells_of(spec: str) -> Any:
    parts = [part for part in spec.replace(" ", "").split(",") if part]
    if all(
        p.removeprefix("-").isascii() and p.removeprefix("-").isdigit() and len(p.removeprefix("-")) <= 3 for p in parts
    ):
        return [int(p) for p in parts]
    return None


def _replayed(moves: Any, name: str) -> str | None:
    """The board after these moves, played by hand; None if any is not a legal move."""
    if isinstance(moves, str) or not hasattr(moves, "__iter__"):
        return None  # from_moves takes any iterable of cells (bytes too: they are numbers)
    board = "." * Variant.parse(name).cells
    for cell in moves:
        if not isinstance(cell, (int, np.integer)) or isinstance(cell, (bool, np.bool_)):
            return None
        if not 0 <= cell < len(board) or board[cell] != "." or not truth(board, name)[2]:
            return None
        mark = "O" if board.count("X") > board.count("O") else "X"
        board = board[:cell] + mark + board[cell + 1 :]
    return board


def check_rules(value: Any, cell: Any, name: str) -> None:
    """The functions on normalised text: an answer on a legal board, a refusal of anything else
    that is not a normalised board of the right size."""
    variant = Variant.parse(name)
    text = value if isinstance(value, str) else None
    normal = text is not None and len(text) == variant.cells and set(text) <= set("XO.")
    checks = {
        "terminal_value": lambda t: rules.terminal_value(t, variant),
        "winner": lambda t: rules.winner(t, variant),
        "legal_moves": lambda t: rules.legal_moves(t, variant),
        "play": lambda t: rules.play(t, cell, variant),
        "normalize": lambda t: rules.normalize(t, variant),
        "parse": lambda t: rules.parse(t, variant),
        "pretty": lambda t: rules.pretty(t, variant),
        "from_array": lambda t: rules.from_array(t, variant),
    }
    number = rules.cell_number(value)
    assert number is None or isinstance(value, str) and re.fullmatch(r"-?[0-9]{1,3}", value) and number == int(value)
    for function, call in checks.items():
        try:
            answer = call(value)
        except InvalidBoardError:
            if function == "normalize":
                assert text is None or normalised(text, name) is None, (function, value)
            elif function == "parse":
                assert text is None or spelled(text, name) is None, (function, value)
            continue
        if function in ("normalize", "parse"):
            assert text is not None
            assert answer == (normalised(text, name) if function == "normalize" else spelled(text, name))
            continue
        if function == "from_array":
            assert answer == spelled(value, name) and not isinstance(value, str)
            continue
        assert normal, (function, value, answer)
        if text not in legal_set(name):
            continue  # a board no game reaches: the rules on normalised text need not say so
        moves = truth(text, name)[2]
        if function == "terminal_value":
            assert answer == (None if moves else truth(text, name)[0])
        elif function == "legal_moves":
            assert answer == sorted(moves)
        elif function == "winner":
            assert answer in (None, "X", "O")
        elif function == "play":
            assert moves and cell in moves and not isinstance(cell, (bool, np.bool_))
        elif function == "pretty":
            assert answer.replace("\n", "") == text


def check_variant(how: str, value: Any) -> None:
    try:
        variant = Variant.parse(value) if how == "parse" else Variant(*value)
    except InvalidVariantError:
        return
    assert 1 <= variant.cells <= MAX_CELLS and 3 <= variant.k <= max(variant.rows, variant.cols)
    assert all(type(part) is int for part in (variant.rows, variant.cols, variant.k)) and type(variant.misere) is bool
    assert Variant.parse(variant.name) == variant and eval(repr(variant), {"Variant": Variant}) == variant
    if how == "parse":
        assert isinstance(value, str)


def check_load(paths: dict[str, str], db: Any, variant: Any, eager: bool) -> None:
    """Oracle.load opens the databases there are, for their own variant (the one given, or with
    None the one the file holds), and refuses all else."""
    if isinstance(db, str) and db in paths:
        db = paths[db]
    holds = {path: name for name, path in ((key.strip("{}"), path) for key, path in paths.items())}.get(db)
    try:
        wanted = variant if isinstance(variant, Variant) else Variant.parse(variant)
    except InvalidVariantError:
        wanted = Variant.parse(holds) if variant is None and holds in VARIANTS else None
    try:
        oracle = Oracle.load(db, variant, eager=eager)
    except TTTError:
        assert wanted is None or holds is None or wanted.name != holds, (db, variant)
        return
    with oracle:
        assert wanted is not None and oracle.variant == wanted and wanted.name == holds
        assert oracle.value("." * wanted.cells) == truth("." * wanted.cells, holds)[0]


@FUZZ
@given(case=CASES)
# What the 5,000-example run reached and a 2,000-example one did not (traced: support/fuzzing.py):
# a variant's name guessed from its numbers, a best move drawn by a numpy Generator or a Random.
@example(case=("variant", "parse", "3x3misere"))
@example(case=("lookup", "3x3", "best_move", "X...O....", np.random.default_rng(1)))
@example(case=("lookup", "3x3", "best_move", "X...O....", random.Random(1)))
def test_any_call_answers_correctly_or_raises_its_own_error(oracles: dict[str, Any], case: tuple[Any, ...]) -> None:
    try:
        if case[0] == "lookup":
            _, oracle, method, board, rng = case
            check_lookup(oracles[oracle], oracle.split()[0], method, board, rng)
        elif case[0] == "batch":
            _, oracle, method, boards, rng = case
            check_batch(oracles[oracle], oracle.split()[0], method, boards, rng)
        elif case[0] == "board":
            check_board(*case[1:])
        elif case[0] == "load":
            check_load(oracles["paths"], *case[1:])
        else:
            check_variant(*case[1:])
    except Exception as error:  # say which case (Hypothesis shows only the strategy's name here)
        raise AssertionError(f"{case!r:.2000}: {error!r}") from error
