"""``python -m ttt_solver.cli``: the same as ``ttt-lookup``."""

from . import main

main()
