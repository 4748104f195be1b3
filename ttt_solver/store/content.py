"""What the database holds, independent of how it is stored: columns, packed arrays, digest.

The content digest is SHA-256 over the solution's arrays (:data:`PACKED`, little-endian, in
that order), never over formatted text or file bytes: it costs a few milliseconds even for
4x4, so every in-memory load checks it. The ``packed`` table stores them compressed. Everything else the ``positions`` table holds (``board``,
``ply``, ``to_move``, ``best_moves``, ``winner``) follows from the code and these arrays, and
``ttt-lookup verify`` checks that it does.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from .. import board as rules
from . import SCHEMA_VERSION

if TYPE_CHECKING:
    import numpy as np

    from ..solve import Tables

# CPython's built-in SHA-256 module loads in about 1 ms, hashlib's OpenSSL binding in about
# 10 ms; the same algorithm and digest.
if TYPE_CHECKING:
    from hashlib import sha256
else:
    try:
        from _sha256 import sha256  # CPython 3.11
    except ImportError:  # pragma: no cover - other versions and interpreters
        try:
            from _sha2 import sha256  # CPython 3.12+
        except ImportError:
            from hashlib import sha256

# The solution as arrays: (name, numpy dtype), the order the digest hashes them in.
PACKED = (
    ("code", "<i8"), ("value", "i1"), ("remoteness", "i1"), ("best", "<u2"),
    ("orbit", "i1"), ("wins", "u1"), ("draws", "u1"), ("losses", "u1"),
)  # fmt: skip


def digest(variant_name: str, arrays: Mapping[str, bytes]) -> str:
    """SHA-256 of the arrays of one variant (raw, as :func:`unpack_blob` returns them)."""
    found = sha256(f"ttt-solver schema {SCHEMA_VERSION} variant {variant_name}\n".encode())
    for name, dtype in PACKED:
        found.update(f"{name} {dtype} {len(arrays[name])}\n".encode())
        found.update(arrays[name])
    return found.hexdigest()


def packed_arrays(tables: Tables) -> dict[str, bytes]:
    """The raw arrays of solved tables, by :data:`PACKED` name."""
    return {
        name: getattr(tables, name if name != "code" else "codes").astype(dtype).tobytes() for name, dtype in PACKED
    }


def pack_blob(name: str, raw: bytes) -> bytes:
    """How an array is stored: zlib-compressed, the ascending codes as differences (19.5 MB of
    4x4 arrays take 2.8 MB, and a load decompresses them in milliseconds)."""
    import zlib

    if name == "code":
        import numpy as np

        codes = np.frombuffer(raw, dtype="<i8")
        raw = np.diff(codes, prepend=np.int64(0)).astype("<i8").tobytes()
    return zlib.compress(raw, 1)


def unpack_blob(name: str, blob: bytes) -> bytes:
    """:func:`pack_blob` undone (zlib.error or ValueError if the blob is damaged)."""
    import zlib

    raw = zlib.decompress(blob)
    if name == "code":
        import numpy as np

        raw = np.cumsum(np.frombuffer(raw, dtype="<i8"), dtype=np.int64).astype("<i8").tobytes()
    return raw


def best_labels(best: np.ndarray) -> list[str]:
    """Each best-move mask as the ``best_moves`` text, e.g. ``"0,4,8"`` (``""`` for none): the
    label of each distinct mask is put together from the labels of its two bytes."""
    import numpy as np

    halves = [
        [",".join(str(base + cell) for cell in range(8) if byte >> cell & 1) for byte in range(256)] for base in (0, 8)
    ]
    masks, which = np.unique(best, return_inverse=True)
    labels = []
    for mask in masks.tolist():
        low, high = halves[0][mask & 255], halves[1][mask >> 8]
        labels.append(f"{low},{high}" if low and high else low or high)
    return np.array(labels, dtype=object)[which.ravel()].tolist()  # type: ignore[no-any-return]


def winners(tables: Tables) -> np.ndarray:
    """Object array: X or O on a finished won board, None elsewhere. A finished game with a
    nonzero value was won: by the side to move when the value is +1 (misère), else by the
    player who just moved."""
    import numpy as np

    parity = tables.ply % 2  # 0: X to move
    won = (tables.remoteness == 0) & (tables.value != 0)
    index = np.where(won, np.where(tables.value > 0, parity, 1 - parity) + 1, 0)
    return np.array([None, rules.X, rules.O], dtype=object)[index]


BLOCK = 65_536  # rows made and written at a time: bounds the memory of the row objects


def position_blocks(tables: Tables) -> Iterator[list[list[Any]]]:
    """The ``positions`` rows, a block at a time, column by column in :data:`POSITION_COLUMNS`
    order, in code order."""
    import numpy as np

    from ..codec import decode_texts

    variant = tables.variant
    marks = np.array([rules.X, rules.O], dtype=object)
    won = winners(tables)
    labels = np.array(best_labels(tables.best), dtype=object)
    for start in range(0, len(tables), BLOCK):
        part = slice(start, start + BLOCK)
        yield [
            tables.codes[part].tolist(),
            decode_texts(tables.codes[part], variant),
            tables.ply[part].tolist(),
            marks[tables.ply[part] % 2].tolist(),
            tables.value[part].tolist(),
            tables.remoteness[part].tolist(),
            labels[part].tolist(),
            tables.wins[part].tolist(),
            tables.draws[part].tolist(),
            tables.losses[part].tolist(),
            tables.orbit[part].tolist(),
            won[part].tolist(),
        ]


def move_blocks(tables: Tables) -> Iterator[list[list[Any]]]:
    """The ``moves`` rows, a block at a time, column by column in :data:`MOVE_COLUMNS` order."""
    from ..solve import move_table

    parent, cells, value, remoteness = move_table(tables)
    codes = tables.codes[parent]
    for start in range(0, len(codes), BLOCK):
        part = slice(start, start + BLOCK)
        yield [codes[part].tolist(), cells[part].tolist(), value[part].tolist(), remoteness[part].tolist()]


def move_count(tables: Tables) -> int:
    """How many rows the moves table would have: one per empty cell of each unfinished position."""
    live = tables.remoteness > 0
    return int((tables.variant.cells - tables.ply[live].astype("int64")).sum())
