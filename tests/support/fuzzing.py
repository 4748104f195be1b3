"""The Hypothesis settings of the fuzz suites (command line and Python API): many examples,
the same ones on every run, no deadline; ``@FUZZ`` also marks the test ``fuzz`` (a long run,
started first so that parallel workers finish together; ``-m "not fuzz"`` leaves them out)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# 2,000 a run by default: each example costs about the same, so the count is the CPU (the command
# line's run: 14 s of CPU at 2,000, 31 s at 5,000). Traced, the 2,000 (with the explicit examples
# of the tests, which run on every count) reach 6,093 of the 6,099 branches of ttt_solver/ that
# 5,000 reach on the command line (2 of the 6: a build writing into the checkout's data/, which the
# test's data folder now prevents) and 1,267 of 1,269 in the Python API. TTT_FUZZ_EXAMPLES=5000 (or
# 100000) for a longer campaign (docs/reliability.md).
EXAMPLES = int(os.environ.get("TTT_FUZZ_EXAMPLES", "2000"))
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
