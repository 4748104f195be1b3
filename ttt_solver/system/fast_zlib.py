"""zlib's functions, by ISA-L where the ``[fast]`` extra installs it (``isal.isal_zlib``: the same
formats and the same CRC-32 values, several times faster), else by zlib itself.

Two users: the CRC-32 of every file the tier pipeline exchanges and records
(:mod:`ttt_solver.solver.checksums`: about 23 GB/s against zlib's 4 here), and the compression
of the packed arrays (:mod:`ttt_solver.store.deflate`: a seventh of zlib's CPU). zlib reads back
what either writes, so neither a digest nor a reader depends on which one is installed.
"""

from __future__ import annotations

import zlib
from importlib import import_module
from types import ModuleType


def _library() -> ModuleType:
    try:
        return import_module("isal.isal_zlib")  # by name: its stubs are not zlib's, its functions are
    except ImportError:  # without the [fast] extra
        return zlib


ZLIB = _library()  # isal.isal_zlib or zlib
