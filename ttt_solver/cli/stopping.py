"""Stop signals: Ctrl-C, SIGTERM and SIGHUP stop a command (``Aborted!``, exit code 128 + the
signal), by an exception raised where the program stands: KeyboardInterrupt for Ctrl-C, as
Python's own handler raises, :class:`Terminated` for the others.

The handlers are installed by the commands that run long or write (:class:`StoppingCommand`:
build, verify, serve, play, compare, stats, ...) and by a lookup's first-use build, not by the
lookups (``analyze``, ``best``): they read a few rows and write nothing, so the default action of
SIGTERM, ending the process, loses nothing, and they never import :mod:`signal` (3% of
importing click).

Python ignores an exception raised inside a weakref callback or a ``__del__`` (it hands it to
``sys.unraisablehook``, which prints "Exception ignored in ..." and a traceback, and goes on),
and a signal's handler runs wherever the program is, inside those too. So a stop signal is also
remembered, the hook leaves its exception unprinted, and the places a long command passes
through again and again (its progress, a server before it serves) call :func:`raise_if_stopped`:
a stop signal never goes unheeded, and never prints a traceback. A block that writes a database
holds stops off until it ends (:func:`ttt_solver.system.stops.stops_held`).
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

from ..system.stops import noted_while_held, stops_held
from .terminated import Terminated

_received: list[int] = []  # the stop signals received while a command runs


def _stop(signum: int) -> KeyboardInterrupt | Terminated:
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)


def _raise_stop(signum: int, _frame: object) -> None:
    if noted_while_held(signum):
        return
    _received.append(signum)
    raise _stop(signum)


def raise_if_stopped() -> None:
    """KeyboardInterrupt or Terminated if a stop signal came while the command ran (its
    exception may have been raised where Python ignores exceptions)."""
    if _received:
        raise _stop(_received[-1])


# Ctrl-C, and the signals that stop a command as it does (SIGHUP: its terminal closed; not on Windows).
_STOPPING = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


class StoppingCommand(click.Command):
    """A command that runs long or writes: it runs inside :func:`terminate_as_interrupt`."""

    def invoke(self, ctx: click.Context) -> Any:
        with terminate_as_interrupt():
            return super().invoke(ctx)


@contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt, SIGTERM and SIGHUP :class:`Terminated`, while a command
    runs (signal handlers can be set only on the main thread; elsewhere they keep their defaults).
    Inside another such block (a first-use build inside ``play``) it leaves that block's handlers
    as they are."""
    if signal.getsignal(_STOPPING[0]) is _raise_stop:
        yield
        return
    _received.clear()
    try:
        previous = {signum: signal.signal(signum, _raise_stop) for signum in _STOPPING}
    except ValueError:  # not the main thread
        yield
        return
    hook = sys.unraisablehook

    def unprinted_when_stopping(unraisable: Any) -> None:
        if not isinstance(unraisable.exc_value, KeyboardInterrupt | Terminated):  # raised again
            hook(unraisable)

    sys.unraisablehook = unprinted_when_stopping
    try:
        yield
    finally:
        sys.unraisablehook = hook
        _restore(previous)


def _restore(previous: dict[int, Any]) -> None:
    """Put the handlers back, all of them: a stop that comes meanwhile is held (Python's
    ``signal.signal`` runs a pending handler first) and sent again to the handler put back. The
    system holds the signals too where it can: one that came between Python's check for
    pending signals and the new handler would otherwise be dropped ("Signal 15 ignored due to
    race condition")."""
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, previous) if hasattr(signal, "pthread_sigmask") else None
    with stops_held():
        try:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
        finally:
            if mask is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
