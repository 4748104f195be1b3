"""``python -m ttt_solver``: the ``ttt-lookup`` command line."""

from .cli import main

main(prog_name="python -m ttt_solver")
