"""Counts over the database, checked against every real board the oracle knows."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pytest

from ttt_solver.game import codec
from ttt_solver.game.variant import STANDARD
from ttt_solver.lookup.oracle import Oracle
from ttt_solver.lookup.stats import Counts, Stats, compute, load_stats
from ttt_solver.solver.solve import solve_tables
from ttt_solver.store.arrays import Arrays

OUTCOME = {1: "win", 0: "draw", -1: "loss"}


@pytest.fixture(scope="module")
def stats(db_path):
    return load_stats(db_path)


@pytest.fixture(scope="module")
def real(db_path):
    """Every legal board with its answer."""
    return Oracle.load(db_path).all_positions()


def test_orbit_weighted_counts_equal_counts_over_real_boards(stats, real):
    assert stats.boards.total == len(real) == 5478
    assert stats.boards.by_value == dict(Counter(OUTCOME[p.value] for p in real.values()))
    assert stats.boards.by_remoteness == dict(Counter(p.remoteness for p in real.values()))


def test_canonical_counts(stats):
    assert stats.canonical.total == 765
    assert stats.canonical.by_value == {"win": 390, "draw": 151, "loss": 224}
    assert sum(stats.canonical.by_remoteness.values()) == 765


def test_published_facts(stats):
    assert stats.boards.by_value == {"win": 2836, "draw": 1068, "loss": 1574}
    assert stats.boards.by_remoteness[0] == 958  # finished games
    assert stats.boards.by_remoteness[9] == 1  # only the empty board lasts 9 plies


def test_longest_forced_win(stats, real):
    win = stats.longest_win
    assert win is not None
    wins = [p for p in real.values() if p.value == 1]
    assert win.remoteness == max(p.remoteness for p in wins) == 5
    assert win.boards == sum(p.remoteness == 5 for p in wins) == 122
    assert win.canonical == 18
    # the example: a canonical row of the lowest ply, then the smallest board text
    best = min(
        (board.count(".") * -1, board)
        for board, p in real.items()
        if p.value == 1 and p.remoteness == 5 and codec.canonical_text(board, STANDARD) == board
    )
    assert win.example == best[1] and real[win.example].value == 1 and real[win.example].remoteness == 5


def test_to_dict_shape(stats):
    data = stats.to_dict()
    assert list(data) == ["variant", "boards", "canonical", "longest_win"]
    assert list(data["boards"]) == ["total", "by_value", "by_remoteness"]
    assert list(data["boards"]["by_remoteness"]) == [str(r) for r in range(10)]


def test_compute_from_solved_tables_matches_load(stats):
    assert compute(Arrays.from_tables(solve_tables(STANDARD))) == stats


def test_no_win_gives_no_longest_win():
    one = [np.array([v], dtype=d) for v, d in ((0, np.int8), (9, np.int8), (1, np.uint16), (1, np.int8))]
    counts = [np.array([0], dtype=np.uint8), np.array([1], dtype=np.uint8), np.array([0], dtype=np.uint8)]
    found = compute(Arrays(STANDARD, np.array([codec.offset(9)]), *one, *counts))
    assert found.longest_win is None
    assert "longest forced win: none" in found.report()


def test_counts_add():
    counts = Counts()
    counts.add(1, 3, 8)
    counts.add(-1, 0, 1)
    assert (counts.total, counts.by_value, counts.by_remoteness) == (9, {"win": 8, "draw": 0, "loss": 1}, {3: 8, 0: 1})


@pytest.mark.parametrize("scale", [1, 1_000, 10_000_000])
def test_report_columns_line_up_with_their_headers(scale):
    """Each count ends under the last letter of its header, however wide the numbers (4x5's
    9,722,011 boards were one column right of 'boards')."""
    boards, canonical = Counts(), Counts()
    boards.add(1, 1, 7 * scale)
    boards.add(0, 0, 3)
    canonical.add(1, 1, scale)
    canonical.add(0, 0, 1)
    text = Stats("4x5", boards, canonical, None).report()
    lines = text.splitlines()
    header = next(line for line in lines if "boards" in line and "canonical" in line)
    rows = [line for line in lines[lines.index(header) + 1 :] if line.strip() and not line.startswith("longest")]
    assert len(rows) == 1 + 3 + 2  # positions, win/draw/loss, two remoteness rows
    ends = [header.index("boards") + len("boards"), len(header)]
    for row in rows:
        assert [match.end() for match in re.finditer(r"\S+", row)][-2:] == ends, (header, row)
    assert rows[0].split() == ["positions", f"{7 * scale + 3:,}", f"{scale + 1:,}"]  # with separators
