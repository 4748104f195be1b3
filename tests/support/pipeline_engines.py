"""The tier pipeline as tests drive it: an engine that counts the tasks it runs, and the tiers
cut into more ranges than a process's engine would cut them."""

from __future__ import annotations

import pytest

from ttt_solver.engine import InProcess, pipeline
from ttt_solver.engine.shuffle import range_bounds


class Counting(InProcess):
    """This process's engine, counting the tasks it runs by function."""

    def __init__(self) -> None:
        self.ran: dict[str, int] = {}

    def run(self, function, calls, name, done=None):  # type: ignore[no-untyped-def]
        self.ran[function.__name__] = self.ran.get(function.__name__, 0) + len(calls)
        return super().run(function, calls, name, done)


def cut_into(monkeypatch: pytest.MonkeyPatch, least: int) -> None:
    """The pipeline's tiers cut into ``least`` ranges at least (where they are that wide)."""

    def bounds(size: int, memory: int, _least: int) -> list[int]:
        return range_bounds(size, memory, least)

    monkeypatch.setattr(pipeline, "range_bounds", bounds)
