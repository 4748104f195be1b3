"""Agents against each other: ``compare`` and ``tournament``.

The agents, games and accuracy live in the library (:mod:`ttt_solver.players.agents`,
:mod:`ttt_solver.players.arena`, :mod:`ttt_solver.players.tournament`), imported inside the commands. Sampled
runs and exact tournaments show progress bars on stderr, so stdout stays clean for ``--json``;
a sampled run without ``--seed`` draws one and reports it, so that any run can be repeated. ``--exact`` on a
variant too big to walk (see :func:`ttt_solver.players.arena.exact_feasible`) fails at once, before
any database is read.
"""

from __future__ import annotations

# Imported in the commands, not at the top: numpy and SQLAlchemy stay off every command that does not need them (--help imports each command module to list it).
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import click

from ..charts.tournament_chart import draw, require
from ..game import rules
from ..game.variant import Variant, position_bound
from ..players.agent_names import DEFAULT_AGENTS
from . import complete
from .bounded_params import SEED, Whole
from .options import CLIError, chart_option, database_options, load_oracle, require_plot
from .output import echo_json, output_options, table
from .progress import bars, draw_seed, seed_text
from .stopping import StoppingCommand

if TYPE_CHECKING:
    from ..players.arena import Comparison
    from ..players.tournament import Tournament

_VALUE = {1: "win", 0: "draw", -1: "loss"}
_LETTER = {1: "W", 0: "D", -1: "L"}
_GROUPS = [(side, value) for side in ("X", "O") for value in (1, 0)]  # accuracy's columns: side, value
MAX_GAMES = 10_000_000  # sampled games a run may ask for (minutes at most)


def _sampling_options(f: Any) -> Any:
    f = click.option(
        "--exact", is_flag=True, help="Exact probabilities by recursion over the game tree (no sampling)."
    )(f)
    f = click.option("--seed", type=SEED, help="Seed the sampled games, for repeatable results.")(f)
    return click.option(
        "--games",
        type=Whole(1, MAX_GAMES),
        default=1000,
        show_default=True,
        help="Games to sample (per pair in a tournament).",
    )(f)


@click.command(cls=StoppingCommand)
@click.argument("a", metavar="A", shell_complete=complete.agent)
@click.argument("b", metavar="B", shell_complete=complete.agent)
@_sampling_options
@database_options
@output_options("json")
def compare(
    a: str, b: str, games: int, seed: int | None, exact: bool, variant: Variant, db: str | None, fmt: str
) -> None:
    """Play agent A against agent B, A taking X in half of the games.

    Agents: random, think1, think2, think3, heuristic, onestep, nstep:D, minimax:D, mc:N,
    perfect, perfect:P.

    \b
    Example:
        ttt-lookup compare think1 random --games 1000 --seed 1
        ttt-lookup compare think3 think2 --exact --json
    """
    from ..players.arena import compare_exact, compare_sampled

    _check_sampling_flags(exact, variant)
    agent_a, agent_b = _agents([a, b], db, variant, need_oracle=False)
    drawn = not exact and seed is None
    seed = draw_seed() if drawn else seed
    with bars() as shown:
        if exact:
            walked = shown.phase(2 * position_bound(variant.cells), f"{a} vs {b}, exact")
            result = compare_exact(agent_a, agent_b, walked)
        else:
            result = compare_sampled(agent_a, agent_b, games, seed, shown.phase(games, f"{a} vs {b}"))
    if fmt == "json":
        echo_json({**result.to_dict(), "seed": seed})
    else:
        click.echo(_describe_comparison(result, seed_text(seed, drawn)))


@click.command(cls=StoppingCommand)
@click.option(
    "--agents",
    "specs",
    metavar="LIST",
    shell_complete=complete.agent_list,
    help=f"Comma-separated agents [default: {', '.join(DEFAULT_AGENTS)}; on misère those that play it].",
)
@_sampling_options
@click.option(
    "--positions",
    type=Whole(min=1),
    metavar="N",
    help="Measure accuracy on N unfinished positions drawn at random (seeded by --seed)"
    " [default: all of them where feasible, else 1,000].",
)
@chart_option("a chart")
@database_options
@output_options("json")
def tournament(
    specs: str | None,
    games: int,
    seed: int | None,
    exact: bool,
    positions: int | None,
    plot_path: str | None,
    variant: Variant,
    db: str | None,
    fmt: str,
) -> None:
    """A round robin of agents, and each agent's accuracy against the database.

    Every pair plays (both seats equally); every agent's moves are checked on every unfinished
    legal position (a random sample of them on big variants such as 4x4) for how often they
    keep the game-theoretic value, with its worst blunders.

    \b
    Example:
        ttt-lookup tournament --exact
        ttt-lookup tournament --agents think1,think2,think3,mc:200 --games 500 --seed 1
        ttt-lookup tournament --exact --json --plot tournament.png
        ttt-lookup tournament --variant 4x4 --agents random,think2,perfect --games 100 --seed 1
    """
    from ..players.tournament import check_entrants, default_agents, run

    _check_sampling_flags(exact, variant)
    names = [
        spec.strip()
        for spec in (specs if specs is not None else ",".join(default_agents(variant))).split(",")
        if spec.strip()
    ]
    if plot_path is not None:
        require_plot(require)
    oracle, agents = _agents(names, db, variant, need_oracle=True, check=check_entrants)
    drawn = not exact and seed is None
    seed = draw_seed() if drawn else seed
    n = len(agents)
    pairs = n * (n - 1) // 2
    with bars() as shown:
        measured = shown.sized(f"accuracy of {n} agents")
        if exact:
            result = run(
                agents,
                oracle,
                exact=True,
                progress=shown.phase(pairs, f"{n} agents, exact"),
                accuracy_progress=measured,
            )
        else:
            played = shown.phase(games * pairs, f"{n} agents, {games:,} games a pair")
            result = run(agents, oracle, games, seed, progress=played, positions=positions, accuracy_progress=measured)
    if plot_path is not None:
        require_plot(lambda: draw(result, plot_path, seed))
    if fmt == "json":
        echo_json({**result.to_dict(), "seed": seed})
    else:
        click.echo(_describe_tournament(result, seed_text(seed, drawn)))
        if plot_path is not None:
            click.echo(f"\nchart written to {plot_path}")


# -- helpers ------------------------------------------------------------------------------
def _check_sampling_flags(exact: bool, variant: Variant) -> None:
    """``--exact`` takes no sampling option, and only variants small enough to walk."""
    from ..players.arena import EXACT_LIMIT, exact_feasible

    ctx = click.get_current_context()
    if exact:
        given = [
            f"--{name}"
            for name in ("games", "seed", "positions")
            if name in ctx.params and ctx.get_parameter_source(name) not in (None, click.core.ParameterSource.DEFAULT)
        ]
        if given:
            them, apply = ("them", "apply") if len(given) > 1 else ("it", "applies")
            raise CLIError(f"{' and '.join(given)} only {apply} to sampled runs; drop {them} or --exact")
        if not exact_feasible(variant):
            raise CLIError(
                f"--exact is not feasible for {variant.name}: up to {position_bound(variant.cells):,} positions"
                f" to walk (exact runs go up to {EXACT_LIMIT:,}); sample instead with --games N"
            )


def _agents(
    specs: Sequence[str],
    db: str | None,
    variant: Variant,
    need_oracle: bool,
    check: Callable[[Any], None] | None = None,
) -> Any:
    """The agents (every spec, and ``check`` of them all, checked before any database is read),
    with the oracle if needed."""
    from ..players.agents import make_agent

    agents = [make_agent(spec, None, variant) for spec in specs]
    if check is not None:
        check(agents)
    oracle = None
    if need_oracle or any(agent.name.startswith("perfect") for agent in agents):
        oracle = load_oracle(db, variant, many=True)
        agents = [make_agent(spec, oracle, variant) for spec in specs]
    return (oracle, agents) if need_oracle else agents


class _TwoDecimals(float):
    """A number that prints with two decimals (and stays a number, so tables right-align it)."""

    def __str__(self) -> str:
        return f"{self:.2f}"


def _percent(share: float) -> float:
    return _TwoDecimals(100 * share)


def _describe_comparison(result: Comparison, seed: str | None) -> str:
    a, b = result.a, result.b
    exact = result.exact
    how = (
        "exact outcome probabilities"
        if exact
        else f"{result.games:,} sampled games" + (f" ({seed})" if seed is not None else "")
    )
    show = _percent if exact else (lambda n: n)
    unit = " %" if exact else ""
    seats = [
        (f"{a} as X", *(show(v) for v in (result.a_as_x.x_wins, result.a_as_x.draws, result.a_as_x.o_wins))),
        (f"{a} as O", *(show(v) for v in (result.a_as_o.x_wins, result.a_as_o.draws, result.a_as_o.o_wins))),
    ]
    total = result.total
    lines = [
        f"{a} vs {b}: {how}, {a} playing X in half of the games",
        "",
        table(["seats", f"X wins{unit}", f"draws{unit}", f"O wins{unit}"], seats),
        "",
    ]
    if exact:
        per = [round(1000 * v, 1) for v in (total.a_wins, total.draws, total.b_wins)]
        lines.append(
            f"{a} wins {_percent(total.a_wins)}%, draws {_percent(total.draws)}%, loses "
            f"{_percent(total.b_wins)}% against {b} (per 1,000 games: {per[0]} / {per[1]} / {per[2]})"
        )
    else:
        lines.append(
            f"{a} won {total.a_wins}, drew {total.draws} and lost {total.b_wins} of {result.games:,} games against {b}"
        )
    return "\n".join(lines)


def _describe_tournament(result: Tournament, seed: str | None) -> str:
    agents = list(result.agents)
    how = (
        "exact"
        if result.exact
        else f"{result.games:,} sampled games a pair" + (f", {seed}" if seed is not None else "")
    )
    standings = [
        (s.agent, _percent(s.wins), _percent(s.draws), _percent(s.losses), _percent(s.score))
        for s in result.standings()
    ]
    numbers = [str(i + 1) for i in range(len(agents))]
    matrix = [
        (
            f"{i + 1} {agent}",
            *(None if other == agent else _percent(_score(result.shares(agent, other))) for other in agents),
        )
        for i, agent in enumerate(agents)
    ]
    counts = {(g.side, g.value): g.positions for g in result.accuracy[0].groups} if result.accuracy else {}
    group_columns = [f"{side} {_VALUE[value]} ({counts.get((side, value), 0)}) %" for side, value in _GROUPS]
    blunder_rows = _blunder_rows(result)
    return "\n".join(
        [
            f"Round robin of {len(agents)} agents ({how}; every pair plays both seats equally)",
            "",
            table(["agent", "wins %", "draws %", "losses %", "score %"], standings),
            "",
            "Score of the row against the column (wins + half the draws, %)",
            "",
            table(["agent", *numbers], matrix),
            "",
            f"Accuracy: moves keeping the game-theoretic value over {_accuracy_over(result, seed)}",
            "(by the agent's side and the position's value; every move keeps a lost position)",
            "",
            table(["agent", "all %", *group_columns, "blundering positions", "measured"], _accuracy_rows(result)),
            "",
            "Worst blunders (expected value thrown away; moves that drop it: cell:result probability)",
            "",
            table(["agent", "board", "to move", "value", "keeps %", "drop", "dropping moves"], blunder_rows)
            if blunder_rows
            else "none",
        ]
    )


def _accuracy_over(result: Tournament, seed: str | None) -> str:
    """The positions accuracy was measured over, in words."""
    positions = result.accuracy[0].positions if result.accuracy else 0
    if not (result.accuracy and result.accuracy[0].positions_sampled):
        return f"the {positions:,} unfinished positions"
    return f"{positions:,} unfinished positions drawn uniformly at random" + (f" ({seed})" if seed is not None else "")


def _accuracy_rows(result: Tournament) -> list[tuple[Any, ...]]:
    """Each agent's share of moves keeping the value: in all, and in each group of :data:`_GROUPS`."""
    rows: list[tuple[Any, ...]] = []
    for score in result.accuracy:
        by_group = {(g.side, g.value): g for g in score.groups}
        rows.append(
            (
                score.agent,
                _percent(score.keep),
                *(_percent(by_group[key].keep) if key in by_group else None for key in _GROUPS),
                score.blundering,
                "policy" if score.samples is None else f"{score.samples} sampled move(s) a position",
            )
        )
    return rows


def _blunder_rows(result: Tournament) -> list[tuple[Any, ...]]:
    """Each agent's three worst blunders, with the moves that drop the value."""
    rows: list[tuple[Any, ...]] = []
    for score in result.accuracy:
        for blunder in score.blunders[:3]:
            moves = " ".join(f"{cell}:{_LETTER[value]} {100 * p:.0f}%" for cell, p, value in blunder.moves)
            rows.append(
                (
                    score.agent,
                    blunder.board,
                    rules.to_move(blunder.board),
                    _VALUE[blunder.value],
                    _percent(blunder.keep),
                    _TwoDecimals(blunder.drop),
                    moves,
                )
            )
    return rows


def _score(shares: tuple[float, float, float]) -> float:
    return shares[0] + shares[1] / 2


COMMANDS = [compare, tournament]
