"""The exception a stop signal (SIGTERM, SIGHUP) raises in a command that stops cleanly.

Apart from the handlers that raise it (:mod:`.stopping`, which imports :mod:`signal`), so that
the command line can end any command it stopped with ``Aborted!`` and 128 + the signal, while a
lookup, which installs no handlers, never imports :mod:`signal`.
"""

from __future__ import annotations


class Terminated(BaseException):
    """SIGTERM or SIGHUP, raised where the program stands: it unwinds as Ctrl-C's
    KeyboardInterrupt does, so a build removes its temporary file instead of vanishing mid-write.
    Not a KeyboardInterrupt: click would answer that with the blank line that ends a terminal's ^C."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum
