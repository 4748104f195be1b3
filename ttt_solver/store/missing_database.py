"""The error a read raises when the default database is missing: the exact command that builds
it, and what that takes (:func:`ttt_solver.system.cost_model.estimate`, the one cost model).

Reading never builds (:mod:`ttt_solver.builder.first_use` decides what is built on first use).
A read imports this only when the database is missing (:func:`.paths.existing_default`).
"""

from __future__ import annotations

from ..errors import DatabaseMissingError
from ..game.variant import STANDARD, Variant
from ..system.cost_model import estimate, fits_one_machine


def build_command(variant: Variant) -> str:
    """The command that builds ``variant``'s default database (on a cluster, where this
    machine cannot hold the build alone)."""
    command = "ttt-lookup build" if variant == STANDARD else f"ttt-lookup build --variant {variant.name}"
    return command if fits_one_machine(variant) else f"{command} --engine dask"


def missing_default(variant: Variant, path: str) -> DatabaseMissingError:
    """The error for a variant whose default database (at ``path``) is not built yet."""
    return DatabaseMissingError(
        f"no {variant.name} database at {path!r}; build it with: {build_command(variant)} ({estimate(variant)})"
    )
