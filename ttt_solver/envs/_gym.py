"""Gymnasium, imported once with an error that says how to get it."""

from __future__ import annotations

from ..errors import install_hint

try:
    import gymnasium as gym
    from gymnasium import spaces
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        f"ttt_solver.envs needs Gymnasium, part of the [rl] extra: {install_hint('rl', 'gymnasium')}"
    ) from error

__all__ = ["gym", "spaces"]
