"""Whether the compiled loops run: the solver's passes (:mod:`ttt_solver.solver.compiled`) and the
batch lookups' (:mod:`ttt_solver.lookup.batch_kernels`), both numba's, the ``[fast]`` extra.

Where numba imports they run (the solver's from its first big tier on); where it does not,
numpy's whole-array steps do the same work. The environment variable :data:`VARIABLE` chooses for
both: ``numpy`` for numpy's even where numba is installed, ``compiled`` for the compiled loops
wherever they can run, however small the work. The solver reads it at each pass, so a test builds
both ways in one process (and the Dask workers it starts inherit it); the batch lookups read it
once, as their loops are first imported.
"""

from __future__ import annotations

import os
from importlib.util import find_spec

VARIABLE = "TTT_COMPILED"
NUMPY, COMPILED = "numpy", "compiled"


def asked() -> str | None:
    """What the environment asks for: :data:`NUMPY`, :data:`COMPILED`, or None (the default)."""
    value = os.environ.get(VARIABLE, "").strip().lower()
    return value if value in (NUMPY, COMPILED) else None


def wanted(work: int, least: int, loaded: bool) -> bool:
    """Whether work of ``work`` items (a tier's boards, a batch's) runs the compiled loops: asked
    for, or not refused and either already ``loaded`` in this process or at least ``least`` items
    (below that, loading numba, about half a second and 150 MB, costs more than it saves)."""
    chosen = asked()
    if chosen == NUMPY:
        return False
    return chosen == COMPILED or loaded or work >= least


def installed() -> bool:
    """Whether a build's passes will be the compiled ones: numba is installed (found, not
    imported: the cost model asks on the command line's lookup path) and not refused."""
    if asked() == NUMPY:
        return False
    try:
        return find_spec("numba") is not None
    except ImportError:  # a finder that hides it (as the tests' do) says so by raising
        return False
