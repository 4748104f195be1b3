"""The agents' names, apart from the agents themselves: what the command line lists in its
help and completes on a TAB press without importing the players (or numpy)."""

from __future__ import annotations

PLAIN_AGENTS = ("random", "think1", "think2", "think3", "heuristic", "onestep")  # the agents that take no argument
AGENT_NAMES = (*PLAIN_AGENTS, "nstep:D", "minimax:D", "mc:N", "perfect", "perfect:P")
DEFAULT_AGENTS = (*PLAIN_AGENTS, "nstep:3", "minimax:3", "perfect:0.5", "perfect")
"""The entrants of a tournament when none are named (on misère: those that play it)."""
