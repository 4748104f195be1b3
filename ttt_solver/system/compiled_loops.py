"""Whether the compiled loops run: the solver's passes (:mod:`ttt_solver.solver.compiled`) and the
batch lookups' (:mod:`ttt_solver.lookup.batch_kernels`), C extension modules built with the
package where a C compiler was at hand (``setup.py``).

Where they were built they run; where not, numpy's whole-array steps do the same work. The
environment variable :data:`VARIABLE` set to ``numpy`` asks for numpy's even where they were
built (``compiled``, or nothing, for the compiled ones wherever they were built). The solver
reads it at each pass, so a test builds both ways in one process (and the Dask workers it starts
inherit it); the batch lookups read it once, as their loops are first imported.
"""

from __future__ import annotations

import os
from importlib.machinery import PathFinder
from importlib.util import find_spec

VARIABLE = "TTT_COMPILED"
NUMPY, COMPILED = "numpy", "compiled"
SOLVER_LOOPS = "ttt_solver.solver.kernels"  # the solver's extension module


def asked() -> str | None:
    """What the environment asks for: :data:`NUMPY`, :data:`COMPILED`, or None (the default)."""
    value = os.environ.get(VARIABLE, "").strip().lower()
    return value if value in (NUMPY, COMPILED) else None


def wanted() -> bool:
    """Whether the compiled loops run where they were built: numpy's are not asked for."""
    return asked() != NUMPY


def installed() -> bool:
    """Whether a build's passes will be the compiled ones: the solver's extension module was
    built (found, not imported, nor its package: the cost model asks on the command line's
    lookup path, which imports no numpy) and numpy's are not asked for."""
    if not wanted():
        return False
    package = SOLVER_LOOPS.rpartition(".")[0]
    try:
        folder = find_spec(package)
    except ImportError:  # a finder that hides it (as the tests' do) says so by raising
        return False
    return folder is not None and PathFinder.find_spec(SOLVER_LOOPS, folder.submodule_search_locations) is not None
