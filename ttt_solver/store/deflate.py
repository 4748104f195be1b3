"""The compressor of the packed arrays' parts (:func:`.content.pack_pieces`): ISA-L's deflate
(the ``isal`` package, in the ``[fast]`` extra) where it is installed, else zlib's.

Both write the zlib format at their fastest level, and zlib reads either back
(:func:`.content.unpack_pieces`): the blobs differ, never the arrays they hold, so neither the
digest nor a reader does. ISA-L's costs about a seventh of zlib's CPU and packs smaller
(3x6k4's arrays: 0.17 s and 22 MB, against 1.1 s and 30 MB): with zlib's, the compression was a
third of what a build adds to SQLite's inserts (``docs/performance.md``).
"""

from __future__ import annotations

from typing import Any

from ..system.fast_zlib import ZLIB

LEVEL = 1  # the fastest level that compresses: ISA-L's 0 packs larger, zlib's 0 stores
LIBRARY = ZLIB  # the module whose compressobj packs: isal.isal_zlib or zlib


def compressor() -> Any:
    """A new compressor of :data:`LIBRARY` (``compress`` and ``flush``, as zlib's)."""
    return LIBRARY.compressobj(LEVEL)
