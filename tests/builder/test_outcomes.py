"""The legal boards by value a build reports, counted from its canonical rows in one pass:
each row weighted by its orbit, the same as counting row by row."""

from __future__ import annotations

from collections.abc import Callable

from ttt_solver.builder.merge import count_outcomes
from ttt_solver.solver import Tables


def test_outcomes_weigh_each_row_by_its_orbit(solved: Callable[[str], Tables]):
    for name in ("3x3", "3x4k3", "4x4k3"):
        rows = solved(name).solved
        by_value = {1: 0, 0: 0, -1: 0}
        for value, orbit in zip(rows.value.tolist(), rows.orbit.tolist()):
            by_value[value] += orbit
        found = count_outcomes([rows])
        assert found == {"win": by_value[1], "draw": by_value[0], "loss": by_value[-1]}
    assert sum(count_outcomes([solved("3x3").solved]).values()) == 5478  # tic-tac-toe's legal boards
