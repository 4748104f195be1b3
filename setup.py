"""The solver's compiled loops, a C extension (everything else is in pyproject.toml).

Optional: where no C compiler is at hand the package installs without it, and the solver runs
its numpy passes (docs/performance.md).
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("ttt_solver.solver.kernels", ["ttt_solver/solver/kernels.c"], optional=True)])
