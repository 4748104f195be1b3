"""What long runs share: progress bars on stderr, and a seed drawn for runs given none."""

from __future__ import annotations

import secrets
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click

from .stopping import raise_if_stopped


class Bars:
    """Progress bars on stderr, one per phase of a run, each shown from its phase's first progress.

    Shown lazily, so that bad input found before any work stays one ``Error:`` line. Without
    a terminal click prints only each bar's label.
    """

    def __init__(self) -> None:
        self._bar: Any = None
        self._label: str | None = None
        self._bar_for: Callable[[int], None] = lambda _n: None

    def phase(self, total: int, label: str) -> Callable[[int], None]:
        def advance(n: int) -> None:
            raise_if_stopped()
            if self._label != label:
                self.close()
                self._bar = click.progressbar(length=total, label=label, file=sys.stderr)
                self._bar.__enter__()
                self._label = label
            self._bar.update(n)

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
        from its first step, with the time left."""
        if self._label != label:
            self._bar_for = self.phase(total, label)
        self._bar_for(n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)
            self._bar = None


@contextmanager
def bars() -> Iterator[Bars]:
    found = Bars()
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
