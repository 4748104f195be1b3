"""The solver: every position of a variant solved by retrograde analysis over tiers of
positions (see :mod:`.tiers` and :mod:`.passes`), the budgets that size its chunks and the
in-memory tables (:mod:`.solve`), and the memoised negamax kept as the independent reference
(:mod:`.reference`, imported by name: nothing here uses it).

What other packages use is exported here; they import these names from ``ttt_solver.solver``.
"""

from ..system.cost_model import BYTES_PER_BOARD, MAX_CHUNK, MIN_CHUNK
from .passes import (
    COLUMNS,
    ROW_BYTES,
    STORED_COLUMNS,
    STORED_ROW_BYTES,
    Positions,
    Solved,
    StoredRows,
    images,
    new_tier,
    pack_rows,
    positions,
    scatter,
    solve_chunk,
    spread,
    spread_results,
)
from .solve import (
    SOLVER_VERSION,
    Note,
    Steps,
    Tables,
    chunk_boards,
    default_memory,
    smallest_memory,
    smallest_task_memory,
    solve_tables,
    task_boards,
    task_chunks,
    tier_solved,
)
from .tiers import Tiers, tiers

__all__ = [
    "BYTES_PER_BOARD", "COLUMNS", "MAX_CHUNK", "MIN_CHUNK", "ROW_BYTES", "SOLVER_VERSION", "STORED_COLUMNS",
    "STORED_ROW_BYTES", "Note", "Positions", "Solved", "Steps", "StoredRows", "Tables", "Tiers", "chunk_boards",
    "default_memory", "images", "new_tier", "pack_rows", "positions", "scatter", "smallest_memory", "smallest_task_memory",
    "solve_chunk", "solve_tables", "spread", "spread_results", "task_boards", "task_chunks", "tier_solved", "tiers",
]  # fmt: skip
