"""The one place that decides whether a missing database is built on first use.

Reading never builds (:meth:`ttt_solver.lookup.oracle.Oracle.load` only reads). Above the read
layer, a command that looks something up (``analyze``, ``best``, ``query``, ``stats``) and a
Python caller that wants a player (``PerfectAgent``, the environments, the OpenSpiel bot) ask
here: a missing default database of a small variant, up to :data:`FIRST_USE_CELLS` cells (4x4
builds in about 2 s), is built at once and the build is announced in one line (on stderr from
the command line, as a :class:`FirstUseBuild` warning in Python), with what it takes if its plan
says seconds (:data:`~ttt_solver.builder.plan.LONG_SECONDS`); any other is a
:class:`~ttt_solver.errors.DatabaseMissingError` naming the build command and its cost.

:func:`shared_oracle` also keeps one loaded oracle per database for the whole process, so that
every bot and environment shares one load (a 3x3 load costs 0.1-0.2 s, 3x4k3 as much).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable

from ..game.variant import STANDARD, Variant
from ..lookup.oracle import Oracle
from ..solver.solve import Steps, default_memory
from ..store import Target
from ..store.missing_database import missing_default
from ..store.paths import database_file
from .build import build
from .plan import LONG_SECONDS, make_plan, takes

FIRST_USE_CELLS = 16
"""The most cells of a variant built on first use (4x4: 1.2 million rows in about 2 s)."""


class FirstUseBuild(UserWarning):
    """A missing default database was built on first use."""


def default_database(
    variant: Variant = STANDARD, announce: Callable[[str], None] | None = None, steps: Steps | None = None
) -> str:
    """The variant's default database: built now if it is missing and the variant is small
    (``announce`` hears one line first; default: a :class:`FirstUseBuild` warning; ``steps``
    the build's work as it goes, as :func:`~.build.build` says), else a DatabaseMissingError
    naming the build command and what it takes."""
    path = database_file(variant)
    if os.path.exists(path):
        return path
    if variant.cells > FIRST_USE_CELLS:
        raise missing_default(variant, path)
    plan = make_plan(variant, os.path.dirname(path))
    cost = (
        f"first use: {takes(plan.cpu_seconds, plan.disk_bytes, default_memory())}"
        if plan.cpu_seconds >= LONG_SECONDS
        else "first use; a moment"
    )
    line = f"building the {variant.name} database at {path} ({cost})"
    if announce is None:
        warnings.warn(line, FirstUseBuild, stacklevel=2)
    else:
        announce(f"ttt-lookup: {line}")
    build(path, variant, steps=steps)
    return path


_SHARED: dict[tuple[str, str, bool], tuple[object, Oracle]] = {}


def shared_oracle(variant: Variant = STANDARD, db: str | os.PathLike[str] | None = None, eager: bool = True) -> Oracle:
    """An oracle of ``db`` (default: the variant's default database, see :func:`default_database`),
    loaded once per process and shared: loaded again only when the file has changed (rebuilt)."""
    spec = db if db is not None else default_database(variant, None)
    where = Target.parse(spec)
    key = (where.url, variant.name, eager)
    state = _file_state(where)
    found = _SHARED.get(key)
    if found is not None and found[0] == state:
        return found[1]
    oracle = Oracle.load(spec, variant, eager=eager)
    _SHARED[key] = (state, oracle)
    return oracle


def _file_state(where: Target) -> object:
    """What tells a rebuilt file from the one loaded (a server's database: its URL only)."""
    if where.file is None:
        return None
    try:
        found = os.stat(where.file)
    except OSError:
        return None
    return (found.st_ino, found.st_size, found.st_mtime_ns)
