"""A chart of a tournament: results over the round robin, and accuracy against the database.

matplotlib is an optional extra (``[plot]``: ``pip install matplotlib``); it is imported only
here, and only when a chart is drawn.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import MissingExtraError, install_hint

if TYPE_CHECKING:
    from .tournament import Tournament

INSTALL_HINT = install_hint("plot", "matplotlib")


def require() -> Any:
    """The pyplot module (non-interactive backend); raise MissingExtraError naming the extra."""
    try:
        import matplotlib
    except ImportError:
        raise MissingExtraError(f"drawing a chart needs matplotlib, from the [plot] extra: {INSTALL_HINT}") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def draw(tournament: Tournament, path: str | Path) -> Path:
    """Write the chart to ``path`` (the format follows the suffix: .png, .svg, .pdf, ...)."""
    plt = require()
    standings = tournament.standings()
    names = [s.agent for s in standings][::-1]  # best at the top
    by_name = {s.agent: s for s in standings}
    figure, (results, accuracy) = plt.subplots(1, 2, figsize=(12, 0.45 * len(names) + 2.5), sharey=True)
    left = [0.0] * len(names)
    bars = (("win", "wins", "tab:green"), ("draw", "draws", "tab:olive"), ("loss", "losses", "tab:red"))
    for label, field, colour in bars:
        widths = [100 * getattr(by_name[name], field) for name in names]
        results.barh(names, widths, left=left, color=colour, label=label)
        left = [a + b for a, b in zip(left, widths)]
    results.set_xlim(0, 100)
    results.set_xlabel("share of games over the round robin (%)")
    results.set_title("exact round robin" if tournament.exact else f"round robin, {tournament.games:,} games a pair")
    results.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=3, frameon=False)
    scores = {a.agent: a for a in tournament.accuracy}
    height = 0.38
    for offset, side, colour in ((-height / 2, "X", "tab:blue"), (height / 2, "O", "tab:orange")):
        keeps = []
        for name in names:
            groups = [g for g in scores[name].groups if g.side == side and g.value >= 0]
            total = sum(g.positions for g in groups)
            keeps.append(100 * sum(g.keep * g.positions for g in groups) / total if total else 0.0)
        accuracy.barh([i + offset for i in range(len(names))], keeps, height=height, color=colour, label=f"as {side}")
    accuracy.set_xlim(0, 100)
    accuracy.set_xlabel("moves keeping the value in won and drawn positions (%)")
    accuracy.set_title("accuracy against the database")
    accuracy.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2, frameon=False)
    figure.tight_layout()
    target = Path(path)
    figure.savefig(target)
    plt.close(figure)
    return target
