"""The order the tests run in: the long runs first, dealt out to the head of every xdist worker's share.

``--dist worksteal`` gives each of its n workers one contiguous share of the collected list at the
start (in order, the length left over the workers left), and a worker that runs dry takes the second
half of the longest queue left. Sorted to the head of the whole list, the long runs all fell in the
first worker's share, and the last of them were taken late by the others (on a loaded machine,
the namespace test started 21 minutes into a run of 34 and ended it). Dealt in turn to the head of each share, every worker
starts with its part of them, and what an idle worker takes from a queue's end is short. The long
runs of one module stay together, so that a module's fixture (the namespace test's five hosts) is
set up once.
"""

from __future__ import annotations

import pytest

LONG_RUNS = ("sdist", "fuzz", "long")  # started first, in this order


def rank(item: pytest.Item) -> int:
    """0 for the sdist runs, 1 for the fuzz runs, 2 for the other long ones, 3 for the rest."""
    return next((i for i, name in enumerate(LONG_RUNS) if item.get_closest_marker(name)), len(LONG_RUNS))


def shares(count: int, workers: int) -> list[int]:
    """The length of each worker's first share of ``count`` tests, as worksteal deals them."""
    sizes = []
    for left in range(workers, 0, -1):
        sizes.append((count - sum(sizes)) // left)
    return sizes


def ordered(items: list[pytest.Item], workers: int) -> list[pytest.Item]:
    """``items`` with the long runs first (a stable sort), and with ``workers`` > 1, the long runs
    of each module dealt in turn to the heads of the workers' shares, each share then filled up
    with the short tests in order."""
    ranked = sorted(items, key=rank)
    if workers <= 1:
        return ranked
    modules: dict[str, list[pytest.Item]] = {}
    for item in ranked:
        if rank(item) < len(LONG_RUNS):
            modules.setdefault(item.nodeid.split("::")[0], []).append(item)
    heads: list[list[pytest.Item]] = [[] for _ in range(workers)]
    for turn, module in enumerate(modules.values()):
        heads[turn % workers] += module
    short = ranked[sum(map(len, heads)) :]
    found: list[pytest.Item] = []
    for worker, size in enumerate(shares(len(items), workers)):
        head = sorted(heads[worker], key=rank)
        taken = max(0, size - len(head))
        found += head + short[:taken]
        short = short[taken:]
    return found + short
