"""The compiled loops, C extensions: the solver's and the batch lookups' (everything else is in
pyproject.toml).

Optional: where no C compiler is at hand the package installs without them, and the solver and
the batch lookups run their numpy paths (docs/performance.md).
"""

from setuptools import Extension, setup

SHARED = ["ttt_solver/buffers.h"]  # the arrays both take (a change rebuilds both)

setup(
    ext_modules=[
        Extension("ttt_solver.solver.kernels", ["ttt_solver/solver/kernels.c"], depends=SHARED, optional=True),
        Extension("ttt_solver.lookup.batch_loops", ["ttt_solver/lookup/batch_loops.c"], depends=SHARED, optional=True),
    ]
)
