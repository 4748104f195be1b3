"""Agents: the seeds' tic-tac-toe players and the database, behind one protocol.

``make_agent(spec)`` builds one from the name the command line takes:

=============  ==============================================================================
``random``     a uniformly random legal move
``think1``     seed 001 ``AI_think1``: take a win, else random
``think2``     seed 001 ``AI_think2``: take a win, else block, else random
``think3``     seed 001 ``AI_think3``: win, block, else the move winning most often in 3 plies
``heuristic``  seed 003 ``heuristic_ai``: win, block, middle, a corner, a side
``onestep``    seed 003 ``one_step_ai``: a win, else a block, else random (ties uniform)
``nstep:D``    seed 003 ``n_step_ai``: depth-D minimax, +-100 for a win (default D = 3)
``minimax:D``  seed 000 ``get_optimal_move``: depth-D minimax over window counts (default 3)
``mc:N``       seed 002 ``mc_move``: N random playouts (default 1000); sampled only
``perfect``    the database: keep the value, win fastest / lose slowest, ties uniform
``perfect:P``  perfect with probability P, else a uniformly random move
=============  ==============================================================================

Every agent has ``name``, ``enumerable`` and ``variant`` and ``choose(board, rng) -> cell``
with a ``numpy.random.Generator``; every one but ``mc:N``, which only samples, is a
:class:`PolicyAgent` (``enumerable``), with ``policy(board) -> {cell: p}`` too. Boards are normalised text of unfinished legal positions.

Variants: every agent plays every normal (k-in-a-row wins) variant, its rules read with k in a
row ("two" is k - 1, the heuristic's middle and corners are the board's). Misère, where making
the line loses, is played by the agents that score finished games by the rules: ``random``,
``nstep:D``, ``mc:N`` and ``perfect``/``perfect:P``. The others (``think1-3``, ``heuristic``,
``onestep``, ``minimax:D``) are built on "complete a line to win, block the opponent's", which
misère turns upside down, so they refuse it with InvalidAgentError.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from ...errors import InvalidAgentError
from ...game.variant import STANDARD, Variant, as_variant
from ..agent_names import AGENT_NAMES, PLAIN_AGENTS
from .base import Agent, Policy, PolicyAgent
from .heuristic import HeuristicAgent, OneStepAgent
from .minimax import MinimaxAgent
from .montecarlo import MonteCarloAgent
from .nstep import NStepAgent
from .perfect import PerfectAgent
from .random_agent import RandomAgent
from .think import ThinkAgent

N = TypeVar("N", int, float)

if TYPE_CHECKING:
    from ...lookup.oracle import Oracle

__all__ = ["AGENT_NAMES", "PLAIN_AGENTS", "Agent", "Policy", "PolicyAgent", "make_agent"]

_DEFAULT_ARGUMENT = {"nstep": "3", "minimax": "3", "mc": "1000", "perfect": "1"}
_MISERE_FAMILIES = ("random", "nstep", "mc", "perfect")  # the others' rules assume making a line wins


def make_agent(spec: str, oracle: Oracle | None = None, variant: Variant | str = STANDARD) -> Agent:
    """The agent named by ``spec`` (see the module docstring) playing ``variant`` (a Variant or
    its name); raise InvalidAgentError (InvalidVariantError for a bad variant)."""
    variant = as_variant(variant)
    if not isinstance(spec, str):
        raise _invalid(spec, "expected a name such as 'random' or 'nstep:3'")
    family, colon, argument = spec.strip().lower().partition(":")
    if family not in _DEFAULT_ARGUMENT:
        if colon or family not in PLAIN_AGENTS:
            raise _invalid(spec, "unknown agent" if family not in PLAIN_AGENTS else f"{family!r} takes no argument")
    elif not colon:
        argument = _DEFAULT_ARGUMENT[family]
    if variant.misere and family not in _MISERE_FAMILIES:
        raise InvalidAgentError(
            f"agent {spec!r} does not play {variant.name}: its rules make {variant.k} in a row, which loses there;"
            " on misère use random, nstep:D, mc:N or perfect"
        )
    try:
        return _build(family, argument, oracle, variant)
    except ValueError as error:  # a bad number: say which and why
        raise _invalid(spec, str(error)) from None


def _build(family: str, argument: str, oracle: Oracle | None, variant: Variant) -> Agent:
    if family == "random":
        return RandomAgent(variant)
    if family.startswith("think"):
        return ThinkAgent(int(family[-1]), variant)
    if family in ("heuristic", "onestep"):
        return HeuristicAgent(variant) if family == "heuristic" else OneStepAgent(variant)
    if family == "perfect":
        return PerfectAgent(_number(float, argument, "perfect probability"), oracle, variant)
    number = _number(int, argument, f"{family} {'trials' if family == 'mc' else 'depth'}")
    if family == "nstep":
        return NStepAgent(number, variant)
    if family == "minimax":
        return MinimaxAgent(number, variant)

    return MonteCarloAgent(number, variant)


def _number(kind: Callable[[str], N], text: str, what: str) -> N:
    try:
        return kind(text)
    except ValueError:
        expected = "a number from 0 to 1" if kind is float else "a positive integer"
        raise ValueError(f"{what} must be {expected}, got {text!r}") from None


def _invalid(spec: object, reason: str) -> InvalidAgentError:
    return InvalidAgentError(f"invalid agent {spec!r}: {reason}; valid agents: {', '.join(AGENT_NAMES)}")
