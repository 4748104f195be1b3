"""The optional extras, for the tests of each: its marker, the modules it brings, one skip reason.

A test that needs an extra carries its marker (``@pytest.mark.web``, or ``pytestmark`` for a
whole module); conftest adds ``extras`` to every such test and skips it, naming the extra, where
one of the extra's modules is missing. So, with only ``pip install -e '.[test]'``::

    pytest -m "not extras"        # the core's tests, the extras' left out by name

A module that imports an extra at its top skips through :func:`need` (before any test is
collected, so its marker cannot do it), with the same reason.
"""

from __future__ import annotations

from importlib.util import find_spec
from types import ModuleType

import pytest

# The modules whose absence means the extra is not installed (a few of each: finding is cheap).
EXTRA_MODULES = {
    "rl": ("gymnasium", "pettingzoo", "pygame"),
    "sb3": ("stable_baselines3", "sb3_contrib", "torch"),
    "openspiel": ("pyspiel",),
    "plot": ("matplotlib",),
    "web": ("fastapi", "uvicorn"),
    "postgres": ("psycopg",),
    "docs": ("mkdocs", "mkdocstrings", "mkdocs_click"),
    "dask": ("dask", "distributed"),
    "s3": ("s3fs", "moto"),
    "fast": ("isal",),
}
# Why the tests of the compiled loops (marker ``compiled``) skip: not an extra, the package's own
# C extension, built where a C compiler was at hand when it was installed.
NOT_BUILT = "needs the compiled loops: the C extension, built by pip install -e . where a C compiler is at hand"
# Tests that take one of these fixtures need the PostgreSQL extra (and a server: the fixture skips without one).
POSTGRES_FIXTURES = ("pg_cluster", "pg_url")


def reason(extra: str) -> str:
    return f"needs the [{extra}] extra: pip install -e '.[{extra}]'"


def missing(extra: str) -> list[str]:
    """The modules of ``extra`` that cannot be imported here."""
    return [module for module in EXTRA_MODULES[extra] if _absent(module)]


def _absent(module: str) -> bool:
    try:
        return find_spec(module) is None
    except ImportError:  # a finder that refuses the name (as test_packaging's, hiding the extras)
        return True


def need(extra: str, module: str) -> ModuleType:
    """``module`` of ``extra``, imported; else the calling test (or test module) is skipped, naming the extra."""
    __tracebackhide__ = True  # the skip is reported at the caller's line, as importorskip's own is
    return pytest.importorskip(module, reason=reason(extra))
