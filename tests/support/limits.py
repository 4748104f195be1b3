"""A Python command line run under a resource limit (``resource.setrlimit``): a small launcher
sets the limit, then becomes the command (``os.execv``). No ``preexec_fn``: it is unsafe in a
process with threads, as a test process with a Dask client or a server is."""

from __future__ import annotations

import sys

_LAUNCH = (
    "import os, resource, sys; limit = int(sys.argv[2]);"
    " resource.setrlimit(getattr(resource, sys.argv[1]), (limit, limit));"
    " os.execv(sys.executable, [sys.executable, *sys.argv[3:]])"
)


def limited(name: str, limit: int, *args: str) -> list[str]:
    """A command line running Python with ``args`` under the limit ``name`` (``RLIMIT_AS``,
    ``RLIMIT_FSIZE``, ...) of ``limit`` (bytes)."""
    return [sys.executable, "-c", _LAUNCH, name, str(limit), *args]
