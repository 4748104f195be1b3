"""A chart of a tournament: results over the round robin, and accuracy against the database.

matplotlib is an optional extra (``[plot]``: ``pip install matplotlib``); it is imported only
here (and in :mod:`.plot_stats`), and only when a chart is drawn. Colours are the Okabe-Ito
palette, which stays distinct under the common colour-vision deficiencies; sampled numbers
carry 95% Wilson intervals, and the title says the sample and its seed.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import MissingExtraError, install_hint
from ..store.paths import file_name
from ..system.memory import out_of_memory

if TYPE_CHECKING:
    from ..players.tournament import Tournament

INSTALL_HINT = install_hint("plot", "matplotlib")

# Okabe-Ito: win / draw / loss, and the two sides (as in the rgb_array frames of the environments)
WIN, DRAW, LOSS = "#009E73", "#BBBBBB", "#D55E00"
SIDE_X, SIDE_O = "#0072B2", "#E69F00"
_TOP = 0.999  # the accuracy axis is a logit scale: 100% sits at its right edge


def require() -> Any:
    """The pyplot module (non-interactive backend); raise MissingExtraError naming the extra."""
    try:
        # Imported here, not at the top: matplotlib is the optional [plot] extra: imported where a chart is drawn.
        import matplotlib
    except ImportError as error:
        if out_of_memory(error):  # installed, but no room to load it: reported as such
            raise
        raise MissingExtraError(f"drawing a chart needs matplotlib, from the [plot] extra: {INSTALL_HINT}") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def wilson(share: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a share observed in ``n`` trials."""
    if n <= 0:
        return 0.0, 1.0
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def draw(tournament: Tournament, path: str | Path, seed: int | None = None) -> Path:
    """Write the chart to ``path`` (the format follows the suffix: .png, .svg, .pdf, ...)."""
    target = Path(file_name(path, "chart file"))
    plt = require()
    names = [s.agent for s in tournament.standings()][::-1]  # best at the top
    figure, (results, accuracy) = plt.subplots(
        1, 2, figsize=(13, 0.42 * len(names) + 2.6), sharey=True, gridspec_kw={"width_ratios": [3, 2]}
    )
    _results(results, tournament, names)
    _accuracy(accuracy, tournament, names)
    figure.suptitle(title(tournament, seed), fontsize=11)
    figure.tight_layout()
    figure.savefig(target, dpi=120)
    plt.close(figure)
    return target


def title(tournament: Tournament, seed: int | None) -> str:
    n = len(tournament.agents)
    if tournament.exact:
        played = f"Exact round robin of {n} agents"
    else:
        per_agent = (tournament.games or 0) * (n - 1)
        played = f"Round robin of {n} agents, {tournament.games:,} sampled games a pair ({per_agent:,} per agent)"
    scores = tournament.accuracy
    sampled = bool(scores) and scores[0].positions_sampled
    over = f"{scores[0].positions:,} {'sampled' if sampled else 'unfinished'} positions" if scores else "no positions"
    sampled_moves = any(score.samples is not None for score in scores)
    seeded = f", seed {seed}" if seed is not None and (sampled or sampled_moves or not tournament.exact) else ""
    whiskers = "; whiskers: 95% intervals" if sampled or sampled_moves or not tournament.exact else ""
    return f"{played}{seeded}\naccuracy over {over}{whiskers}"


def _results(axes: Any, tournament: Tournament, names: list[str]) -> None:
    """Stacked win / draw / loss shares per agent, numbers on the bars, intervals when sampled."""
    by_name = {s.agent: s for s in tournament.standings()}
    games = None if tournament.exact else (tournament.games or 0) * (len(tournament.agents) - 1)
    left = [0.0] * len(names)
    for label, field, colour, ink in (
        ("win", "wins", WIN, "white"),
        ("draw", "draws", DRAW, "black"),
        ("loss", "losses", LOSS, "white"),
    ):
        widths = [100 * getattr(by_name[name], field) for name in names]
        axes.barh(names, widths, left=left, color=colour, label=label, edgecolor="white", linewidth=0.5)
        for y, (start, width) in enumerate(zip(left, widths)):
            if width >= 3.5:
                size = 8 if width >= 6 else 6.5
                axes.text(start + width / 2, y, f"{width:.1f}", ha="center", va="center", color=ink, fontsize=size)
        left = [a + b for a, b in zip(left, widths)]
    if games:
        for y, name in enumerate(names):  # the win / draw and draw / loss boundaries, with their intervals
            wins, losses = by_name[name].wins, by_name[name].losses
            for edge, (low, high), share in (
                (wins, wilson(wins, games), wins),
                (1 - losses, _mirror(wilson(losses, games)), losses),
            ):
                if share == 0:
                    continue  # no segment to bound
                axes.errorbar(  # along the top of the bar, clear of the numbers
                    100 * edge,
                    y + 0.28,
                    xerr=[[100 * (edge - low)], [100 * (high - edge)]],
                    fmt="none",
                    ecolor="black",
                    elinewidth=1,
                    capsize=3,
                )
    axes.set_xlim(0, 100)
    axes.set_xlabel("share of the agent's games (%), mean over its opponents, both seats")
    axes.set_title("results (best score at the top)", fontsize=10)
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=3, frameon=False)
    axes.spines[["top", "right"]].set_visible(False)


def _mirror(interval: tuple[float, float]) -> tuple[float, float]:
    return 1 - interval[1], 1 - interval[0]


def _accuracy(axes: Any, tournament: Tournament, names: list[str]) -> None:
    """Share of moves keeping the value in won and drawn positions, by side, on a logit axis."""
    scores = {a.agent: a for a in tournament.accuracy}
    height = 0.38
    lowest = 1.0
    for offset, side, colour in ((height / 2, "X", SIDE_X), (-height / 2, "O", SIDE_O)):  # X on top, as in the legend
        for y, name in enumerate(names):
            groups = [g for g in scores[name].groups if g.side == side and g.value >= 0]
            total = sum(g.positions for g in groups)
            keep = sum(g.keep * g.positions for g in groups) / total if total else 0.0
            lowest = min(lowest, keep)
            shown = min(keep, _TOP)
            axes.barh(
                y + offset, shown - 0.01, left=0.01, height=height, color=colour, label=f"as {side}" if y == 0 else None
            )
            end = shown
            if (scores[name].positions_sampled or scores[name].samples is not None) and total:
                low, high = wilson(keep, total)
                end = max(shown, min(high, _TOP))
                axes.errorbar(
                    shown,
                    y + offset,
                    xerr=[[shown - low], [end - shown]],
                    fmt="none",
                    ecolor="black",
                    elinewidth=1,
                    capsize=2,
                )
            axes.text(end, y + offset, f" {100 * keep:.1f}", va="center", fontsize=7)
    axes.set_xscale("logit")
    left = max(0.01, min(0.5, lowest - 0.05))
    axes.set_xlim(left, _TOP)
    ticks = [t for t in (0.01, 0.1, 0.3, 0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999) if t >= left]
    axes.set_xticks(ticks, [f"{100 * t:g}" for t in ticks])
    axes.xaxis.set_minor_formatter("")
    axes.set_xlabel("moves keeping the value in won and drawn positions (%, logit scale)")
    axes.set_title("accuracy against the database", fontsize=10)
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, frameon=False)
    axes.grid(axis="x", alpha=0.3)
    axes.spines[["top", "right"]].set_visible(False)
