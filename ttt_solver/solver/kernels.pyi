# The solver's compiled loops (kernels.c): what compiled.py calls, typed for mypy.
from typing import Any

def solve_ranks(
    ply: int,
    start: int,
    stop: int,
    boards: tuple[Any, ...],
    rules: tuple[Any, ...],
    moves: tuple[Any, ...],
    constants: tuple[int, ...],
    shape: tuple[int, ...],
    out: tuple[Any, ...],
    /,
) -> int: ...
def solve_found(
    high: Any,
    low: Any,
    terminal: Any,
    rules: tuple[Any, ...],
    moves: tuple[Any, ...],
    constants: tuple[int, ...],
    shape: tuple[int, ...],
    out: tuple[Any, ...],
    /,
) -> None: ...
def image_ranks(
    code: Any, symmetry: int, halves: tuple[Any, ...], offsets: Any, rank_low: Any, out: Any, /
) -> None: ...
def spread(code: Any, result: Any, halves: tuple[Any, ...], offsets: Any, rank_low: Any, out: Any, /) -> None: ...
def scatter(out: Any, ranks: Any, results: Any, /) -> None: ...
def pack_rows(
    code: Any,
    best: Any,
    best_shift: int,
    fields: tuple[Any, ...],
    shifts: Any,
    added: Any,
    out: Any,
    /,
) -> None: ...
