"""The option types of the engine's places: a scheduler's address and the storage the workers
share. Only the commands that take them (``build``, ``verify``) import this module, so a lookup
leaves :mod:`ttt_solver.system.engine_places` unloaded.
"""

from __future__ import annotations

import re
from typing import Any

import click

from ..system.engine_places import address_problem, storage_problem
from .params import BadValue, Tidy


class Address(Tidy):
    """A scheduler's address: ``[scheme://]host:port`` (``tcp://10.0.0.1:8786``), of a scheme the
    engine connects over (:func:`ttt_solver.system.engine_places.address_problem`)."""

    name = "address"
    _FORM = r"(?:[a-z][a-z0-9+.-]*://)?[^\s/:]+:[0-9]{1,5}"  # compiled by re when first matched

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        text = str(value)
        if not re.fullmatch(self._FORM, text, re.IGNORECASE) or not 0 < int(text.rpartition(":")[2]) < 65536:
            raise BadValue(value, "expected [scheme://]host:port, e.g. tcp://10.0.0.1:8786", param, ctx)
        why = address_problem(text)
        if why is not None:
            raise BadValue(value, why, param, ctx)
        return text


class StorageRoot(Tidy):
    """A storage the workers share: a folder or an fsspec URL, not one that lives in one process
    (:func:`ttt_solver.system.engine_places.storage_problem`)."""

    name = "storage"
    path = True

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        why = storage_problem(str(value))
        if why is not None:
            raise BadValue(value, why, param, ctx)
        return str(value)
