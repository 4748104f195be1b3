"""The Hypothesis settings of the fuzz suites (command line and Python API): many examples,
the same ones on every run, no deadline; ``@FUZZ`` also marks the test ``fuzz`` (a long run,
started first so that parallel workers finish together; ``-m "not fuzz"`` leaves them out)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

EXAMPLES = int(os.environ.get("TTT_FUZZ_EXAMPLES", "5000"))  # more for a longer campaign
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,  # the same examples on every run
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def FUZZ(test: Callable[..., Any]) -> Any:
    """The fuzz settings and the ``fuzz`` marker, on a ``@given`` test."""
    return pytest.mark.fuzz(SETTINGS(test))
