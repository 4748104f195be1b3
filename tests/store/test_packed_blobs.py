"""The packing of an array into a blob of the ``packed`` table, and its unpacking: the unpacking
inverts the packing whatever the pieces it was packed from and whatever the pieces it is read
back in. A shard's task relies on it: it checks that the blobs it stored are the blobs it
packed, not that they unpack to its rows (``ttt_solver.builder.shard_write``)."""

from __future__ import annotations

import itertools
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import extra_markers as extras

from ttt_solver.store import deflate
from ttt_solver.store.content import PACKED, pack_pieces, unpack_pieces

DTYPES = dict(PACKED)


@st.composite
def arrays(draw: st.DrawFn) -> tuple[str, np.ndarray]:
    name = draw(st.sampled_from(sorted(DTYPES)))
    dtype = np.dtype(DTYPES[name])
    count = draw(st.integers(0, 300))
    if name == "code":  # ascending canonical codes, up to 3**25: stored as differences
        steps = draw(st.lists(st.integers(1, 3**20), min_size=count, max_size=count))
        values = np.cumsum(np.array(steps, dtype=np.int64)) + draw(st.integers(0, 3**20))
    else:
        info = np.iinfo(dtype)
        values = np.array(draw(st.lists(st.integers(int(info.min), int(info.max)), min_size=count, max_size=count)))
    return name, values.astype(dtype)


@settings(max_examples=200, deadline=None)
@given(arrays(), st.lists(st.integers(1, 64), max_size=8), st.integers(1, 97))
def test_unpacking_inverts_the_packing_whatever_the_pieces(array, cuts, rows):
    name, values = array
    bounds = sorted({0, len(values), *(min(cut, len(values)) for cut in np.cumsum(cuts).tolist())})
    pieces = [values[low:high] for low, high in itertools.pairwise(bounds)]
    blob = pack_pieces(name, DTYPES[name], pieces)
    unpacked = b"".join(unpack_pieces(name, blob, rows))
    assert unpacked == values.tobytes()
    assert all(len(piece) <= rows * values.itemsize for piece in unpack_pieces(name, blob, rows))


@settings(max_examples=100, deadline=None)
@given(arrays(), st.integers(1, 8))
def test_a_blob_cut_short_is_an_error_not_a_shorter_array(array, cut):
    name, values = array
    blob = pack_pieces(name, DTYPES[name], [values])
    with pytest.raises((zlib.error, ValueError)):
        b"".join(unpack_pieces(name, blob[: max(0, len(blob) - cut)]))


@pytest.mark.parametrize("library", ["zlib", pytest.param("isal.isal_zlib", marks=pytest.mark.fast)])
def test_either_compressor_packs_blobs_that_zlib_unpacks(library, monkeypatch):
    """The parts are packed by ISA-L's deflate where it is installed (the [fast] extra), else by
    zlib's: the same zlib format, which the reader unpacks with zlib either way."""
    module = pytest.importorskip(library, reason=extras.reason("fast"))
    monkeypatch.setattr(deflate, "LIBRARY", module)
    rng = np.random.default_rng(7)
    for name, dtype in PACKED:
        if name == "code":
            values = np.cumsum(rng.integers(1, 3**6, 50_000)).astype(dtype)
        else:
            values = rng.integers(0, 16, 50_000).astype(dtype)
        blob = pack_pieces(name, dtype, [values[:20_000], values[20_000:]])
        raw = np.diff(values, prepend=values.dtype.type(0)).astype(dtype) if name == "code" else values
        assert blob == module.compress(raw.tobytes(), deflate.LEVEL), name  # the library's own blob
        assert b"".join(unpack_pieces(name, blob)) == values.tobytes(), name


@pytest.mark.fast
def test_isal_packs_where_it_is_installed():
    isal_zlib = pytest.importorskip("isal.isal_zlib", reason=extras.reason("fast"))
    assert deflate.LIBRARY is isal_zlib
