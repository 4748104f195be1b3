"""What long runs share: progress bars on stderr, the lines of their stages, and a seed drawn
for runs given none.

A bar (tqdm's: the rate and the time left) is drawn only where someone watches it: on a
terminal, without ``--quiet``. The stage lines (``4x4: ply 16: 1,059 positions``) are what a
log or CI reads: on a terminal they are written above the bar, never into it.
"""

from __future__ import annotations

import os
import secrets
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click
from tqdm import tqdm

from .stopping import raise_if_stopped

# The bar: its phase, how far, the rate and the time left (tqdm's fields).
BAR_FORMAT = "{desc} {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt}, {rate_fmt}, {remaining} left"


class Bars:
    """Progress bars on stderr, one per phase of a run, each shown from its phase's first
    progress (so that bad input found before any work stays one ``Error:`` line), each named
    ``prefix`` + its phase, as the stage lines are (``4x4: merging``). Drawn only when ``shown``
    (see :func:`bars`); the lines :meth:`say` writes go above the bar."""

    def __init__(self, shown: bool = True, prefix: str = "") -> None:
        self.shown = shown
        self.prefix = prefix
        self._bar: tqdm[Any] | None = None
        self._label: str | None = None
        self._bar_for: Callable[[int], None] = lambda _n: None

    def phase(self, total: int, label: str) -> Callable[[int], None]:
        def advance(n: int) -> None:
            raise_if_stopped()
            if self._label == label:
                if self._bar is not None:
                    self._bar.update(n)
                return
            self.close()
            self._label = label
            if self.shown:
                # The first progress is the bar's start: done before the bar was drawn (the first
                # chunk, or what a resumed run found done), it is left out of the rate.
                sized = _columns() > 0  # a terminal of no size (a pty nobody sized): tqdm would draw nothing
                self._bar = tqdm(
                    total=total, initial=n, desc=self.prefix + label, unit="", unit_scale=True, file=sys.stderr,
                    leave=False, bar_format=BAR_FORMAT, dynamic_ncols=sized,
                    ncols=None if sized else 80, nrows=None if sized else 24,
                )  # fmt: skip

        return advance

    def sized(self, label: str) -> Callable[[int, int], None]:
        """A phase whose size comes with its first progress: ``advance(n, total)``."""
        advance: Callable[[int], None] | None = None

        def sized_advance(n: int, total: int) -> None:
            nonlocal advance
            if advance is None:
                advance = self.phase(total, label)
            advance(n)

        return sized_advance

    def step(self, label: str, n: int, total: int) -> None:
        """``n`` more units of the phase ``label`` (``total`` in all): a bar per phase, shown
        from its first step, with the rate and the time left."""
        if self._label != label:
            self._bar_for = self.phase(total, label)
        self._bar_for(n)

    def say(self, line: str) -> None:
        """A stage line on stderr, above the bar if one is drawn."""
        raise_if_stopped()
        if self._bar is not None:
            self._bar.write(line, file=sys.stderr)
        else:
            click.echo(line, err=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _columns() -> int:
    """The width of the terminal on stderr (0 if it says none)."""
    try:
        return os.get_terminal_size(sys.stderr.fileno()).columns
    except (OSError, ValueError):
        return 0


@contextmanager
def bars(quiet: bool = False, prefix: str = "") -> Iterator[Bars]:
    """Bars drawn on stderr if it is a terminal and not ``quiet``, named ``prefix`` + phase."""
    found = Bars(not quiet and sys.stderr.isatty(), prefix)
    try:
        yield found
    finally:
        found.close()


def quiet_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``-q/--quiet``: no progress lines on stderr (the command gets ``quiet``)."""
    return click.option("-q", "--quiet", is_flag=True, help="No progress lines on stderr.")(f)


def progress_lines(quiet: bool) -> Callable[[str], None] | None:
    """Where a long command's progress lines go: stderr (stdout stays clean for --json)."""
    if quiet:
        return None

    def say(line: str) -> None:
        raise_if_stopped()
        click.echo(line, err=True)

    return say


def draw_seed() -> int:
    """A seed for a run that was given none, from the operating system: printed, so it can be replayed."""

    return secrets.randbelow(2**32)


def seed_text(seed: int | None, drawn: bool) -> str | None:
    if seed is None:
        return None
    return f"seed {seed}, drawn: replay with --seed {seed}" if drawn else f"seed {seed}"
