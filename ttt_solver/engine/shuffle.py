"""A tier's result bytes made by an engine's tasks, each file written by one task only.

Many processes writing disjoint bytes of one file is safe on one machine, whose page cache
they share, but not on a file system shared by several machines (an NFS client writes back
whole pages, so clients can undo each other's writes). So the result bytes go through the
scratch folder as a shuffle, every file with one writer, read only once its writer has closed
it (:meth:`.storage.Storage.create`):

1. The task that solves a chunk writes its positions' images (:func:`ttt_solver.solver.passes.images`) into a
   file of its own (after its rows, in the build), grouped by the range of ranks each lands in (:func:`write_images`; the
   tier is cut into ranges by :func:`range_bounds`), and returns where each group starts.
   A tier of one range (an in-process build's) exchanges no images: the chunk file's rows
   (their code, value and remoteness columns: :func:`write_rows`) are what the range task
   reads (:func:`write_exchange` decides).
2. Once every chunk is solved, a task per range reads its group from each chunk file and
   writes the range's result bytes into a file of its own (:func:`gather_range`); a tier's one
   range task spreads every chunk's rows to their images instead (:func:`spread_range`).
3. The driver appends the range files into the tier's result bytes (:func:`join_ranges`): a
   copy, nothing more, as the next tier's tasks wait for it (one range file in the driver's own
   folder, an in-process build's, is checked and renamed instead). What the build keeps of it (its
   checksum, its sync to the disk) is made while they run.

Each writer returns the CRC-32 of what it wrote (of each group, of the range, of the joined
result bytes; of each column of a chunk's rows), and each reader checks it (the next tier's tasks, their tier below's result bytes
once a process: :func:`below_bytes`): a file cut or changed in passing (a full disk, a damaged
shared folder or object store) is an EngineError, and the tier is not recorded. CRC-32 (:func:`ttt_solver.solver.checksums.crc32`), as the
scratch folder's records (:mod:`ttt_solver.solver.checksums`): it catches the flipped bytes and
cut files of a fault; the joined result bytes' is the one their tier records.

The files sit in a :class:`.storage.Storage`: a folder every process reaches, or a URL.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO, cast

import numpy as np

from ..errors import EngineError
from ..game.value_bytes import NO_POSITION, result_bytes
from ..game.variant import Variant
from ..solver import STORED_COLUMNS, Solved, StoredRows, Tiers, checksums, images, scatter, spread_results, tiers
from .storage import Storage

RANGE_LIMIT = 1 << 32  # boards of a range at most: an image's rank in its range is a uint32
RANK, BYTE = np.dtype("<u4"), np.dtype("u1")  # an image in an images file: its rank in its range, its result byte
IMAGE_BYTES = RANK.itemsize + BYTE.itemsize
_END = bytes([NO_POSITION])  # the byte after a tier's result bytes (:func:`ttt_solver.solver.passes.new_tier`)
# Up to this many ranges, a chunk's images are split a symmetry at a time by one pass per range,
# beyond by a sort. Against the one sort of all of them that this replaced, computing them
# included: 0.55x of the CPU time at 2 to 8 ranges, 0.67x at 16 and 32 (benchmarks/bench_images.py).
FEW_RANGES = 16
ROW_COLUMNS = 3  # the columns of a chunk's rows a range task spreads: code, value, remoteness (STORED_COLUMNS' first)

Group = tuple[str, int, int, int]  # a chunk file, where one range's group of images starts and ends in it, its CRC-32
Below = tuple[str, int]  # the tier below's result bytes: their name in the storage, and their CRC-32

_checked: set[str] = set()  # the result bytes this process found as their join wrote them (below_bytes)
_checked_lock = threading.Lock()


@dataclass(frozen=True)
class Groups:
    """What :func:`write_images` wrote into a chunk file: where each range's group of images
    starts (and where the last ends), and each group's CRC-32."""

    starts: list[int]
    crcs: list[int]

    def group(self, chunk_file: str, index: int) -> Group:
        """The group of range ``index`` in ``chunk_file``, for :func:`gather_range`."""
        return chunk_file, self.starts[index], self.starts[index + 1], self.crcs[index]


@dataclass(frozen=True)
class Rows:
    """What :func:`write_rows` wrote into a chunk file: the rows' count, where each of their
    columns (the first of :data:`ttt_solver.solver.STORED_COLUMNS`, in order) starts, and each
    one's CRC-32."""

    count: int
    starts: list[int]
    crcs: list[int]


Exchange = Groups | Rows  # what a chunk's task returns of what the range tasks read of its file


def range_bounds(size: int, memory: int, least: int) -> list[int]:
    """The first rank of each range a tier of ``size`` boards is cut into, and ``size``: ranges
    of one width (the last one shorter), each at most half a task's budget of ``memory`` bytes
    (a byte a board), and about ``least`` of them at least (the workers, so that they gather
    side by side) where the tier is that wide."""
    most = max(1, min(RANGE_LIMIT, memory // 2))
    count = max(1, -(-size // most), min(least, size))
    width = max(1, -(-size // count))
    return [min(size, index * width) for index in range(-(-size // width) + 1)]


def one_range(bounds: Sequence[int]) -> bool:
    """Whether a tier cut at ``bounds`` (:func:`range_bounds`) is one range: then its chunks
    exchange their rows, not their images (an image a symmetry: about twice the bytes)."""
    return len(bounds) == 2


def write_exchange(
    tiers: Tiers, ply: int, solved: Solved, bounds: Sequence[int], file: BinaryIO, rows: Rows | None = None
) -> Exchange:
    """What the range tasks of a tier cut at ``bounds`` read of a chunk file, written into
    ``file``: for one range, the rows' code, value and remoteness columns (``rows``, where the
    task wrote its rows already; else written now: :func:`write_rows`); for several, the images
    of ``solved`` (positions of tier ``ply``) grouped by range (:func:`write_images`)."""
    if not one_range(bounds):
        return write_images(tiers, ply, solved, bounds, file)
    return rows if rows is not None else write_rows(file, solved.stored(), ROW_COLUMNS)


def write_rows(file: BinaryIO, rows: StoredRows, columns: int = len(STORED_COLUMNS)) -> Rows:
    """Write the first ``columns`` columns of ``rows`` to ``file``, column after column;
    where each starts, and each one's CRC-32."""
    starts, crcs = [], []
    for column, (_name, dtype) in zip(rows[:columns], STORED_COLUMNS):
        starts.append(file.tell())
        crcs.append(write_pieces(file, [np.ascontiguousarray(column, dtype=dtype)]))
    return Rows(len(rows.code), starts, crcs)


def write_images(tiers: Tiers, ply: int, solved: Solved, bounds: Sequence[int], file: BinaryIO) -> Groups:
    """Write the images of ``solved`` (positions of tier ``ply``) with their result bytes to
    ``file``, grouped by the range of :func:`range_bounds` they land in (each group its ranks
    in the range, then its bytes); where each group starts in the file, and each one's CRC-32."""
    count = len(bounds) - 1
    ranks: list[list[np.ndarray]] = [[] for _ in range(count)]
    results: list[list[np.ndarray]] = [[] for _ in range(count)]
    for rank, result in images(tiers, ply, solved):
        for index, picked in enumerate(_groups(rank, bounds)):
            local = rank if picked is None else rank.take(picked)
            if bounds[index]:
                local = local - bounds[index]
            ranks[index].append(local.astype(RANK))
            results[index].append(result if picked is None else result.take(picked))
    groups = Groups([file.tell()], [])
    for index in range(count):
        groups.crcs.append(write_pieces(file, ranks[index] + results[index]))
        groups.starts.append(groups.starts[-1] + IMAGE_BYTES * sum(len(piece) for piece in ranks[index]))
    return groups


def write_pieces(file: BinaryIO, pieces: Iterable[np.ndarray]) -> int:
    """Write the bytes of each array of ``pieces`` (contiguous) to ``file`` in turn; their CRC-32,
    which the reader checks (:func:`check_crc`)."""
    crc = 0
    for piece in pieces:
        # Not tofile: its short write (a full disk, a file-size limit) is an OSError without errno.
        file.write(piece.data)
        crc = checksums.crc32(piece.data, crc)
    return crc


def _groups(rank: np.ndarray, bounds: Sequence[int]) -> list[np.ndarray | None]:
    """Where in ``rank`` (ranks in a tier) the ranks of each range starting at ``bounds`` are
    (None: everywhere, the tier being one range). Up to :data:`FEW_RANGES` ranges, a pass per
    range; beyond, a sort by range (a radix sort: the ranges' numbers are small integers)."""
    count = len(bounds) - 1
    if count == 1:
        return [None]
    group = (rank // bounds[1]).astype(np.min_scalar_type(count))
    if count <= FEW_RANGES:
        return [np.flatnonzero(group == index) for index in range(count)]
    order = np.argsort(group, kind="stable")
    return list(np.split(order, np.cumsum(np.bincount(group, minlength=count))[:-1]))


def gather_range(storage: Storage, groups: Sequence[Group], boards: int, name: str) -> int:
    """A task: the result bytes of a range of ``boards`` ranks, from its group of images in
    each chunk file (``groups``, each checked against its CRC-32), written to a new file
    ``name``, all in ``storage``; the CRC-32 of what it wrote."""
    out = np.full(boards, NO_POSITION, dtype=np.uint8)  # no legal board yet
    room = np.empty(max((stop - start for _file, start, stop, _crc in groups), default=0), dtype=np.uint8)
    for chunk_file, start, stop, crc in groups:
        if stop > start:
            group = room[: stop - start]  # each group read into the same memory
            storage.read_into(chunk_file, start, group)
            check_crc(storage, chunk_file, f" (bytes {start:,} to {stop:,})", checksums.crc32(group.data), crc)
            split = (stop - start) // IMAGE_BYTES * RANK.itemsize
            scatter(out, group[:split].view(RANK), group[split:])
    with storage.create(name) as file:
        return write_pieces(file, [out])


def spread_range(storage: Storage, chunks: Sequence[tuple[str, Rows]], variant: str, ply: int, name: str) -> int:
    """A task: the result bytes of tier ``ply`` of variant ``variant``, a tier of one range,
    from the rows of each chunk file (``chunks``, each column checked against its CRC-32 before
    it is used: a damaged code has no image), read into memory reused chunk after chunk and
    spread to their images; written to a new file ``name``, all in ``storage``; the CRC-32 of
    what it wrote."""
    found = tiers(Variant.parse(variant))
    out = np.full(found.size(ply), NO_POSITION, dtype=np.uint8)  # no legal board yet
    most = max((rows.count for _file, rows in chunks), default=0)
    room = [np.empty(most, dtype=dtype) for _name, dtype in STORED_COLUMNS[:ROW_COLUMNS]]
    for chunk_file, rows in chunks:
        columns = [column[: rows.count] for column in room]
        read_columns = STORED_COLUMNS[:ROW_COLUMNS]
        spans = zip(read_columns, columns, rows.starts[:ROW_COLUMNS], rows.crcs[:ROW_COLUMNS], strict=True)
        for (column, _dtype), read, start, crc in spans:
            storage.read_into(chunk_file, start, read)
            where = f" (its {rows.count:,} rows' {column} column)"
            check_crc(storage, chunk_file, where, checksums.crc32(read.data), crc)
        code, value, remoteness = columns
        spread_results(found, ply, code, result_bytes(value, remoteness), out)
    with storage.create(name) as file:
        return write_pieces(file, [out])


def range_tasks(
    storage: Storage,
    files: Sequence[str],
    exchanged: Sequence[Exchange],
    bounds: Sequence[int],
    ranges: Sequence[str],
    variant: str,
    ply: int,
) -> tuple[Callable[..., int], list[tuple[Any, ...]]]:
    """The range tasks of tier ``ply`` of ``variant`` cut at ``bounds``, whose chunk files
    ``files`` hold what their tasks returned as ``exchanged`` (:func:`write_exchange`): the
    function and its calls, each writing the range file of ``ranges``."""
    if one_range(bounds):  # the tasks wrote what write_exchange chose for these bounds
        return spread_range, [(storage, list(zip(files, cast(Sequence[Rows], exchanged))), variant, ply, ranges[0])]
    groups = cast(Sequence[Groups], exchanged)
    return gather_range, [
        (storage, [group.group(file, r) for file, group in zip(files, groups)], bounds[r + 1] - bounds[r], ranges[r])
        for r in range(len(ranges))
    ]


def below_bytes(storage: Storage, below: Below | None) -> np.ndarray | None:
    """The tier below's result bytes (None for the last tier), mapped. Checked against the
    CRC-32 of their join once in a process, not by each of its tasks: a tier's result bytes
    can be gigabytes, and a file written again since (another size or time) is checked again."""
    if below is None:
        return None
    name, crc = below
    mapped = storage.mapped(name, np.uint8)
    key = f"{storage.path(name)} {storage.version(name)} {crc}"
    with _checked_lock:
        if key not in _checked:
            check_crc(storage, name, "", checksums.crc32(mapped.data), crc, "the join")
            _checked.add(key)
    return mapped


def check_crc(storage: Storage, name: str, where: str, found: int, written: int, writer: str = "its task") -> None:
    """EngineError if the CRC-32 ``found`` of file ``name``'s bytes ``where`` is not the one its
    writer returned (``written``): the file changed since it was written."""
    if found != written:
        raise EngineError(
            f"{storage.path(name)}{where} holds other bytes than {writer} wrote (CRC-32 {found:08x}, not {written:08x})"
        )


def join_ranges(
    storage: Storage,
    names: Sequence[str],
    bounds: Sequence[int],
    crcs: Sequence[int],
    path: str,
    block: int = checksums.READ,
) -> int:
    """Append the range files ``names`` of ``storage`` (in rank order; range ``r`` holds the
    ranks ``bounds[r]`` to ``bounds[r + 1]``, a byte each, and its task returned their CRC-32
    ``crcs[r]``) and one more :data:`NO_POSITION` byte (see
    :func:`ttt_solver.solver.passes.new_tier`) into a new local file at ``path``, ``block``
    bytes at a time: the tier's result bytes, closed (not synced: the caller syncs what it
    keeps); their CRC-32, which the next tier's tasks check (:func:`below_bytes`). EngineError for a range file of another length or CRC-32 (cut or damaged since its
    task wrote it): the tier is not recorded, and a rerun solves it again. One range file in
    the folder of ``path`` is checked and renamed, not copied (:func:`_renamed`)."""
    if len(names) == 1 and storage.is_folder(os.path.dirname(path)):
        return _renamed(storage, names[0], bounds[1] - bounds[0], crcs[0], path)
    joined = 0
    with open(path, "wb") as out:
        for name, first, last, written in zip(names, bounds[:-1], bounds[1:], crcs, strict=True):
            copied = crc = 0
            with storage.open(name) as file:
                while data := file.read(block):
                    out.write(data)
                    copied += len(data)
                    crc = checksums.crc32(data, crc)
                    joined = checksums.crc32(data, joined)
            _check_length(storage, name, copied, last - first)
            check_crc(storage, name, "", crc, written)
        out.write(_END)
    return checksums.crc32(_END, joined)


def _renamed(storage: Storage, name: str, size: int, written: int, path: str) -> int:
    """:func:`join_ranges` of the one range file ``name`` of ``size`` bytes (CRC-32 ``written``)
    in the folder of ``path``: checked, renamed to ``path`` and the last byte appended. An
    in-process build's every tier: 3x6k4's 86.6 million result bytes copied cost 0.15 s of CPU."""
    _check_length(storage, name, os.path.getsize(storage.path(name)), size)
    # Hashed through a mapping, not checksums.file_crc: its 4 MB reads would exceed a small
    # budget (verify's proof runs this pipeline at 1 MB).
    check_crc(storage, name, "", checksums.crc32(storage.mapped(name, np.uint8).data), written)
    os.replace(storage.path(name), path)
    with open(path, "ab") as out:
        out.write(_END)
    return checksums.crc32_combine(written, checksums.crc32(_END), len(_END))


def _check_length(storage: Storage, name: str, found: int, size: int) -> None:
    """EngineError if range file ``name`` holds ``found`` bytes, not the ``size`` its task wrote."""
    if found != size:
        raise EngineError(f"{storage.path(name)} holds {found:,} bytes, not the {size:,} its task wrote")
