"""Stop signals: Ctrl-C, SIGTERM and SIGHUP stop a command (``Aborted!``, exit code 128 + the
signal), by an exception raised where the program stands: KeyboardInterrupt for Ctrl-C, as
Python's own handler raises, :class:`Terminated` for the others.

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

from ..system.stops import noted_while_held, stops_held


class Terminated(BaseException):
    """SIGTERM or SIGHUP, raised where the program stands: it unwinds as Ctrl-C's
    KeyboardInterrupt does, so a build removes its temporary file instead of vanishing mid-write.
    Not a KeyboardInterrupt: click would answer that with the blank line that ends a terminal's ^C."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


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


@contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt, SIGTERM and SIGHUP :class:`Terminated`, while a command
    runs (signal handlers can be set only on the main thread; elsewhere they keep their defaults)."""
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
