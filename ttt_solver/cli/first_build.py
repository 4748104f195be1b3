"""The command line's first-use build: a lookup of a small variant whose default database is
missing builds it (:mod:`ttt_solver.builder.first_use` decides), saying first what it takes, and
draws the progress bar ``ttt-lookup build`` draws (:mod:`.progress`: on a terminal only). A stop
signal stops it as it stops ``build`` (:mod:`.stopping`: the lookups install no handlers)."""

from __future__ import annotations

from ..builder.first_use import default_database
from ..game.variant import Variant
from .progress import bars
from .stopping import terminate_as_interrupt


def built_default(variant: Variant) -> str:
    """The variant's default database, built now if it is missing (see the module docstring)."""
    with terminate_as_interrupt(), bars(prefix=f"{variant}: ") as shown:
        return default_database(variant, announce=shown.say, steps=shown.step)
