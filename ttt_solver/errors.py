"""The one exception hierarchy of ttt-solver.

Every error the library raises on purpose is a :class:`TTTError`, so callers (and the
command line, which turns them into one ``Error: ...`` line) can catch them in one place.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

SHOWN_LENGTH = 60  # characters of a bad value that a message quotes at most


class TTTError(Exception):
    """Base class of every error ttt-solver raises on purpose."""


class InvalidBoardError(TTTError, ValueError):
    """A board (text, array or move list) that cannot arise in a real game."""


class GameOverError(TTTError, ValueError):
    """A move was asked of a finished game."""


class InvalidVariantError(TTTError, ValueError):
    """A variant name or geometry that ttt-solver does not support."""


class InvalidTargetError(TTTError, ValueError):
    """A ``--db`` argument that names no usable database location."""


class DatabaseError(TTTError):
    """The solved-game database is missing, foreign or corrupt, or cannot be read now.

    A message about the database itself says how to rebuild it; one about what is around it (a
    server out of reach, SQLite's temporary files) says what to put right instead.
    """


class DatabaseMissingError(DatabaseError):
    """There is no database where one was looked for, and nothing builds it unasked.

    The message names the command that builds it and what that build takes."""


class BuildError(TTTError):
    """The database could not be built at the requested target."""


class EngineError(TTTError):
    """A distributed engine that a build or a verify cannot use: its scheduler out of reach, or
    its storage (``--storage``) one that a file cannot be written to, read back from and
    removed from, or that hands back less than was written."""


class VerifyError(TTTError):
    """A verify that could not run to its end, so the database is neither proved nor found
    wrong: its temporary folder cannot be written (a full disk); the message names the folder."""


class InvalidBudgetError(TTTError, ValueError):
    """A memory budget below the smallest a build of the variant can keep, or above the machine's memory."""


class MachineTooSmallError(TTTError, ValueError):
    """A build that this machine cannot hold alone (its memory or its free disk); ``plan`` is
    the build's plan (:class:`ttt_solver.builder.plan.Plan`), for the command line to show."""

    def __init__(self, message: str, plan: Any) -> None:
        super().__init__(message)
        self.plan = plan


class CacheError(TTTError):
    """The cache folder (memory-mapped arrays kept per database content) cannot be read or
    removed; the message names the folder and why."""


class NotEnoughMemoryError(TTTError, MemoryError):
    """The process ran out of memory, or of address space under a limit such as ``ulimit -v``
    (a MemoryError too, so code that catches MemoryError still catches it; see
    :mod:`ttt_solver.system.memory`)."""


class InvalidAgentError(TTTError, ValueError):
    """An agent spec (``random``, ``nstep:3``, ``perfect:0.5``, ...) that names no agent."""


class NotEnumerableError(TTTError, ValueError):
    """An exact computation needs an agent's move distribution, and it has none (e.g. ``mc:N``)."""


class NotFeasibleError(TTTError, ValueError):
    """An exact computation over more positions than is reasonable (4x4 has 9.7 million); sample instead."""


class InvalidStatementError(TTTError, ValueError):
    """SQL of the user's that the database refuses: a statement that would write (every
    connection only reads), a syntax error, a table that is not there. The database is not at
    fault."""


class MissingExtraError(TTTError, ImportError):
    """An optional dependency is not installed; the message names the extra to install."""


def shown(value: object) -> str:
    """A bad value as every message quotes it: its ``repr``, cut to :data:`SHOWN_LENGTH`
    characters (a pasted page or a damaged file can hold anything)."""
    text = repr(value)
    return text if len(text) <= SHOWN_LENGTH else text[: SHOWN_LENGTH - 3] + "..."


def install_hint(extra: str, packages: str) -> str:
    """A command that installs an optional dependency wherever the user stands.

    ttt-solver is not on PyPI, so installing it by name with an extra fails: name the
    packages themselves, and the extra for a source checkout.
    """
    return f"pip install {packages} (or, in a source checkout, pip install -e '.[{extra}]')"


class InvalidArgumentError(TTTError, TypeError):
    """An argument of the wrong kind, such as an ``rng`` that is neither a ``random.Random``
    nor a ``numpy.random.Generator``."""


def raised_from(error: BaseException | None) -> Iterator[BaseException]:
    """``error``, then what it was raised from, and so on (its ``__cause__``, else its
    ``__context__`` unless suppressed), each once."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        yield error
        error = error.__cause__ if error.__cause__ is not None or error.__suppress_context__ else error.__context__
