#!/usr/bin/env python3
"""Build the solved tic-tac-toe database: ``python build_db.py [--db PATH_OR_URL] [--variant V] [--force] [--quiet]``."""

import sys

from ttt_solver.build import main

if __name__ == "__main__":
    sys.exit(main())
