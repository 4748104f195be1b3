"""Reinforcement-learning environments with the solved game as the opponent (the ``[rl]`` extra).

- :class:`TicTacToeEnv` (:mod:`.single`): a Gymnasium environment, registered as
  ``ttt_solver/TicTacToe-v0`` when this package is imported, and each variant of
  ``VARIANTS`` as ``ttt_solver/TicTacToe-<variant>-v0`` (``ttt_solver/TicTacToe-4x4-v0``,
  ``ttt_solver/TicTacToe-3x3-misere-v0``, ...); any other variant is ``variant=...``.
- :class:`VectorTicTacToe` (:mod:`.vector`): N games stepped together in numpy, Gymnasium's
  vector API; also ``gymnasium.make_vec("ttt_solver/TicTacToe-v0", num_envs=N)``.
- :class:`PerfectPolicy` (:mod:`.pettingzoo_policy`): a perfect player for PettingZoo's
  ``tictactoe_v3`` (needs numpy only).

``import ttt_solver`` never imports this package, so the core does not need the extra.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ..game.variant import NAMED_VARIANTS, Variant

ENV_ID = "ttt_solver/TicTacToe-v0"
# Variants registered under their own ids (any other: gymnasium.make(ENV_ID, variant="3x4")).
VARIANTS = NAMED_VARIANTS
_VECTOR_CELLS = 12  # VectorTicTacToe's dense tables cover boards of up to 12 cells


def variant_id(variant: str) -> str:
    """The registered id of a variant: ``ttt_solver/TicTacToe-4x4-v0``."""
    return f"ttt_solver/TicTacToe-{variant}-v0"


_LAZY = {
    "TicTacToeEnv": "single",
    "VectorTicTacToe": "vector",
    "PerfectPolicy": "pettingzoo_policy",
    "PZ_TO_CELL": "pettingzoo_policy",
    "board_from_observation": "pettingzoo_policy",
}

__all__ = [
    "ENV_ID",
    "PZ_TO_CELL",
    "VARIANTS",
    "PerfectPolicy",
    "TicTacToeEnv",
    "VectorTicTacToe",
    "board_from_observation",
    "variant_id",
]

if TYPE_CHECKING:
    from .pettingzoo_policy import PZ_TO_CELL, PerfectPolicy, board_from_observation
    from .single import TicTacToeEnv
    from .vector import VectorTicTacToe


def _register() -> None:
    try:
        # Imported here, not at the top: gymnasium is the optional [rl] extra.
        from gymnasium.envs.registration import register, registry
    except ImportError:  # PerfectPolicy works without Gymnasium
        return

    ids = {ENV_ID: "3x3", **{variant_id(name): name for name in VARIANTS}}
    for env_id, name in ids.items():
        if env_id in registry:
            continue
        small = Variant.parse(name).cells <= _VECTOR_CELLS  # bigger boards: make_vec falls back to SyncVectorEnv
        register(
            id=env_id,
            entry_point="ttt_solver.envs.single:TicTacToeEnv",
            vector_entry_point="ttt_solver.envs.vector:VectorTicTacToe" if small else None,
            kwargs={} if env_id == ENV_ID else {"variant": name},
        )


_register()


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ttt_solver.envs' has no attribute {name!r}")
    return getattr(import_module(f".{module}", __name__), name)
