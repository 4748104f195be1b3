#!/usr/bin/env python3
"""Build the solved database: ``python build_db.py [--db PATH_OR_URL] [--variant V] [--force] [--quiet]``.

The same as ``ttt-lookup build``: one command line, one set of exit codes.
"""

import sys

from ttt_solver.cli import main

if __name__ == "__main__":
    main(["build", *sys.argv[1:]])
