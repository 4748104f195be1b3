"""A round robin of agents, and each agent's accuracy against the database.

Accuracy is measured on every unfinished legal position (4,520 on 3x3), whoever's turn it
is: the share of positions where the agent's move keeps the game-theoretic value, expected
over its move distribution, split by the side to move and the position's value (+1 / 0 / -1
for the side to move). A move's *drop* is the value it throws away (position value minus move
value: 1 for a win to a draw or a draw to a loss, 2 for a win to a loss); the worst blunders
are the positions with the largest expected drop. Agents that only sample (``mc:N``) are
measured from ``samples`` drawn moves per position instead.

Where every position is too many (the variants where exact play is not feasible, see
:mod:`ttt_solver.players.arena`: 4x4 has 9.7 million), accuracy is estimated on distinct unfinished
positions drawn uniformly at random (:func:`sample_positions`, reproducible from the seed), the
same sample for every agent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from math import comb
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InvalidAgentError, NotEnumerableError, NotFeasibleError
from ..game import rules
from ..game.variant import Variant, position_bound
from .agent_names import DEFAULT_AGENTS
from .agents import Agent, PolicyAgent, make_agent
from .arena import Comparison, Seed, check_exact, compare_exact, compare_sampled, exact_feasible
from .record import Record

if TYPE_CHECKING:
    from ..lookup.oracle import Oracle

DEFAULT_POSITIONS = 1000  # positions sampled for accuracy where every position is too many
_POSITIONS_STREAM = 0x7070  # spawn key of the random stream that draws the sampled positions
_PROGRESS_STEP = 64  # positions measured between two progress reports


@dataclass(frozen=True)
class Group(Record):
    side: str  # the agent's side: the side to move
    value: int  # the position's value for the side to move
    positions: int
    keep: float  # expected share of these positions where the agent keeps the value


@dataclass(frozen=True)
class Blunder(Record):
    board: str
    value: int  # of the position, for the side to move
    keep: float  # probability that the agent keeps the value here
    drop: float  # expected value thrown away
    moves: tuple[tuple[int, float, int], ...]  # (cell, probability, value after it) of the moves that drop

    def to_dict(self) -> dict[str, Any]:
        moves = [{"cell": cell, "probability": p, "value": value} for cell, p, value in self.moves]
        return {**super().to_dict(), "moves": moves}


@dataclass(frozen=True)
class Accuracy(Record):
    agent: str
    positions: int
    keep: float  # expected share of all positions where the agent keeps the value
    blundering: int  # positions where it throws the value away with positive probability
    groups: tuple[Group, ...]
    blunders: tuple[Blunder, ...]  # worst first
    samples: int | None  # moves drawn per position; None when exact
    positions_sampled: bool = False  # measured on a uniform random sample of positions, not all of them

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "blunders": [b.to_dict() for b in self.blunders]}


@dataclass(frozen=True)
class Standing(Record):
    agent: str
    wins: float  # mean share over its opponents, both seats
    draws: float
    losses: float

    @property
    def score(self) -> float:
        return self.wins + self.draws / 2

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "score": self.score}


@dataclass(frozen=True)
class Tournament:
    agents: tuple[str, ...]
    exact: bool
    games: int | None
    pairs: tuple[Comparison, ...]
    accuracy: tuple[Accuracy, ...]

    def shares(self, agent: str, other: str) -> tuple[float, float, float]:
        """``agent``'s (wins, draws, losses) against ``other`` as shares of their games."""
        for pair in self.pairs:
            if {pair.a, pair.b} == {agent, other}:
                total = pair.total
                won, drawn, lost = (
                    (total.a_wins, total.draws, total.b_wins)
                    if pair.a == agent
                    else (total.b_wins, total.draws, total.a_wins)
                )
                n = 1 if self.exact else pair.games
                return won / n, drawn / n, lost / n  # type: ignore[operator]
        raise KeyError(f"no game between {agent!r} and {other!r}")

    def standings(self) -> list[Standing]:
        """Every agent's mean result over its opponents, best score first."""
        rows = []
        for agent in self.agents:
            results = [self.shares(agent, other) for other in self.agents if other != agent]
            n = len(results) or 1
            rows.append(Standing(agent, *(sum(r[i] for r in results) / n for i in range(3))))
        return sorted(rows, key=lambda s: -s.score)

    def to_dict(self) -> dict[str, Any]:
        return {
            "agents": list(self.agents),
            "exact": self.exact,
            "games": self.games,
            "standings": [s.to_dict() for s in self.standings()],
            "pairs": [p.to_dict() for p in self.pairs],
            "accuracy": [a.to_dict() for a in self.accuracy],
        }


def default_agents(variant: Variant) -> tuple[str, ...]:
    """The specs of :data:`DEFAULT_AGENTS` that play ``variant`` (on misère: not the rule players)."""
    playing = []
    for spec in DEFAULT_AGENTS:
        try:
            make_agent(spec, None, variant)  # cheap: perfect loads its oracle only when it moves
        except InvalidAgentError:
            continue
        playing.append(spec)
    return tuple(playing)


def round_robin(
    agents: Sequence[Agent],
    games: int = 1000,
    seed: Seed = None,
    exact: bool = False,
    progress: Callable[[int], Any] | None = None,
) -> tuple[Comparison, ...]:
    """Every pair once (each seat half the time): exact, or ``games`` sampled games per pair.

    Sampled pairs draw from independent streams spawned from ``seed``, so a run is reproducible.
    ``progress(n)``: after n more sampled games, or after each exact pair (n = 1).
    """
    check_entrants(agents)
    pairs = [(a, b) for i, a in enumerate(agents) for b in agents[i + 1 :]]
    if exact:
        check_exact(agents[0].variant)
        for agent in agents:  # fail before any work, not at the first pair that needs the agent
            if not agent.enumerable:
                raise NotEnumerableError(
                    f"agent {agent.name!r} cannot be enumerated (it only samples moves), so there is no exact"
                    " round robin with it; run it sampled"
                )
        results = []
        for a, b in pairs:
            results.append(compare_exact(a, b))
            if progress is not None:
                progress(1)
        return tuple(results)

    root = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    seeds = root.spawn(len(pairs))
    return tuple(compare_sampled(a, b, games, s, progress) for (a, b), s in zip(pairs, seeds))


def accuracy(
    agent: Agent,
    oracle: Oracle,
    blunders: int = 5,
    samples: int = 1,
    seed: Seed = None,
    boards: Sequence[str] | None = None,
    progress: Callable[[int], Any] | None = None,
) -> Accuracy:
    """How often ``agent`` keeps the value (see the module docstring): over every unfinished
    position, or over ``boards`` (e.g. from :func:`sample_positions`), then marked sampled.
    ``progress(n)`` as n more positions are measured."""

    if oracle.variant != agent.variant:
        raise ValueError(f"the oracle solves {oracle.variant}, agent {agent.name!r} plays {agent.variant}")
    if not isinstance(samples, int) or samples < 1:
        raise ValueError(f"samples must be a positive integer, got {samples!r}")
    if boards is None and not exact_feasible(agent.variant):
        raise NotFeasibleError(
            f"accuracy over every position of {agent.variant.name} is not feasible (up to"
            f" {position_bound(agent.variant.cells):,} of them); measure it on sample_positions(...)"
        )
    rng = None if isinstance(agent, PolicyAgent) else np.random.default_rng(seed)  # for an agent that only samples
    groups: dict[tuple[str, int], list[float]] = {}
    found: list[tuple[float, int, str, Blunder]] = []
    for done, board in enumerate(unfinished_boards(agent.variant) if boards is None else boards, 1):
        if progress is not None and done % _PROGRESS_STEP == 0:
            progress(_PROGRESS_STEP)
        position = oracle.probe(board)
        values = {move.cell: move.value for move in position.moves}
        policy = agent.policy(board) if isinstance(agent, PolicyAgent) else _sampled_policy(agent, board, samples, rng)
        keep = sum(p for cell, p in policy.items() if values[cell] == position.value)
        groups.setdefault((rules.to_move(board), position.value), []).append(keep)
        drop = sum(p * (position.value - values[cell]) for cell, p in policy.items())
        if drop > 1e-12:
            moves = tuple(
                sorted((cell, p, values[cell]) for cell, p in policy.items() if values[cell] < position.value)
            )
            found.append((-drop, rules.ply(board), board, Blunder(board, position.value, keep, drop, moves)))
    found.sort(key=lambda item: item[:3])
    every = [keep for keeps in groups.values() for keep in keeps]
    if progress is not None:
        progress(len(every) % _PROGRESS_STEP)
    return Accuracy(
        agent.name,
        len(every),
        sum(every) / len(every),
        len(found),
        tuple(
            Group(side, value, len(groups[side, value]), sum(groups[side, value]) / len(groups[side, value]))
            for side in (rules.X, rules.O)
            for value in (1, 0, -1)
            if (side, value) in groups
        ),
        tuple(item[3] for item in found[:blunders]),
        None if rng is None else samples,
        boards is not None,
    )


def run(
    agents: Sequence[Agent],
    oracle: Oracle,
    games: int = 1000,
    seed: Seed = None,
    exact: bool = False,
    progress: Callable[[int], Any] | None = None,
    blunders: int = 5,
    samples: int = 1,
    positions: int | None = None,
    accuracy_progress: Callable[[int, int], Any] | None = None,
) -> Tournament:
    """The round robin and every agent's accuracy: over every unfinished position, or over
    ``positions`` of them drawn at random (by default :data:`DEFAULT_POSITIONS` where every
    position is too many). ``progress`` follows the round robin (see :func:`round_robin`),
    ``accuracy_progress(n, total)`` the accuracy: n more of the ``total`` (agent, position)
    pairs measured."""
    if positions is not None and (not isinstance(positions, int) or positions < 1):
        raise ValueError(f"positions must be a positive integer, got {positions!r}")
    boards = None
    if positions is not None or not exact_feasible(oracle.variant):
        boards = sample_positions(oracle.variant, positions or DEFAULT_POSITIONS, seed)
    pairs = round_robin(agents, games, seed, exact, progress)
    total = len(agents) * len(unfinished_boards(oracle.variant) if boards is None else boards)

    def measured(n: int) -> None:
        if accuracy_progress is not None:
            accuracy_progress(n, total)

    scores = [accuracy(agent, oracle, blunders, samples, seed, boards, measured) for agent in agents]
    return Tournament(tuple(a.name for a in agents), exact, None if exact else games, pairs, tuple(scores))


def sample_positions(variant: Variant, count: int, seed: Seed = None) -> tuple[str, ...]:
    """``count`` distinct unfinished legal positions drawn uniformly at random, in order of ply
    (all of them if there are no more than ``count``), reproducible from ``seed``.

    Rejection sampling: a board with legal piece counts drawn uniformly (its number of marks
    weighted by how many such boards there are), kept if it is a legal unfinished position not
    drawn before. A sample of more than a twentieth of those boards is drawn from the list of
    every position instead (there must be a feasible number of them).
    """

    if not isinstance(count, int) or count < 1:
        raise ValueError(f"count must be a positive integer, got {count!r}")
    base = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    rng = np.random.default_rng(np.random.SeedSequence(base.entropy, spawn_key=(*base.spawn_key, _POSITIONS_STREAM)))
    sparse = position_bound(variant.cells) // 20
    if count > sparse:
        if not exact_feasible(variant):
            raise NotFeasibleError(
                f"a sample of {count:,} positions of {variant.name} is too big: draw at most {sparse:,}"
            )
        every = unfinished_boards(variant)
        if count >= len(every):
            return every
        return tuple(every[i] for i in sorted(rng.choice(len(every), count, replace=False).tolist()))
    return _rejection_sample(variant, count, rng)


def _rejection_sample(variant: Variant, count: int, rng: Any) -> tuple[str, ...]:
    n = variant.cells
    weights = [comb(n, ply) * comb(ply, ply // 2) for ply in range(n + 1)]
    chances = [w / sum(weights) for w in weights]
    found: dict[str, None] = {}
    for _attempt in range(1000 * count):
        ply = int(rng.choice(n + 1, p=chances))
        cells = rng.permutation(n)[:ply].tolist()
        marks = [rules.EMPTY] * n
        for i, cell in enumerate(cells):
            marks[cell] = rules.X if i < (ply + 1) // 2 else rules.O
        board = "".join(marks)
        if rules.legality_error(board, variant) is None and rules.terminal_value(board, variant) is None:
            found[board] = None
            if len(found) == count:
                return tuple(sorted(found, key=rules.ply))
    raise NotFeasibleError(f"could not draw {count:,} distinct unfinished positions of {variant.name}; ask for fewer")


@cache
def unfinished_boards(variant: Variant) -> tuple[str, ...]:
    """Every legal board where the game goes on, in order of ply."""
    return tuple(board for board in rules.all_boards(variant) if rules.terminal_value(board, variant) is None)


def _sampled_policy(agent: Agent, board: str, samples: int, rng: Any) -> dict[int, float]:
    counts: dict[int, float] = {}
    for _ in range(samples):
        cell = agent.choose(board, rng)
        counts[cell] = counts.get(cell, 0.0) + 1.0 / samples
    return counts


def check_entrants(agents: Sequence[Agent]) -> None:
    """InvalidAgentError unless there are at least two agents, each once (before any work)."""
    names = [agent.name for agent in agents]
    if len(agents) < 2:
        raise InvalidAgentError(f"a round robin needs at least two agents, got {names}")
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise InvalidAgentError(f"each agent may play once in a round robin; repeated: {', '.join(duplicates)}")
