"""An independent brute-force search for any RxC k-in-a-row board, written from the rules alone,
and the check of solved tiers in a scratch folder against it.

No code shared with the package's solver: a board is a string of ``X``, ``O`` and ``.`` read
from the code's base-3 digits (O 0, empty 1, X 2, first cell first); lines are every run of k
cells in a row, a column or a diagonal; X moves when the counts are equal; the side that
completes a line wins (loses, in misère); remoteness follows the textbook rule (winners hurry,
losers stall, a draw runs to the full board). No memo and no symmetry: meant for the last
plies, where a position has a few empty cells.
"""

from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass
from functools import cache

import numpy as np


@cache
def lines(rows: int, cols: int, k: int) -> tuple[tuple[int, ...], ...]:
    found = []
    for r in range(rows):
        for c in range(cols):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                end_r, end_c = r + dr * (k - 1), c + dc * (k - 1)
                if 0 <= end_r < rows and 0 <= end_c < cols:
                    found.append(tuple((r + dr * i) * cols + c + dc * i for i in range(k)))
    return tuple(found)


def board(code: int, cells: int) -> str:
    digits = []
    for _ in range(cells):
        code, digit = divmod(code, 3)
        digits.append("O.X"[digit])
    return "".join(reversed(digits))


def search(text: str, rows: int, cols: int, k: int, misere: bool) -> tuple[int, int]:
    """(value, remoteness) for the side to move: +1 win, 0 draw, -1 loss."""
    if any(text[line[0]] != "." and all(text[i] == text[line[0]] for i in line) for line in lines(rows, cols, k)):
        return (1 if misere else -1), 0  # the last move made a line
    if "." not in text:
        return 0, 0
    me = "X" if text.count("X") == text.count("O") else "O"
    results = []
    for cell, mark in enumerate(text):
        if mark == ".":
            value, remoteness = search(text[:cell] + me + text[cell + 1 :], rows, cols, k, misere)
            results.append((-value, remoteness + 1))
    value = max(v for v, _r in results)
    plies = [r for v, r in results if v == value]
    return value, (min(plies) if value > 0 else max(plies))


@dataclass(frozen=True)
class Checked:
    variant: str
    plies: tuple[int, ...]
    rows: int  # rows in those tiers
    sampled: int
    wrong: list[str]  # one line per position whose stored value or remoteness differs
    values: dict[int, int]  # the sampled positions by their value found by the search


def check_tiers(folder: str, samples: int, seed: int = 0, deepest: bool = False) -> Checked:
    """Compare ``samples`` positions drawn uniformly from the finished tiers of a scratch folder
    (``tier-PP/``: code, value and remoteness columns, as ``rows.json`` counts them) with
    :func:`search`; from its deepest tier only (the fewest pieces: the longest searches) if
    ``deepest``."""
    with open(os.path.join(folder, "manifest.json")) as file:
        name = json.load(file)["variant"]
    rows, cols, k, misere = parse(name)
    plies = tuple(
        sorted(int(entry[5:]) for entry in os.listdir(folder) if entry.startswith("tier-") and entry[5:].isdigit())
    )
    if deepest:
        plies = plies[:1]
    counts = {}
    for ply in plies:
        with open(os.path.join(folder, f"tier-{ply:02d}", "rows.json")) as file:
            counts[ply] = json.load(file)["rows"]
    total = sum(counts.values())
    rng = random.Random(seed)
    picks = sorted(rng.sample(range(total), min(samples, total)))
    wrong = []
    values = dict.fromkeys((1, 0, -1), 0)
    start = 0
    for ply in plies:
        mine = [i - start for i in picks if start <= i < start + counts[ply]]
        start += counts[ply]
        tier = os.path.join(folder, f"tier-{ply:02d}")
        columns = {
            column: np.memmap(os.path.join(tier, f"{column}.bin"), dtype=dtype, mode="r", shape=(counts[ply],))
            for column, dtype in (("code", "<i8"), ("value", "i1"), ("remoteness", "i1"))
        }
        for row in mine:
            text = board(int(columns["code"][row]), rows * cols)
            stored = (int(columns["value"][row]), int(columns["remoteness"][row]))
            found = search(text, rows, cols, k, misere)
            values[found[0]] += 1
            if text.count(".") != rows * cols - ply or stored != found:
                wrong.append(f"tier {ply} row {row}: {text}: stored {stored}, brute force {found}")
    return Checked(name, plies, total, len(picks), wrong, values)


def parse(name: str) -> tuple[int, int, int, bool]:
    """``RxC[kK][-misere]`` -> (rows, cols, k, misere); k defaults to the longer side."""
    misere = name.endswith("-misere")
    size = name.removesuffix("-misere")
    shape, _, k = size.partition("k")
    rows, cols = (int(side) for side in shape.split("x"))
    return rows, cols, int(k) if k else max(rows, cols), misere
