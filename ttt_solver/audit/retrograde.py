"""The whole-table proof: a solved table checked against the rules, a tier at a time.

A solved table proves itself locally: a finished position's value follows from the rules,
and every other position's value, remoteness, best moves and move counts follow from its
children's rows. :func:`prove_tiers` takes the stored rows of each tier (:mod:`ttt_solver.solver.tiers`),
from the last ply to the first, and for each chunk of the tier

- lists the canonical legal positions the chunk must hold (the solver's enumeration) and
  compares them with the stored codes: a missing or extra row is a contradiction;
- values each of them from the *stored* rows of the tier below (their result bytes, spread
  to every image) with the solver's own rule, and compares value, remoteness, best moves,
  move counts and orbit with the stored row;
- spreads the stored rows (not the recomputed ones) for the tier above.

So a wrong row is found where it is and where its parents are, and nothing the table says is
trusted before it is checked. Memory is the chunk's work (:func:`chunks`, the build's) and
two tiers' result bytes (on an engine, memory-mapped from their files); the stored rows come one tier at a time, and a chunk's rows are
read from them by code range (:func:`~ttt_solver.engine.scratch.read_range`: from their files,
when verify keeps them in a folder, so no more than the chunk's rows is held).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..engine import first_at_least, read_range
from ..game import array_rules
from ..game.variant import Variant
from ..solver import (
    Positions,
    Solved,
    Steps,
    Tiers,
    default_memory,
    new_tier,
    positions,
    solve_chunk,
    spread,
    task_chunks,
    tiers,
)
from .report import Report

if TYPE_CHECKING:
    from ..store.arrays import Arrays

# Compared between a stored row and what its children imply, with the names a report uses.
COMPARED = (
    ("value", "value"), ("remoteness", "remoteness"), ("best", "best moves"), ("wins", "winning moves"),
    ("draws", "drawing moves"), ("losses", "losing moves"), ("orbit", "orbit"),
)  # fmt: skip


@dataclass(frozen=True)
class Proof:
    """A whole-table proof and what it computed on the way."""

    report: Report
    preferred: np.ndarray  # uint32 per row (code order): moves that keep the value and the remoteness


def prove_tiers(
    variant: Variant,
    tier_rows: Callable[[int], Solved],
    report: Report,
    memory: int | None = None,
    steps: Steps | None = None,
    preferred: Callable[[int, np.ndarray, np.ndarray], None] | None = None,
) -> None:
    """Prove the stored rows of every tier (``tier_rows(ply)``: that tier's rows in code
    order, as read; any values). ``preferred(ply, codes, masks)`` receives the preferred
    moves of the rows found sound."""
    found = tiers(variant)
    total = int(found.sizes.sum())
    tally: dict[str, int] = {}
    below: np.ndarray | None = None
    memory = memory or default_memory()  # read once, not for every tier
    for ply in range(variant.cells, -1, -1):
        stored = tier_rows(ply)
        out = new_tier(found, ply)
        for start, stop in chunks(variant, ply, memory):
            proof = prove_chunk(found, ply, start, stop, below, stored)
            proof.findings.tell(report, tally)
            spread(found, ply, proof.sound, out)
            if preferred is not None:
                index = np.searchsorted(proof.expected.code, proof.sound.code)
                preferred(ply, proof.sound.code, proof.expected.preferred[index])
            if steps:
                steps("proving", stop - start, total)
        below = out
    conclude(report, tally)


def chunks(variant: Variant, ply: int, memory: int | None) -> list[tuple[int, int]]:
    """The chunks (first and last rank) tier ``ply`` is proved in under ``memory``: the same
    in memory, in one process and on an engine, so that all report the same lines; the build's
    own (:func:`ttt_solver.solver.solve.task_chunks`: in the pipeline the tiers' result bytes
    are memory-mapped files, outside the budget)."""
    return task_chunks(variant, ply, memory or default_memory())


def conclude(report: Report, tally: dict[str, int]) -> None:
    """The checks over every tier, from the chunks' tallies."""
    report.check(tally.get("missing", 0) == 0, "every canonical legal position has a row")
    report.check(tally.get("extra", 0) == 0, "every row is a canonical legal position")
    report.passed(f"{tally.get('finished', 0):,} finished rows valued by the rules")
    for name, label in COMPARED:
        report.check(
            tally.get(name, 0) == 0,
            f"{label} of every row from its children" if name != "orbit" else "every orbit as the symmetries make it",
        )


@dataclass
class Findings:
    """What the proof of one chunk found, told to the report in chunk order (a task on an
    engine returns it to the driver): its failures in order, the codes of the wrong rows, and
    its tallies (missing, extra and checked rows, finished ones, and wrong rows per column)."""

    failures: list[tuple[str, list[str], int]] = field(default_factory=list)
    bad: list[int] = field(default_factory=list)
    tally: dict[str, int] = field(default_factory=dict)

    def failed_codes(self, what: str, codes: np.ndarray, variant: Variant) -> None:
        if len(codes):
            self.failures.append((what, array_rules.decode_texts(codes[:3], variant), len(codes)))

    def count(self, name: str, number: int) -> None:
        self.tally[name] = self.tally.get(name, 0) + number

    def tell(self, report: Report, tally: dict[str, int]) -> None:
        """Record these findings in ``report`` and add their tallies to ``tally``."""
        for what, boards, count in self.failures:
            report.failed(what, boards, count)
        report.bad.update(self.bad)
        for name, number in self.tally.items():
            tally[name] = tally.get(name, 0) + number


class ChunkProof(NamedTuple):
    findings: Findings
    sound: Solved  # the stored rows found sound: what the tier above is valued from
    expected: Solved  # the chunk's rows as its children imply them


def prove_chunk(found: Tiers, ply: int, start: int, stop: int, below: np.ndarray | None, stored: Solved) -> ChunkProof:
    """Prove ranks ``start`` to ``stop`` of tier ``ply``: the positions enumerated, valued
    from ``below`` (the tier below's result bytes) and compared with the rows in their code
    range of ``stored`` (code order: the tier's stored rows, or only that range's)."""
    expected = solve_chunk(found, ply, start, stop, below, _positions(found, ply, start, stop, found.size(ply)))
    got = read_range(stored, *chunk_rows(found, ply, start, stop, stored.code))
    findings = Findings()
    sound = _compare(found.variant, expected, got, findings)
    return ChunkProof(findings, got.take(sound), expected)


def chunk_rows(found: Tiers, ply: int, start: int, stop: int, code: np.ndarray) -> tuple[int, int]:
    """Where the rows of ranks ``start`` to ``stop`` of tier ``ply`` are in the tier's stored
    ``code`` column (code order): from the first row to before the last."""
    low = _code_at(found, ply, start)
    high = _code_at(found, ply, stop) if stop < found.size(ply) else None
    return first_at_least(code, low), len(code) if high is None else first_at_least(code, high)


def _positions(found: Tiers, ply: int, start: int, stop: int, size: int) -> Positions | None:
    """The positions of a chunk of a small tier, computed once (a variant's eager loads and
    tests prove many tables of it); None for a big tier (solve_chunk computes them)."""
    return _small_positions(found, ply, start, stop) if size <= SMALL_TIER else None


SMALL_TIER = 1 << 16


@lru_cache(maxsize=256)
def _small_positions(found: Tiers, ply: int, start: int, stop: int) -> Positions:
    return positions(found, ply, start, stop)


def _code_at(found: Tiers, ply: int, rank: int) -> int:
    high, low = found.boards(ply, rank, rank + 1)
    code: int = int(high[0]) * found.geometry.base + int(low[0])
    return code


def _compare(variant: Variant, expected: Solved, got: Solved, findings: Findings) -> np.ndarray:
    """Compare the stored rows of a chunk with the expected ones; the stored rows found sound
    (as an index into ``got``)."""
    index, present = array_rules.search(expected.code, got.code)
    extra = got.code[~present]
    if len(extra):
        findings.count("extra", len(extra))
        canonical = array_rules.canonical_codes(extra, variant) == extra
        findings.failed_codes("a row that is not canonical", extra[~canonical], variant)
        findings.failed_codes("a row that is no legal position", extra[canonical], variant)
        findings.bad += extra[:1000].tolist()
    have = np.zeros(len(expected.code), dtype=bool)
    have[index[present]] = True
    findings.count("missing", int((~have).sum()))
    findings.failed_codes("a canonical legal position with no row", expected.code[~have], variant)
    rows = np.flatnonzero(present)
    mine = index[present]
    sound = np.ones(len(rows), dtype=bool)
    findings.count("checked", len(rows))
    findings.count("finished", int(np.count_nonzero(expected.remoteness[mine] == 0)))
    for name, label in COMPARED:
        bad = getattr(got, name)[rows] != getattr(expected, name)[mine]
        if bad.any():
            findings.count(name, int(bad.sum()))
            codes = got.code[rows][bad]
            findings.bad += codes[:1000].tolist()
            what = f"{label} not what the children imply" if name != "orbit" else "wrong orbit"
            findings.failed_codes(what, codes, variant)
            sound &= ~bad
    return rows[sound]


def prove_arrays(arrays: Arrays, report: Report, memory: int | None = None) -> Proof:
    """Prove rows held in memory (code order)."""
    variant = arrays.variant
    none = np.zeros(len(arrays.code), dtype=np.uint32)
    solved = Solved(*(none if name == "preferred" else getattr(arrays, name) for name in Solved._fields))
    ascending = len(solved.code) > 0 and bool(np.all(solved.code[1:] > solved.code[:-1]))
    if not report.check(ascending, f"{len(solved.code):,} codes strictly ascending"):
        return Proof(report, np.zeros(len(solved.code), dtype=np.uint32))
    ply = plies(solved.code, variant)
    report_outside(solved.code[ply < 0], variant, report)
    preferred = np.zeros(len(solved.code), dtype=np.uint32)

    def keep(_ply: int, codes: np.ndarray, masks: np.ndarray) -> None:
        preferred[np.searchsorted(solved.code, codes)] = masks

    prove_tiers(variant, lambda p: solved.take(np.flatnonzero(ply == p)), report, memory, preferred=keep)
    return Proof(report, preferred)


def report_outside(codes: np.ndarray, variant: Variant, report: Report) -> None:
    """Rows whose code is in no tier: out of range, or piece counts no game can have."""
    if len(codes):
        report.bad.update(codes[:1000].tolist())
        inside = (codes >= 0) & (codes < 3**variant.cells)
        if (~inside).any():
            report.failed(
                f"a code out of range (0 to 3**{variant.cells})",
                [str(c) for c in codes[~inside][:3].tolist()],
                int((~inside).sum()),
            )
        report.failed_codes("a row that is no legal position", codes[inside], variant)


def plies(codes: np.ndarray, variant: Variant) -> np.ndarray:
    """The tier of each code (-1 for a code out of range or with impossible piece counts)."""
    g = tiers(variant).geometry
    inside = (codes >= 0) & (codes < 3**variant.cells)
    high, low = np.divmod(np.where(inside, codes, 0), np.int64(g.base))
    found = tiers(variant)
    xs = np.take(found.high_x, high) + np.take(found.low_x, low)
    os = np.take(found.high_o, high) + np.take(found.low_o, low)
    return np.where(inside & ((xs - os == 0) | (xs - os == 1)), xs + os, -1)
