"""The compiled batch loops (ttt_solver/lookup/batch_kernels.py) answer as the numpy path does:
random legal boards (finished ones included) of 3x3, 3x4k3 and 4x4 (a byte a code, and two
bits a board by rank), any integer dtype or layout, and the same error for a board at fault. Where numba
is not installed the same loops run as plain Python on small batches; ``TTT_COMPILED=numpy`` keeps
numba out."""

from __future__ import annotations

import importlib.util
import os
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


@pytest.fixture(scope="module", autouse=True)
def compiled_however_small():
    """The batches here are small: asked for, the compiled loops answer them (by default a
    batch under tables.LOAD_BATCH boards stays on numpy's until the loops are loaded)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(compiled_loops.VARIABLE, compiled_loops.COMPILED)
        yield


@pytest.fixture(scope="module")
def oracles(variant_db) -> dict[str, Oracle]:
    return {name: Oracle.load(variant_db(name), name) for name in VARIANTS}


def numpy_path(call, *args):
    """``call(*args)`` with the compiled loops switched off, as where numba is not installed."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tables.BatchTables, "_compiled_lookup", lambda *_args: False)
        return call(*args)


def played(variant: Variant, moves: list[int]) -> list[int]:
    """The board (+1/-1/0) after playing each move's cell among those still free, until over."""
    board = "." * variant.cells
    for move in moves:
        free = rules.legal_moves(board, variant)
        if not free:
            break
        board = rules.play(board, free[move % len(free)], variant)
    return rules.to_array(board)


games = st.lists(st.lists(st.integers(0, 24), max_size=16), min_size=1, max_size=60)


@pytest.mark.skipif(not batch_kernels.COMPILED, reason="numba is not installed (the fast extra)")
@given(name=st.sampled_from(VARIANTS), moves=games)
def test_the_compiled_loops_answer_random_legal_boards_as_numpy_does(oracles, name, moves):
    oracle = oracles[name]
    boards = np.array([played(oracle.variant, game) for game in moves], dtype=np.int8)
    for method in (oracle.value_batch, oracle.remoteness_batch):
        expected = numpy_path(method, boards)
        assert np.array_equal(method(boards), expected)
        assert np.array_equal(method(boards.astype(np.int64)), expected)
        assert np.array_equal(method(np.asfortranarray(boards)), expected)


def words(boards: np.ndarray) -> np.ndarray:
    """16-cell int8 boards as the 64-bit words values_by_rank reads, two a board."""
    return np.ascontiguousarray(boards, dtype=np.int8).reshape(-1).view(np.uint64)


def values_by_rank(found: tables.BatchTables, boards: np.ndarray, out: np.ndarray) -> bool:
    assert found.ranked_values is not None
    ranked = found.ranked_values
    return batch_kernels.values_by_rank(words(boards), ranked.base, ranked.position, ranked.packed, out)


@pytest.mark.parametrize("name", VARIANTS)
def test_the_loops_read_the_tables_as_numpy_does(oracles, name):
    """The loops themselves (compiled or not) against the numpy path, a board at fault included."""
    oracle = oracles[name]
    found = oracle.batch_tables()
    boards = np.array([played(oracle.variant, [seed * 7, seed, 3 * seed]) for seed in range(40)], dtype=np.int8)
    weights = array_rules.geometry(oracle.variant).weights
    out = np.empty(len(boards), dtype=np.int8)
    if found.ranked_values is not None:
        assert values_by_rank(found, boards, out)
    else:
        assert batch_kernels.gather_bytes(boards, weights, found.results, tables._VALUE_OF, out)
    assert np.array_equal(out, numpy_path(oracle.value_batch, boards))
    assert batch_kernels.gather_bytes(boards, weights, found.results, tables._REMOTENESS_OF, out)
    assert np.array_equal(out, numpy_path(oracle.remoteness_batch, boards))
    for bad in (2, -2, 127):
        faulty = boards.copy()
        faulty[-1, 0] = bad
        assert not batch_kernels.gather_bytes(faulty, weights, found.results, tables._VALUE_OF, out)
    illegal = boards.copy()
    illegal[-1] = 1  # all X
    assert not batch_kernels.gather_bytes(illegal, weights, found.results, tables._VALUE_OF, out)
    if found.ranked_values is not None:
        assert not values_by_rank(found, illegal, out)


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


@pytest.mark.parametrize("cell", [0, 7, 8, 15])
def test_the_16_cell_loop_finds_every_byte_at_fault(oracles, cell):
    """Each byte other than +1, -1 or 0, at either end of either word, stops the loop."""
    found = oracles["4x4"].batch_tables()
    board = np.zeros((1, 16), dtype=np.int8)
    out = np.empty(1, dtype=np.int8)
    assert values_by_rank(found, board, out)
    for bad in sorted(set(range(-128, 128)) - {-1, 0, 1}):
        board[0, cell] = bad
        assert not values_by_rank(found, board, out), bad


def test_4x4_batches_of_any_layout_take_the_words_loop_or_a_copy(oracles):
    """Misaligned int8 rows and wider integers are copied into int8 first; a value that int8
    would wrap (257 -> 1) is the error the numpy path names."""
    oracle = oracles["4x4"]
    boards = np.array([played(oracle.variant, [seed, 2 * seed, 5]) for seed in range(50)], dtype=np.int8)
    expected = numpy_path(oracle.value_batch, boards)
    misaligned = np.zeros(boards.size + 1, dtype=np.int8)[1:].reshape(boards.shape)
    misaligned[:] = boards
    assert np.array_equal(oracle.value_batch(misaligned), expected)
    wide = boards.astype(np.int64)
    assert np.array_equal(oracle.value_batch(wide), expected)
    wide[30, 4] = 257
    with pytest.raises(InvalidBoardError, match=r"row 30 has a value other than \+1, -1 or 0: .*257"):
        oracle.value_batch(wide)


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


def test_ttt_compiled_numpy_keeps_numba_out():
    probe = (
        "import sys\nimport numpy as np\nfrom ttt_solver.lookup import batch_kernels\n"
        "print(batch_kernels.COMPILED, 'numba' in sys.modules)"
    )
    env = {**os.environ, "TTT_COMPILED": "numpy"}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=env)
    assert done.stdout.split() == ["False", "False"]


def test_a_small_batch_stays_on_numpy_until_the_loops_are_loaded(oracles):
    """Loading numba (about half a second) costs more than a small batch saves."""
    probe = (
        "import sys\nfrom ttt_solver.lookup import tables\nfrom ttt_solver import Oracle\n"
        f"oracle = Oracle.load({str(oracles['3x3'].location)!r}, eager=True)\n"
        "oracle.value_batch([[0] * 9] * 10)\nsmall = 'numba' in sys.modules\n"
        "oracle.value_batch([[0] * 9] * tables.LOAD_BATCH)\nprint(small, 'numba' in sys.modules)"
    )
    env = {key: value for key, value in os.environ.items() if key != compiled_loops.VARIABLE}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=env)
    # The child runs without TTT_COMPILED, so a big batch loads numba wherever it is installed
    # (this process's choice, batch_kernels.COMPILED, may be numpy's: TTT_COMPILED=numpy).
    assert done.stdout.split() == ["False", str(importlib.util.find_spec("numba") is not None)]
