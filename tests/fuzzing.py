"""The Hypothesis settings of the fuzz suites (command line and Python API): many examples,
the same ones on every run, no deadline."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

EXAMPLES = 10_000
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,  # the same examples on every run
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
