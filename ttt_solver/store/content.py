"""What the database holds, independent of how it is stored: the packed arrays, the content
digest, and the rows to write (each row's numbers packed by :mod:`.row_data`).

**The packed arrays** (:data:`PACKED`) are the same solution as little-endian arrays in code
order, stored compressed in parts of at most :data:`PART_ROWS` rows, so that an in-memory load
reads a few blobs instead of millions of rows. The **content digest** is SHA-256 over the
SHA-256 of each of those arrays (raw, in :data:`PACKED` order), never over formatted text or
file bytes: it costs a few milliseconds for 4x4, and for 20 cells the arrays are hashed side
by side, a part at a time.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from hashlib import sha256
from typing import TYPE_CHECKING, Any

from . import SCHEMA_VERSION, deflate
from .row_data import BEST_SHIFT, DATA_FIELDS, pack_data

if TYPE_CHECKING:
    import numpy as np

    from ..game.variant import Variant
    from ..solver import Solved, StoredRows


# The solution as arrays: (name, numpy dtype), the order the digest hashes them in.
PACKED = (
    ("code", "<i8"), ("value", "i1"), ("remoteness", "i1"), ("best", "<u4"),
    ("orbit", "i1"), ("wins", "u1"), ("draws", "u1"), ("losses", "u1"),
)  # fmt: skip
PART_ROWS = 1 << 24  # rows per stored part of a packed array (128 MB of codes before compression)


def digest(variant_name: str, arrays: Mapping[str, Any]) -> str:
    """SHA-256 of the arrays of one variant (numpy arrays, memory-mapped or not, or raw bytes),
    read :data:`PART_ROWS` rows at a time."""
    import numpy as np

    def column(name: str, dtype: str) -> tuple[int, Iterator[Any]]:
        array = arrays[name]
        raw = np.frombuffer(array, dtype=dtype) if isinstance(array, bytes | bytearray) else array
        slices = (
            np.ascontiguousarray(raw[start : start + PART_ROWS], dtype=dtype).data
            for start in range(0, len(raw), PART_ROWS)
        )
        return len(raw) * np.dtype(dtype).itemsize, slices

    return digest_stream(variant_name, {name: column(name, dtype) for name, dtype in PACKED})


def digest_stream(variant_name: str, columns: Mapping[str, tuple[int, Iterable[Any]]]) -> str:
    """:func:`digest` of arrays given as ``{name: (bytes in all, their bytes a piece at a
    time)}`` (ValueError if the pieces do not add up). Each array is hashed on its own
    (:func:`array_hash`), and the digest is the hash of those hashes (:func:`digest_of`), so
    that the arrays can be read side by side, a part of each at a time, or each by a task."""
    return digest_of(variant_name, {name: (size, array_hash(pieces)) for name, (size, pieces) in columns.items()})


def array_hash(pieces: Iterable[Any]) -> tuple[int, str]:
    """The bytes of one packed array given a piece at a time, and their SHA-256 (hex)."""
    found, seen = sha256(), 0
    for piece in pieces:
        found.update(piece)
        seen += memoryview(piece).nbytes
    return seen, found.hexdigest()


def digest_of(variant_name: str, hashes: Mapping[str, tuple[int, tuple[int, str]]]) -> str:
    """The digest of the packed arrays from ``{name: (bytes expected, (bytes hashed, their
    SHA-256))}`` (ValueError if an array's bytes are not those expected)."""
    found = sha256(f"ttt-solver schema {SCHEMA_VERSION} variant {variant_name}\n".encode())
    for name, dtype in PACKED:
        size, (seen, hexdigest) = hashes[name]
        if seen != size:
            raise ValueError(f"the packed array {name!r} holds {seen:,} bytes, not {size:,}")
        found.update(f"{name} {dtype} {size} {hexdigest}\n".encode())
    return found.hexdigest()


class Hashes:
    """:func:`digest` of arrays that arrive side by side, a part of each at a time."""

    def __init__(self, variant_name: str) -> None:
        self.variant_name = variant_name
        self.parts = {name: sha256() for name, _dtype in PACKED}
        self.sizes = dict.fromkeys(self.parts, 0)

    def update(self, name: str, raw: Any) -> None:
        self.parts[name].update(raw)
        self.sizes[name] += memoryview(raw).nbytes

    def hexdigest(self) -> str:
        hashes = {name: (self.sizes[name], (self.sizes[name], part.hexdigest())) for name, part in self.parts.items()}
        return digest_of(self.variant_name, hashes)


def packed_arrays(solved: Solved | StoredRows) -> dict[str, np.ndarray]:
    """The arrays of solved positions, by :data:`PACKED` name (views where the dtype matches)."""
    return {name: getattr(solved, name) for name, _dtype in PACKED}


Read = Callable[[Any, int, int], "np.ndarray"]  # (array, start, stop) -> its rows start to stop
PIECE_ROWS = 1 << 20  # rows packed, or unpacked, at a time: bounds the memory of a part's arrays
FEED_BYTES = 1 << 20  # compressed bytes unpacked at a time


def _rows(array: Any, start: int, stop: int) -> np.ndarray:
    return array[start:stop]  # type: ignore[no-any-return]


def packed_parts(
    arrays: Mapping[str, Any], read: Read = _rows, first_part: int = 0, hashes: Hashes | None = None
) -> Iterator[tuple[str, int, str, bytes]]:
    """``(name, part, dtype, blob)`` rows of the ``packed`` table, a part at a time, each made
    from pieces of :data:`PIECE_ROWS` rows read by ``read`` (a memory-mapped array's rows read
    from its file keep its pages out of the process's memory), numbered from ``first_part`` (a
    shard's parts follow the shards before it: :mod:`.shards`). ``hashes``: where each piece's
    raw bytes go too, as they are packed (the digest of these arrays, without reading them again)."""
    for name, dtype in PACKED:
        array = arrays[name]
        for part, start in enumerate(range(0, max(len(array), 1), PART_ROWS), first_part):
            stop = min(len(array), start + PART_ROWS)
            pieces = (read(array, at, min(stop, at + PIECE_ROWS)) for at in range(start, stop, PIECE_ROWS))
            yield name, part, dtype, pack_pieces(name, dtype, pieces, hashes)


def pack_blob(name: str, raw: bytes) -> bytes:
    """How a part of an array is stored: compressed in the zlib format (:mod:`.deflate`), the
    ascending codes as differences (19.5 MB of 4x4 arrays take 2.8 MB, and a load decompresses
    them in milliseconds)."""
    import numpy as np

    dtype = dict(PACKED)[name]
    return pack_pieces(name, dtype, [np.frombuffer(raw, dtype=dtype)])


def pack_pieces(name: str, dtype: str, pieces: Iterable[Any], hashes: Hashes | None = None) -> bytes:
    """:func:`pack_blob` of the concatenation of ``pieces`` (arrays), compressed one after
    another; each piece's raw bytes also hashed into ``hashes`` where given."""

    import numpy as np

    compressor = deflate.compressor()
    out = []
    previous = np.int64(0)
    for piece in pieces:
        raw = np.ascontiguousarray(piece, dtype=dtype)
        if hashes is not None:
            hashes.update(name, raw)
        if name == "code" and len(raw):
            raw, previous = np.diff(raw, prepend=previous).astype("<i8", copy=False), raw[-1]
        out.append(compressor.compress(raw.data))  # the array's own bytes: no copy
    out.append(compressor.flush())
    return b"".join(out)


def unpack_blob(name: str, blob: bytes) -> bytes:
    """:func:`pack_blob` undone (zlib.error or ValueError if the blob is damaged)."""
    return b"".join(unpack_pieces(name, blob))


def unpack_pieces(name: str, blob: bytes, rows: int = PIECE_ROWS) -> Iterator[bytes]:
    """:func:`unpack_blob`, a piece of at most ``rows`` rows at a time (zlib.error if the blob
    is damaged, ValueError if it ends inside a number)."""

    import numpy as np

    size = np.dtype(dict(PACKED)[name]).itemsize
    decompressor = zlib.decompressobj()
    total = np.int64(0)
    left, fed = b"", 0
    data: bytes | memoryview = b""
    view = memoryview(blob)
    while not decompressor.eof:
        if not data and fed < len(blob):  # a slice at a time: the tail left is copied each time
            data, fed = view[fed : fed + FEED_BYTES], fed + FEED_BYTES
        piece = decompressor.decompress(data, rows * size)
        data = decompressor.unconsumed_tail
        if not piece and not data and fed >= len(blob) and not decompressor.eof:
            raise zlib.error("the blob is cut short")
        raw = left + piece
        whole = len(raw) - len(raw) % size
        raw, left = raw[:whole], raw[whole:]
        if name == "code" and raw:
            codes = np.cumsum(np.frombuffer(raw, dtype="<i8"), dtype=np.int64) + total
            raw, total = codes.astype("<i8").tobytes(), codes[-1]
        if raw:
            yield raw
    if left:
        raise ValueError(f"the packed array {name!r} ends inside a number")


BLOCK = 1 << 18  # rows made and written at a time: bounds the memory of the row objects


def position_blocks(solved: Solved | StoredRows, first: int = 0, read: Read = _rows) -> Iterator[np.ndarray]:
    """The ``positions`` rows from row ``first`` on, a block at a time, in code order: int64
    arrays of a row per position, (code, data) (each column's rows read by ``read``), each block
    in the memory of the one before (a caller keeps none). Packed by the solver's compiled loop
    where it is loaded (3x6k4's 20.8 million rows: 0.04 s of CPU against numpy's 0.14 s)."""
    import numpy as np

    from ..solver import pack_rows

    out = np.empty((max(0, min(BLOCK, len(solved.code) - first)), 2), dtype=np.int64)
    for start in range(first, len(solved.code), BLOCK):
        block = solved.__class__(*(read(column, start, start + BLOCK) for column in solved))
        rows = out[: len(block.code)]
        fields = [(getattr(block, name), shift, added) for name, (shift, _bits, added) in DATA_FIELDS.items()]
        if not pack_rows(block.code, block.best, BEST_SHIFT, fields, rows):
            rows[:, 0] = block.code
            rows[:, 1] = pack_data(block)
        yield rows


def move_rows(solved: Solved | StoredRows, variant: Variant) -> Iterator[np.ndarray]:
    """The ``moves`` rows, a block at a time: int64 arrays of a row per move, (code, cell, value,
    remoteness): each move's value and remoteness are its child's row, negated and one ply further."""
    import numpy as np

    from ..game import array_rules

    live = np.flatnonzero(np.asarray(solved.remoteness) > 0)
    step = BLOCK // variant.cells
    for start in range(0, len(live), step):
        codes = np.asarray(solved.code[live[start : start + step]])
        parent, cell, child = array_rules.children(codes, variant)
        index = np.searchsorted(solved.code, child)
        value, remoteness = np.asarray(solved.value[index]), np.asarray(solved.remoteness[index])
        columns = [codes[parent], cell, -value.astype(np.int64), remoteness.astype(np.int64) + 1]
        yield np.column_stack([column.astype(np.int64, copy=False) for column in columns])


def move_count(solved: Solved | StoredRows, variant: Variant) -> int:
    """How many rows the moves table would have: one per empty cell of each unfinished position."""
    import numpy as np

    from ..game import array_rules, codec

    count = 0
    for start in range(0, len(solved.code), BLOCK):
        part = slice(start, start + BLOCK)
        live = np.asarray(solved.remoteness[part]) > 0
        empty = array_rules.digits(np.asarray(solved.code[part])[live], variant) == codec.EMPTY_DIGIT
        count += int(np.count_nonzero(empty))
    return count
