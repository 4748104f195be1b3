"""One rule for whether the compiled loops run (the solver's passes and the batch lookups)."""

from __future__ import annotations

import pytest

from ttt_solver.system import compiled_loops


@pytest.mark.parametrize(
    ("asked", "work", "loaded", "wanted"),
    [
        ("numpy", 10**9, True, False),  # refused: never, however big or loaded
        ("compiled", 1, False, True),  # asked for: however small
        ("", 9, False, False),  # by default small work stays on numpy's until the loops are loaded
        ("", 9, True, True),
        ("", 10, False, True),  # and work of the least size loads them
    ],
)
def test_the_compiled_loops_run_where_asked_loaded_or_worth_loading(monkeypatch, asked, work, loaded, wanted):
    monkeypatch.setenv(compiled_loops.VARIABLE, asked)
    assert compiled_loops.wanted(work, 10, loaded) is wanted
