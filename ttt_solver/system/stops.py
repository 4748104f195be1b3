"""Stop signals (Ctrl-C, SIGTERM, SIGHUP) held off while a block of code runs to its end.

The command line turns a stop signal into an exception raised wherever the program stands
(:mod:`ttt_solver.cli.stopping`). Raised inside SQLAlchemy's own bookkeeping (a connection
going back to its pool, being closed or rolled back) such an exception leaves it half done:
SQLAlchemy logs it with a traceback, and the next step fails on a closed connection. The
blocks that write a database therefore run inside :func:`stops_held`: a stop signal that comes
meanwhile is noted by the handler (:func:`noted_while_held`), and sent again as the block
ends, to whatever handles it then. A block of the main thread only: signal handlers run there.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_depth = [0]  # how many stops_held blocks the main thread is in
_noted: list[int] = []  # the stop signals that came meanwhile


def noted_while_held(signum: int) -> bool:
    """For a stop signal's handler: whether a block holds stops (the signal is then noted, to
    be sent again as the block ends, and the handler returns at once)."""
    if _depth[0]:
        _noted.append(signum)
        return True
    return False


@contextmanager
def stops_held() -> Iterator[None]:
    """Run the block to its end before a stop signal takes effect (on the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _depth[0] += 1
    try:
        yield
    finally:
        _depth[0] -= 1
        if not _depth[0] and _noted:
            signum = _noted[-1]
            _noted.clear()
            signal.raise_signal(signum)  # its handler runs now, as if it had just come
