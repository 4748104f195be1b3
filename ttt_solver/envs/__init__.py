"""Reinforcement-learning environments with the solved game as the opponent (the ``[rl]`` extra).

- :class:`TicTacToeEnv` (:mod:`.single`): a Gymnasium environment, registered as
  ``ttt_solver/TicTacToe-v0`` when this package is imported.
- :class:`VectorTicTacToe` (:mod:`.vector`): N games stepped together in numpy, Gymnasium's
  vector API; also ``gymnasium.make_vec("ttt_solver/TicTacToe-v0", num_envs=N)``.
- :class:`PerfectPolicy` (:mod:`.pettingzoo_policy`): a perfect player for PettingZoo's
  ``tictactoe_v3`` (needs numpy only).

``import ttt_solver`` never imports this package, so the core does not need the extra.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

ENV_ID = "ttt_solver/TicTacToe-v0"

_LAZY = {
    "TicTacToeEnv": "single",
    "VectorTicTacToe": "vector",
    "PerfectPolicy": "pettingzoo_policy",
    "PZ_TO_CELL": "pettingzoo_policy",
    "board_from_observation": "pettingzoo_policy",
}

__all__ = ["ENV_ID", "PZ_TO_CELL", "PerfectPolicy", "TicTacToeEnv", "VectorTicTacToe", "board_from_observation"]

if TYPE_CHECKING:
    from .pettingzoo_policy import PZ_TO_CELL, PerfectPolicy, board_from_observation
    from .single import TicTacToeEnv
    from .vector import VectorTicTacToe


def _register() -> None:
    try:
        from gymnasium.envs.registration import register, registry
    except ImportError:  # PerfectPolicy works without Gymnasium
        return
    if ENV_ID not in registry:
        register(
            id=ENV_ID,
            entry_point="ttt_solver.envs.single:TicTacToeEnv",
            vector_entry_point="ttt_solver.envs.vector:VectorTicTacToe",
        )


_register()


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ttt_solver.envs' has no attribute {name!r}")
    return getattr(import_module(f".{module}", __name__), name)
