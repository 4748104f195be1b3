"""Gymnasium, imported once with an error that says how to get it."""

from __future__ import annotations

try:
    import gymnasium as gym
    from gymnasium import spaces
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "ttt_solver.envs needs Gymnasium, part of the [rl] extra: pip install 'ttt-solver[rl]'"
    ) from error

__all__ = ["gym", "spaces"]
