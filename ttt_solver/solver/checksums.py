"""Checksums of the scratch folder's files: what a finished tier or merge of a build records of each of
its files (its length and a CRC-32), and the check a rerun makes before it reuses them.

CRC-32 (zlib's, about 4 GB/s here, against 0.9 GB/s for the BLAKE2b it replaced, which cost
3x6k4's build about 0.5 s of CPU; ISA-L's, the ``[fast]`` extra's ``isal``, where it is
installed: the same CRC-32 at about 23 GB/s here): what it guards against is a file damaged or cut by a
fault (a crash, a full disk, a flipped byte), never someone forging one, and it catches
every burst of up to 32 flipped bits and all but one in four billion other changes; the
length, recorded beside it, catches a file cut short or grown.

A file's entry is ``[bytes, checksum]``. A file that grows a block at a time (the merged
columns) keeps a :class:`Running` checksum of everything written so far, so that recording it
after each block costs nothing more than the block; a rerun checks the file's first ``bytes``
bytes against it and goes on from there with the same running checksum.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from ..system.fast_zlib import ZLIB

Entry = list[Any]  # [bytes, hex checksum]
READ = 1 << 22  # bytes read at a time while checking


# ``crc32(data, crc=0)``: zlib's CRC-32 of ``data`` continuing ``crc``, by ISA-L where it is installed
# (the same values, about 5x faster: 3x6k4's solve checks and records about 3 GB of files).
crc32: Callable[..., int] = ZLIB.crc32

_POLY = 0xEDB88320  # the CRC-32 polynomial, bit-reversed as zlib's CRC-32 is


def _times(a: int, b: int) -> int:
    """``a * b`` modulo the polynomial, both bit-reversed (zlib's ``multmodp``; ``a`` not 0)."""
    product, bit = 0, 1 << 31
    while True:
        if a & bit:
            product ^= b
            if not a & (bit - 1):
                return product
        bit >>= 1
        b = (b >> 1) ^ _POLY if b & 1 else b >> 1


def _powers() -> list[int]:
    power = [1 << 30]  # x^1
    for _ in range(31):
        power.append(_times(power[-1], power[-1]))
    return power


_X_2N = _powers()  # x^(2^n) modulo the polynomial, n = 0 to 31


def _combined(crc: int, then: int, length: int) -> int:
    """zlib's ``crc32_combine``: the CRC-32 of bytes whose CRC-32 is ``crc`` followed by
    ``length`` bytes whose CRC-32 is ``then``, by its algorithm (``crc`` times x^(8 length))."""
    shift, n = 1 << 31, 3  # x^0; length bytes are 2^3 x length bits
    while length:
        if length & 1:
            shift = _times(_X_2N[n & 31], shift)
        length >>= 1
        n += 1
    return _times(shift, crc) ^ then


# ``crc32_combine(crc, then, length)``: ISA-L's (in C, about 1 us a call) where it is installed, else the above
# (about 0.1 ms a call here, for a length of 1 MB); either way no byte is read again.
crc32_combine: Callable[[int, int, int], int] = getattr(ZLIB, "crc32_combine", _combined)


class Running:
    """The length and checksum of a file's bytes so far."""

    def __init__(self) -> None:
        self.crc = 0
        self.size = 0

    def update(self, data: Any) -> None:
        self.crc = crc32(data, self.crc)
        self.size += memoryview(data).nbytes

    def extend(self, crc: int, size: int) -> None:
        """Count ``size`` more bytes whose CRC-32 is ``crc`` (taken by the caller: not taken again)."""
        self.crc = crc32_combine(self.crc, crc, size)
        self.size += size

    def checksum(self) -> str:
        return _hex(self.crc)

    def entry(self) -> Entry:
        return of_crc(self.size, self.crc)


def of_crc(size: int, crc: int) -> Entry:
    """The entry of a file of ``size`` bytes whose writer took their CRC-32 ``crc`` as it wrote
    them (the file is not read again)."""
    return [size, _hex(crc)]


def _hex(crc: int) -> str:
    return f"{crc:08x}"


def file_crc(path: str) -> int:
    """The CRC-32 of the file at ``path``, read a block at a time."""
    found = Running()
    with open(path, "rb") as file:
        while piece := file.read(READ):
            found.update(piece)
    return found.crc


def read_prefix(path: str, size: int) -> Running | None:
    """The running checksum of the first ``size`` bytes of ``path``; None if it has fewer."""
    found = Running()
    try:
        with open(path, "rb") as file:
            while found.size < size:
                piece = file.read(min(READ, size - found.size))
                if not piece:
                    return None
                found.update(piece)
    except FileNotFoundError:
        return None
    return found


def problem(path: str, entry: Any) -> str | None:
    """What is wrong with the file at ``path`` against its recorded ``entry`` (None: nothing)."""
    if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], int) and isinstance(entry[1], str)):
        return "its record is garbled"
    size, checksum = entry
    try:
        actual = os.path.getsize(path)
    except OSError:
        return "it is missing"
    if actual != size:
        return f"it holds {actual:,} bytes, not the {size:,} recorded"
    found = read_prefix(path, size)
    if found is None or found.checksum() != checksum:
        return "its checksum differs from the one recorded"
    return None
