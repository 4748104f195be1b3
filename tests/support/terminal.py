"""Progress bars as a terminal gets them, for tests that run a command in-process (CliRunner's
stderr is no terminal, so :func:`ttt_solver.cli.progress.bars` draws none there)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ttt_solver.cli.progress import Bars


@contextmanager
def drawn_bars(quiet: bool = False, prefix: str = "") -> Iterator[Bars]:
    """:func:`ttt_solver.cli.progress.bars` as if stderr were a terminal."""
    found = Bars(not quiet, prefix)
    try:
        yield found
    finally:
        found.close()
