"""The compiled batch loops (the C extension ttt_solver/lookup/batch_loops.c, called through
ttt_solver/lookup/batch_kernels.py) answer as the numpy path does: random legal and illegal
boards of 3x3, 3x4k3 and 4x4 (a byte a code, and two bits a board by rank), every integer dtype
and layout, and False, then the numpy path's error, for every kind of board at fault (a cell
other than +1, -1 or 0, impossible piece counts, no legal board). ``TTT_COMPILED=numpy`` keeps
them off; a batch of any size takes them."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ttt_solver.errors import InvalidBoardError
from ttt_solver.game import array_rules, rules
from ttt_solver.game.value_bytes import NO_POSITION
from ttt_solver.game.variant import Variant
from ttt_solver.lookup import batch_kernels, tables
from ttt_solver.lookup.oracle import Oracle
from ttt_solver.system import compiled_loops

VARIANTS = ["3x3", "3x4k3", "4x4"]
INTEGERS = ["i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8"]

built = pytest.mark.skipif(not batch_kernels.BUILT, reason="the C extension was not built (no C compiler)")
compiled = pytest.mark.skipif(not batch_kernels.COMPILED, reason="the compiled loops are off (not built, or TTT_COMPILED=numpy)")  # fmt: skip


@pytest.fixture(scope="module")
def oracles(variant_db) -> dict[str, Oracle]:
    return {name: Oracle.load(variant_db(name), name) for name in VARIANTS}


def numpy_path(call, *args):
    """``call(*args)`` with the compiled loops switched off, as where the extension is not built."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tables.BatchTables, "_compiled_lookup", lambda *_args: False)
        return call(*args)


def numpy_values(oracle: Oracle, boards: np.ndarray) -> np.ndarray | None:
    """The numpy path's values of ``boards``, None where it raises InvalidBoardError."""
    try:
        return numpy_path(oracle.value_batch, boards)
    except InvalidBoardError:
        return None


def played(variant: Variant, moves: list[int]) -> list[int]:
    """The board (+1/-1/0) after playing each move's cell among those still free, until over."""
    board = "." * variant.cells
    for move in moves:
        free = rules.legal_moves(board, variant)
        if not free:
            break
        board = rules.play(board, free[move % len(free)], variant)
    return rules.to_array(board)


def layouts(boards: np.ndarray, dtypes: list[str] = INTEGERS) -> list[np.ndarray]:
    """The same boards in every integer dtype that holds them and every layout: C order,
    Fortran order, every other row of a bigger array, the other byte order."""
    found = []
    for dtype in dtypes:
        if np.dtype(dtype).kind == "u" and (boards < 0).any():
            continue
        same = boards.astype(dtype)
        spaced = np.zeros((2 * len(boards), boards.shape[1]), dtype=dtype)[::2]
        spaced[:] = boards
        found += [same, np.asfortranarray(same), spaced, same.astype(same.dtype.newbyteorder())]
    return found


def words(boards: np.ndarray) -> np.ndarray:
    """16-cell int8 boards as the 64-bit words values_by_rank reads, two a board."""
    return np.ascontiguousarray(boards, dtype=np.int8).reshape(-1).view(np.uint64)


def values_by_rank(found: tables.BatchTables, boards: np.ndarray, out: np.ndarray) -> bool:
    assert found.ranked_values is not None
    ranked = found.ranked_values
    return batch_kernels.values_by_rank(words(boards), ranked.base, ranked.position, ranked.packed, out)


def loop_values(found: tables.BatchTables, boards: np.ndarray) -> np.ndarray | None:
    """The values by the table's own loop (by rank for 16 cells), None where it returns False."""
    out = np.empty(len(boards), dtype=np.int8)
    if found.ranked_values is not None:
        answered = values_by_rank(found, boards, out)
    else:
        weights = array_rules.geometry(found.variant).weights
        answered = batch_kernels.gather_bytes(boards, weights, found.results, tables._VALUE_OF, out)
    return out if answered else None


games = st.lists(st.lists(st.integers(0, 24), max_size=16), min_size=1, max_size=60)


@compiled
@given(name=st.sampled_from(VARIANTS), moves=games)
def test_the_compiled_loops_answer_random_legal_boards_as_numpy_does(oracles, name, moves):
    oracle = oracles[name]
    boards = np.array([played(oracle.variant, game) for game in moves], dtype=np.int8)
    for method in (oracle.value_batch, oracle.remoteness_batch):
        expected = numpy_path(method, boards)
        for layout in layouts(boards):
            assert np.array_equal(method(layout), expected), layout.dtype


# A row: a played game (legal), or any cells of +1, -1 and 0 (mostly illegal for 16 cells: lines
# of both, or impossible counts), now and then a cell at fault.
rows = st.one_of(
    st.tuples(st.just("played"), st.lists(st.integers(0, 24), max_size=16)),
    st.tuples(st.just("cells"), st.lists(st.sampled_from([-1, 0, 1]), min_size=16, max_size=16)),
    st.tuples(st.just("fault"), st.integers(0, 15), st.sampled_from([2, -2, 3, 127, -128])),
)


def board_of(variant: Variant, row: tuple) -> list[int]:
    kind, *rest = row
    if kind == "played":
        return played(variant, rest[0])
    if kind == "cells":
        return rest[0][: variant.cells]
    board = played(variant, [rest[0], 3])
    board[rest[0] % variant.cells] = rest[1]
    return board


@built
@given(name=st.sampled_from(VARIANTS), drawn=st.lists(rows, min_size=1, max_size=20))
def test_the_loops_answer_any_board_as_numpy_does(oracles, name, drawn):
    """Each board alone and the batch: the loop answers where numpy's path answers, the same
    values, and returns False where numpy's path raises."""
    oracle = oracles[name]
    found = oracle.batch_tables()
    boards = np.array([board_of(oracle.variant, row) for row in drawn], dtype=np.int8)
    for board in [*boards[:, None, :], boards]:
        expected, answer = numpy_values(oracle, board), loop_values(found, board)
        assert (answer is None) == (expected is None)
        assert expected is None or np.array_equal(answer, expected)


@built
@pytest.mark.parametrize("name", VARIANTS)
def test_the_loops_read_the_tables_as_numpy_does(oracles, name):
    """The loops themselves against the numpy path, a board at fault included."""
    oracle = oracles[name]
    found = oracle.batch_tables()
    boards = np.array([played(oracle.variant, [seed * 7, seed, 3 * seed]) for seed in range(40)], dtype=np.int8)
    weights = array_rules.geometry(oracle.variant).weights
    out = np.empty(len(boards), dtype=np.int8)
    assert np.array_equal(loop_values(found, boards), numpy_path(oracle.value_batch, boards))
    for layout in layouts(boards):
        assert batch_kernels.gather_bytes(layout, weights, found.results, tables._REMOTENESS_OF, out)
        assert np.array_equal(out, numpy_path(oracle.remoteness_batch, boards)), layout.dtype
    for bad in (2, -2, 127, -128):
        for row, cell in ((-1, 0), (-1, -1), (0, 0), (20, 5)):  # the last cell of the batch too
            faulty = boards.copy()
            faulty[row, cell] = bad
            assert not batch_kernels.gather_bytes(faulty, weights, found.results, tables._VALUE_OF, out)
            assert loop_values(found, faulty) is None
    for bad in (255, 256, 257, 2**31, 2**32 - 1):  # in wider integers: never wrapped into a digit
        wide = boards.astype(np.int64)
        wide[-1, -1] = bad
        assert not batch_kernels.gather_bytes(wide, weights, found.results, tables._VALUE_OF, out), bad
        assert not batch_kernels.gather_bytes(wide.astype(np.uint64), weights, found.results, tables._VALUE_OF, out)
    illegal = boards.copy()
    illegal[-1] = 1  # all X: no legal board
    assert not batch_kernels.gather_bytes(illegal, weights, found.results, tables._VALUE_OF, out)
    assert loop_values(found, illegal) is None


@built
@pytest.mark.parametrize("name", VARIANTS)
def test_a_board_at_fault_far_into_a_batch_stops_the_loop(oracles, name):
    """Past the first blocks of boards (512 up to 15 cells, 16,384 for 16): a fault in a later
    block is found, and a batch of many blocks with none is answered in full."""
    oracle = oracles[name]
    found = oracle.batch_tables()
    boards = np.array([played(oracle.variant, [seed, 5 * seed, 2]) for seed in range(40_000)], dtype=np.int8)
    assert np.array_equal(loop_values(found, boards), numpy_path(oracle.value_batch, boards))
    weights, out = array_rules.geometry(oracle.variant).weights, np.empty(len(boards), dtype=np.int8)
    expected = numpy_path(oracle.remoteness_batch, boards)
    for wide in (boards.astype(np.int64), np.asfortranarray(boards.astype(np.int16))):
        assert batch_kernels.gather_bytes(wide, weights, found.results, tables._REMOTENESS_OF, out)
        assert np.array_equal(out, expected)
    for row, cells in ((39_999, [2]), (33_000, [1, 1]), (20_000, [0] * (oracle.variant.cells - 1) + [3])):
        faulty = boards.copy()
        faulty[row] = 0
        faulty[row, : len(cells)] = cells
        assert loop_values(found, faulty) is None


def test_4x4_values_are_two_bits_a_board_by_rank(oracles):
    """4x4's values by rank among the 10,165,779 boards with legal piece counts, not by code
    (43 million): 2.5 MB, a table that stays in the caches, and each board's value in it."""
    found = oracles["4x4"].batch_tables()
    assert found.ranked_values is not None
    assert found.ranked_values.size == 10_165_779
    assert found.ranked_values.packed.nbytes == (10_165_779 + 1) // 4 + 1  # and the rank of impossible counts
    boards = np.array([played(found.variant, [seed * 5, seed, 7 * seed, 3]) for seed in range(300)], dtype=np.int8)
    expected = np.take(tables._VALUE_OF, np.take(found.results, found.index.locate(boards)))
    assert np.array_equal(found.ranked_values.states(found.index.locate(boards)).astype(np.int8) - 2, expected)


@built
def test_4x4_ranks_answer_any_code_as_the_result_bytes_do(oracles):
    """Codes drawn over all 3**16, impossible piece counts and illegal lines included: numpy's
    two bits are the result bytes' (0 where no legal board is), and the loop answers the
    boards with legal counts alike and stops at any other."""
    found = oracles["4x4"].batch_tables()
    ranked = found.ranked_values
    assert ranked is not None
    codes = np.random.default_rng(4).integers(0, 3**16, 20_000)
    bytes_ = np.take(found.results, codes)
    expected = np.where(bytes_ == NO_POSITION, 0, np.take(tables._VALUE_OF, bytes_) + 2)
    assert np.array_equal(ranked.states(codes), expected)
    g = array_rules.geometry(found.variant)
    high, low = np.divmod(codes, g.base)
    boards = np.concatenate([g.digits[0][high], g.digits[1][low]], axis=1).astype(np.int8) - 1
    marks = boards.sum(axis=1)
    counted, out = (marks == 0) | (marks == 1), np.empty(len(codes), dtype=np.int8)
    answered = counted & (expected > 0)
    assert values_by_rank(found, boards[answered], out[: answered.sum()])
    assert np.array_equal(out[: answered.sum()], expected[answered] - 2)
    for board in boards[~answered][:300]:
        assert not values_by_rank(found, board[None, :], out[:1])


@built
@pytest.mark.parametrize(
    ("board", "answered"),
    [
        ("XO..............", True),
        ("XX..............", False),  # impossible counts: X two marks ahead
        ("O...............", False),  # impossible counts: O ahead
        ("XXXXOOOO........", False),  # counts right, both won: no legal board at its rank
        ("XXXXOOO.........", True),  # X's line, O one behind
        ("XXXXOOOOX.......", False),  # X's win, played on after O's
    ],
)
def test_the_16_cell_loop_stops_at_counts_and_missing_boards(oracles, board, answered):
    found = oracles["4x4"].batch_tables()
    boards = np.array([rules.to_array(board)], dtype=np.int8)
    out = np.empty(1, dtype=np.int8)
    assert values_by_rank(found, boards, out) == answered
    assert (numpy_values(oracles["4x4"], boards) is not None) == answered
    if answered:
        assert np.array_equal(out, numpy_values(oracles["4x4"], boards))


@built
@pytest.mark.parametrize("cell", [0, 7, 8, 15])
def test_the_16_cell_loop_finds_every_byte_at_fault(oracles, cell):
    """Each byte other than +1, -1 or 0, at either end of either word, stops the loop, with
    the other cells empty or some of them X's or O's (so that the digits of the board sum as
    those of legal counts: the check of the counts alone would not stop it)."""
    found = oracles["4x4"].batch_tables()
    out = np.empty(1, dtype=np.int8)
    assert values_by_rank(found, np.zeros((1, 16), dtype=np.int8), out)
    others = [other for other in range(16) if other != cell]
    for bad in sorted(set(range(-128, 128)) - {-1, 0, 1}):
        for mark, count in [(0, 0)] + [(mark, count) for mark in (1, -1) for count in range(1, 9)]:
            board = np.zeros((1, 16), dtype=np.int8)
            board[0, others[:count]] = mark
            board[0, cell] = bad
            assert not values_by_rank(found, board, out), (bad, mark, count)


@built
@pytest.mark.parametrize("dtype", INTEGERS)
def test_narrow_copies_every_integer_dtype_and_layout_into_int8(dtype):
    cells = np.random.default_rng(7).integers(-1, 2, (50, 16))
    if np.dtype(dtype).kind == "u":
        cells = np.abs(cells)
    for boards in layouts(cells, [dtype]):
        out = np.full(boards.shape, 99, dtype=np.int8)
        assert batch_kernels.narrow(boards, out)
        assert np.array_equal(out, cells)
    info = np.iinfo(dtype)
    # Values int8 would wrap into a digit (257 -> 1, 255 -> -1), and each type's extremes.
    for bad in {2, 255, 256, 257, -2, -255, info.max, info.min} - {-1, 0, 1}:
        if not info.min <= bad <= info.max:
            continue
        faulty = cells.astype(dtype)
        faulty[31, 4] = bad
        for boards in layouts(faulty, [dtype]):
            assert not batch_kernels.narrow(boards, np.empty(boards.shape, dtype=np.int8)), (bad, boards.dtype)


@compiled
@pytest.mark.parametrize("dtype", INTEGERS)
def test_4x4_batches_of_any_dtype_and_layout_answer_as_numpy_does(oracles, dtype):
    """Misaligned int8 rows and other integers are copied into int8 first; a value that int8
    would wrap (257 -> 1) is the error the numpy path names."""
    oracle = oracles["4x4"]
    boards = np.array([played(oracle.variant, [seed, 2 * seed, 5]) for seed in range(50)], dtype=np.int8)
    if np.dtype(dtype).kind == "u":
        boards = np.abs(boards)  # X and empty cells only: illegal counts, the error numpy's path names
    misaligned = np.zeros(boards.size + 1, dtype=np.int8)[1:].reshape(boards.shape)
    misaligned[:] = boards
    for layout in [misaligned, *layouts(boards, [dtype])]:
        try:
            expected = numpy_path(oracle.value_batch, layout)
        except InvalidBoardError as error:
            with pytest.raises(InvalidBoardError, match=re.escape(str(error))):
                oracle.value_batch(layout)
            continue
        assert np.array_equal(oracle.value_batch(layout), expected)
    if np.iinfo(dtype).max >= 257:
        wide = boards.astype(dtype)
        wide[30, 4] = 257
        with pytest.raises(InvalidBoardError, match=r"row 30 has a value other than \+1, -1 or 0: .*257"):
            oracle.value_batch(wide)


@built
def test_the_loops_refuse_arrays_they_cannot_read(oracles):
    found = oracles["3x3"].batch_tables()
    weights = array_rules.geometry(found.variant).weights
    boards, out = np.zeros((4, 9), dtype=np.int8), np.empty(4, dtype=np.int8)
    with pytest.raises(TypeError, match="boards"):
        batch_kernels.gather_bytes(boards.astype(np.float64), weights, found.results, tables._VALUE_OF, out)
    with pytest.raises(TypeError, match="boards"):
        batch_kernels.narrow(boards.reshape(-1), np.empty(36, dtype=np.int8))  # one dimension
    with pytest.raises(ValueError, match="weights"):
        batch_kernels.gather_bytes(boards[:, :8], weights, found.results, tables._VALUE_OF, out)
    with pytest.raises(ValueError, match="weights"):
        batch_kernels.gather_bytes(boards, weights, found.results[:100], tables._VALUE_OF, out)
    with pytest.raises(ValueError, match="out"):
        batch_kernels.gather_bytes(boards, weights, found.results, tables._VALUE_OF, out[:3])
    with pytest.raises(ValueError, match="out"):
        batch_kernels.narrow(boards, np.empty(35, dtype=np.int8))
    ranked = oracles["4x4"].batch_tables().ranked_values
    assert ranked is not None
    with pytest.raises(ValueError, match="words"):
        batch_kernels.values_by_rank(np.zeros(3, dtype=np.uint64), ranked.base, ranked.position, ranked.packed, out)
    with pytest.raises(TypeError, match="base"):
        batch_kernels.values_by_rank(np.zeros(8, dtype=np.uint64), ranked.position, ranked.base, ranked.packed, out)
    with pytest.raises(IndexError, match="packed"):  # tables that do not belong together
        empty = np.zeros(8, dtype=np.uint64)  # empty boards: rank 0 of a table too short to hold it
        batch_kernels.values_by_rank(empty, ranked.base, ranked.position, ranked.packed[:0], out)


@pytest.mark.parametrize("name", VARIANTS)
@pytest.mark.parametrize(
    ("row", "message"),
    [([3], r"row 70 has a value other than \+1, -1 or 0"), ([1, 1], r"row 70 \('XX\.+'\) is illegal")],
)
def test_a_board_at_fault_is_the_same_error_either_way(oracles, name, row, message):
    oracle = oracles[name]
    boards = np.zeros((100, oracle.variant.cells), dtype=np.int8)
    boards[70, : len(row)] = row
    for method in (oracle.value_batch, oracle.remoteness_batch):
        with pytest.raises(InvalidBoardError, match=message):
            method(boards)
        with pytest.raises(InvalidBoardError, match=message):
            numpy_path(method, boards)


@compiled
@pytest.mark.parametrize("name", VARIANTS)
def test_a_batch_of_one_board_takes_the_loops(oracles, name, monkeypatch):
    """No batch is too small: the extension loads with the package, in well under a millisecond."""
    oracle = oracles[name]
    called = []
    for loop in ("gather_bytes", "values_by_rank"):
        original = getattr(batch_kernels, loop)
        monkeypatch.setattr(batch_kernels, loop, lambda *args, original=original: called.append(1) or original(*args))
    empty = [[0] * oracle.variant.cells]
    assert oracle.value_batch(empty).tolist() == numpy_path(oracle.value_batch, empty).tolist()
    assert called == [1]


@pytest.mark.parametrize("asked", [compiled_loops.NUMPY, None])
def test_ttt_compiled_numpy_keeps_the_loops_off(asked):
    probe = "from ttt_solver.lookup import batch_kernels\nprint(batch_kernels.COMPILED, batch_kernels.BUILT)"
    env = {key: value for key, value in os.environ.items() if key != compiled_loops.VARIABLE}
    if asked is not None:
        env[compiled_loops.VARIABLE] = asked
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=env)
    used, built_there = done.stdout.split()
    assert built_there == str(batch_kernels.BUILT)
    assert used == str(asked is None and batch_kernels.BUILT)
