"""The error a read raises when the default database is missing: the exact command that builds
it, and what that takes (:func:`ttt_solver.system.cost_model.estimate`, the one cost model).

Reading never builds (:mod:`ttt_solver.builder.first_use` decides what is built on first use).
"""

from __future__ import annotations

import os

from ..errors import DatabaseMissingError
from ..game.variant import STANDARD, Variant
from ..system.cost_model import estimate, fits_one_machine
from .paths import database_file


def build_command(variant: Variant) -> str:
    """The command that builds ``variant``'s default database (on a cluster, where this
    machine cannot hold the build alone)."""
    command = "ttt-lookup build" if variant == STANDARD else f"ttt-lookup build --variant {variant.name}"
    return command if fits_one_machine(variant) else f"{command} --engine dask"


def missing_default(variant: Variant) -> DatabaseMissingError:
    """The error for a variant whose default database is not built yet."""
    return DatabaseMissingError(
        f"no {variant.name} database at {database_file(variant)!r}; build it with: {build_command(variant)}"
        f" ({estimate(variant)})"
    )


def existing_default(variant: Variant) -> str:
    """The variant's default database, or a DatabaseMissingError if it is not built."""
    path = database_file(variant)
    if not os.path.exists(path):
        raise missing_default(variant)
    return path
