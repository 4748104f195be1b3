"""A tier's result bytes made by an engine's tasks, each file written by one task only.

Many processes writing disjoint bytes of one file is safe on one machine, whose page cache
they share, but not on a file system shared by several machines (an NFS client writes back
whole pages, so clients can undo each other's writes). So the result bytes go through the
scratch folder as a shuffle, every file with one writer, read only once its writer has synced
and closed it:

1. The task that solves a chunk writes its positions' images (:func:`.passes.images`) into a
   file of its own, grouped by the range of ranks each lands in (:func:`write_images`; the
   tier is cut into ranges by :func:`range_bounds`), and returns where each group starts.
2. Once every chunk is solved, a task per range reads its group from each chunk's file and
   writes the range's result bytes into a file of its own (:func:`gather_range`).
3. The driver appends the range files into the tier's result bytes (:func:`join_ranges`), one
   pass over them that also makes the file's checksum.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from ..game.values import NO_POSITION
from . import checksums
from .passes import Solved, images
from .scratch import write_array
from .tiers import Tiers

# An image: its rank less its range's first rank, and its result byte (5 bytes, packed).
PAIR = np.dtype([("rank", "<u4"), ("byte", "u1")])
RANGE_LIMIT = 1 << 32  # boards of a range at most: its ranks are uint32 in PAIR

Part = tuple[str, int, int]  # a chunk's images file and the first and last pair of one range's group


def range_bounds(size: int, memory: int, least: int) -> list[int]:
    """The first rank of each range a tier of ``size`` boards is cut into, and ``size``: each
    range at most half a task's budget of ``memory`` bytes (a byte a board), and at least
    ``least`` ranges (the workers, so that they gather side by side) where the tier is that wide."""
    boards = max(1, min(RANGE_LIMIT, memory // 2))
    count = max(1, -(-size // boards), min(least, size))
    return [size * index // count for index in range(count + 1)]


def write_images(tiers: Tiers, ply: int, solved: Solved, bounds: Sequence[int], path: str) -> list[int]:
    """Write the images of ``solved`` (positions of tier ``ply``) with their result bytes to a
    new file at ``path``, grouped by the range of :func:`range_bounds` they land in; the first
    pair of each group, and the pairs' count."""
    ranks, results = [], []
    for rank, result in images(tiers, ply, solved):
        ranks.append(rank)
        results.append(result)
    rank = np.concatenate(ranks)
    edges = np.asarray(bounds, dtype=np.int64)
    group = np.searchsorted(edges, rank, side="right") - 1
    order = np.argsort(group.astype(np.min_scalar_type(len(edges))), kind="stable")  # a radix sort
    group = group[order]
    pairs = np.empty(len(rank), dtype=PAIR)
    pairs["rank"] = rank[order] - edges[group]
    pairs["byte"] = np.concatenate(results)[order]
    write_array(path, pairs)
    counts = np.bincount(group, minlength=len(edges) - 1)
    return [0, *np.cumsum(counts).tolist()]


def gather_range(parts: Sequence[Part], boards: int, path: str) -> None:
    """A task: the result bytes of a range of ``boards`` ranks, from its group of pairs in each
    chunk's images file (``parts``), written to a new file at ``path``."""
    out = np.full(boards, NO_POSITION, dtype=np.uint8)  # no legal board yet
    for images_file, first, last in parts:
        if last > first:
            pairs = np.fromfile(images_file, dtype=PAIR, count=last - first, offset=first * PAIR.itemsize)
            out[pairs["rank"]] = pairs["byte"]
    write_array(path, out)


def join_ranges(paths: Sequence[str], path: str) -> checksums.Entry:
    """Append the range files at ``paths`` (in rank order) and one more :data:`NO_POSITION`
    byte (see :func:`.passes.new_tier`) into a new file at ``path``: the tier's result bytes,
    synced; their checksum entry."""
    running = checksums.Running()
    with open(path, "wb") as out:
        for range_file in paths:
            with open(range_file, "rb") as file:
                while piece := file.read(checksums.READ):
                    out.write(piece)
                    running.update(piece)
        end = bytes([NO_POSITION])
        out.write(end)
        running.update(end)
        out.flush()
        os.fsync(out.fileno())
    return running.entry()
