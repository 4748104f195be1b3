"""A chart of a solved variant: its positions per ply, by value and by remoteness.

Top: how many legal boards each ply holds, split by value for the side to move. Below, one
heat map per value: for each ply, how many boards are that many plies from the end under
perfect play. Counts are of real boards (canonical rows weighted by their orbit). Needs
matplotlib (the ``[plot]`` extra), imported only when a chart is drawn.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..game import array_rules, codec
from ..store.paths import file_name
from .tournament_chart import DRAW, LOSS, WIN, require

if TYPE_CHECKING:
    from ..store.arrays import Arrays

_VALUES = ((1, "win", WIN, "Greens"), (0, "draw", DRAW, "Greys"), (-1, "loss", LOSS, "Oranges"))


def count(arrays: Arrays) -> dict[tuple[int, int, int], int]:
    """Boards by (ply, value, remoteness), from a variant's canonical rows."""

    ply = (array_rules.digits(arrays.code, arrays.variant) != codec.EMPTY_DIGIT).sum(axis=1)
    keys = np.stack([ply, arrays.value, arrays.remoteness], axis=1).astype(np.int64)
    found, where = np.unique(keys, axis=0, return_inverse=True)
    weights = np.bincount(where.ravel(), weights=arrays.orbit.astype(np.int64)).astype(np.int64)
    return {(int(p), int(v), int(r)): int(n) for (p, v, r), n in zip(found.tolist(), weights.tolist())}


def compact(n: int) -> str:
    """1234 -> 1.2k, 2345678 -> 2.3M: short enough for a heat-map cell."""
    for size, suffix in ((1_000_000, "M"), (1_000, "k")):
        if n >= size:
            return f"{n / size:.1f}{suffix}" if n < 10 * size else f"{n // size}{suffix}"
    return str(n)


def draw(counts: dict[tuple[int, int, int], int], variant: str, path: str | Path) -> Path:
    """Write the chart of ``count(...)`` to ``path`` (.png, .svg, .pdf, ...)."""
    target = Path(file_name(path, "chart file"))
    plt = require()
    # Imported here, not at the top: matplotlib is the optional [plot] extra: imported where a chart is drawn.
    from matplotlib import colormaps
    from matplotlib.colors import ListedColormap, LogNorm

    plies = range(max(p for p, _, _ in counts) + 1)
    deepest = max(r for _, _, r in counts)
    figure = plt.figure(figsize=(13, 8.5))
    grid = figure.add_gridspec(2, 3, height_ratios=[1, 1.35])
    bars = figure.add_subplot(grid[0, :])
    bottom = [0] * len(plies)
    for value, label, colour, _ in _VALUES:
        heights = [sum(n for (p, v, _), n in counts.items() if p == ply and v == value) for ply in plies]
        bars.bar(plies, heights, bottom=bottom, color=colour, label=label, edgecolor="white", linewidth=0.5)
        bottom = [a + b for a, b in zip(bottom, heights)]
    top = max(bottom)
    for ply, total in zip(plies, bottom):
        bars.text(ply, total + top * 0.01, f"{total:,}", ha="center", va="bottom", fontsize=8)
    bars.set(xticks=list(plies), xlabel="ply (marks on the board)", ylabel="boards", ylim=(0, top * 1.12))
    bars.set_title("boards at each ply, by value for the side to move", fontsize=10)
    bars.yaxis.set_major_formatter(lambda v, _: f"{v:,.0f}")
    bars.legend(frameon=False, ncol=3, loc="upper left")
    bars.spines[["top", "right"]].set_visible(False)
    for column, (value, label, _, colours) in enumerate(_VALUES):
        axes = figure.add_subplot(grid[1, column])
        cells = [[counts.get((ply, value, r), 0) for ply in plies] for r in range(deepest + 1)]
        shown = [[n if n else float("nan") for n in row] for row in cells]
        largest = max(max(row) for row in cells) or 1
        light = ListedColormap(colormaps[colours](np.linspace(0.12, 0.6, 256)))  # black numbers stay readable
        axes.imshow(shown, origin="lower", aspect="auto", cmap=light, norm=LogNorm(1, max(largest, 2)))
        for r, row in enumerate(cells):
            for ply, n in enumerate(row):
                if n:
                    axes.text(ply, r, compact(n), ha="center", va="center", fontsize=6.5)
        axes.set(xticks=list(plies), xlabel="ply", yticks=range(deepest + 1))
        axes.set_ylabel("remoteness (plies to the end)" if column == 0 else "")
        axes.set_title(f"{label}: boards by ply and remoteness", fontsize=10)
    figure.suptitle(f"{variant}: the {sum(counts.values()):,} legal boards under perfect play", fontsize=12)
    figure.tight_layout()
    figure.savefig(target, dpi=110)
    plt.close(figure)
    return target
