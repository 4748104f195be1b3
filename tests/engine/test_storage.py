"""Where a distributed build's tasks exchange files (``--storage``, ttt_solver/engine/storage.py):
a folder, an fsspec URL (``file://``), or S3 (a moto server standing in for it). A build through
each has the rows and digest of the single-process build, goes on after a stop from what it
left there, and leaves nothing there once done; a storage it cannot use is one line, before
anything is solved."""

from __future__ import annotations

import os
import re
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from support import calls
from support import extra_markers as extras
from support.stored_rows import digest, rows

from ttt_solver.builder.build import build
from ttt_solver.cli import cli
from ttt_solver.engine.storage import Storage, build_storage, cache_folder, drop_cached
from ttt_solver.errors import EngineError
from ttt_solver.game.variant import Variant

extras.need("dask", "dask.distributed")

from ttt_solver.engine import engine_dask  # after the skip without the extra
from ttt_solver.engine.engine_dask import DaskEngine

pytestmark = pytest.mark.dask
NAME = "3x4k3"


def files_in(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*") if path.is_file())


@pytest.fixture(params=["folder", "url"])
def storage(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Storage:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the test's own cache folder (Storage.mapped)
    root = tmp_path / "storage"
    return Storage(f"file://{root}" if request.param == "url" else str(root))


def test_a_storage_writes_reads_maps_copies_and_removes_files(storage, tmp_path):
    data = np.arange(1000, dtype="<i8")
    with storage.create("a/b/data.bin") as file:
        data.tofile(file)
    assert np.array_equal(storage.read("a/b/data.bin", "<i8", 80, 10), data[10:20])
    assert storage.read("a/b/data.bin", "<i8", 0, 0).size == 0
    into = np.zeros(12, dtype="<i8")
    storage.read_into("a/b/data.bin", 40, into[1:11])  # into memory the caller keeps
    assert np.array_equal(into, np.concatenate(([0], data[5:15], [0])))
    storage.read_into("a/b/data.bin", 0, into[:0])
    local = tmp_path / "local"
    local.mkdir()
    assert np.array_equal(storage.mapped("a/b/data.bin", "<i8", 800, 100, str(local)), data[100:200])
    assert np.array_equal(storage.mapped("a/b/data.bin", "<i8", 8, None, str(local)), data[1:])
    assert storage.mapped("a/b/data.bin", "<i8", 8, 0, str(local)).size == 0
    assert np.array_equal(storage.mapped("a/b/data.bin", np.uint8), data.view(np.uint8))  # whole, kept
    with storage.working("c/shard.sqlite") as path:  # a file made at a local path
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE t (x)")
        db.close()
    with storage.working("c/shard.sqlite", fetch=True) as path:  # fetched, changed, put back
        with sqlite3.connect(path) as db:
            db.execute("INSERT INTO t VALUES (7)")
        db.close()
    storage.get("c/shard.sqlite", str(tmp_path / "got" / "shard.sqlite"))
    with sqlite3.connect(tmp_path / "got" / "shard.sqlite") as db:
        assert db.execute("SELECT x FROM t").fetchall() == [(7,)]
    db.close()
    with storage.working("d") as folder:  # a folder made at a local path, its files put whole
        os.makedirs(folder, exist_ok=True)
        Path(folder, "x.bin").write_bytes(b"xyz")
    with storage.open("d/x.bin") as file:
        assert file.read() == b"xyz"
    storage.put(str(tmp_path / "got" / "shard.sqlite"), "e.sqlite")
    with storage.open("e.sqlite") as file:
        assert file.read(16) == b"SQLite format 3\0"
    root = tmp_path / "storage"
    assert files_in(root) == ["a/b/data.bin", "c/shard.sqlite", "d/x.bin", "e.sqlite"]
    storage.remove("a")
    storage.remove("e.sqlite")
    storage.remove("nothing-there")
    assert files_in(root) == ["c/shard.sqlite", "d/x.bin"]
    storage.remove_all(["c/shard.sqlite", "d"])  # a file and a folder, in one call at a URL
    storage.remove_all([])
    assert files_in(root) == []
    storage.clear()  # not removable: kept
    assert root.is_dir()
    Storage(storage.root, removable=True).clear()
    assert not root.exists()


def test_a_whole_file_at_a_url_is_downloaded_once_a_machine_and_again_when_written_again(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # this test's own cache folder
    storage = Storage(f"file://{tmp_path}/storage")
    for content in (b"first", b"again"):  # the same name and size, written again
        with storage.create("tier-03/results.bin") as file:
            file.write(content)
        os.utime(tmp_path / "storage" / "tier-03" / "results.bin", (0, len(content) + (content == b"again")))
        assert storage.mapped("tier-03/results.bin", np.uint8).tobytes() == content
        assert storage.mapped("tier-03/results.bin", np.uint8).tobytes() == content  # kept
    cache = Path(cache_folder())
    assert [p.read_bytes() for p in cache.glob("*.bin")] == [b"again"]  # the last one only
    drop_cached()  # what a build does once its tiers are solved
    assert list(cache.glob("*.bin")) == []


def test_a_build_storage_is_the_scratch_folder_or_a_prefix_of_its_own(tmp_path):
    assert build_storage(None, str(tmp_path), NAME).root == str(tmp_path)
    assert build_storage(None, f"{tmp_path}/", NAME).is_folder(str(tmp_path))
    assert not build_storage(str(tmp_path), str(tmp_path), NAME).is_folder(str(tmp_path))  # a prefix in it
    assert not Storage(f"file://{tmp_path}").is_folder(str(tmp_path))  # a URL: copies go through fsspec
    own = build_storage("s3://bucket/builds/", str(tmp_path), NAME)
    again = build_storage("s3://bucket/builds", str(tmp_path), NAME)
    other = build_storage("s3://bucket/builds", str(tmp_path / "other"), NAME)
    assert own.root == again.root != other.root and own.removable
    assert own.root.startswith(f"s3://bucket/builds/{NAME}-")
    assert build_storage("relative", str(tmp_path), NAME).root.startswith(os.path.abspath("relative") + "/")


def test_a_storage_read_past_its_end_is_an_error(storage):
    with storage.create("short.bin") as file:
        file.write(b"1234")
    with pytest.raises(EngineError, match="ends before byte 8"):
        storage.read("short.bin", np.uint8, 0, 8)
    with pytest.raises(EngineError, match="ends before byte 8"):
        storage.read_into("short.bin", 2, np.zeros(6, dtype=np.uint8))
    with pytest.raises(EngineError, match="ends before byte 8"):
        storage.mapped("short.bin", np.uint8, 0, 8, str(storage.root).removeprefix("file://"))
    with pytest.raises(EngineError, match="ends before byte 8"):
        list(storage.pieces("short.bin", 0, 8, memoryview(bytearray(3))))


def test_a_storage_reads_bytes_in_pieces_through_the_callers_buffer_in_a_folder(storage):
    data = bytes(range(256)) * 40
    with storage.create("f.bin") as file:
        file.write(data)
    buffer = memoryview(bytearray(1000))
    pieces = [bytes(piece) for piece in storage.pieces("f.bin", 100, 9000, buffer)]
    assert b"".join(pieces) == data[100:9100]
    assert [len(piece) for piece in pieces] == ([9000] if storage.is_url else [1000] * 9)  # a URL: one request
    assert list(storage.pieces("f.bin", 5, 0, buffer)) == []


@pytest.mark.parametrize("command", ["build", "verify"])
@pytest.mark.parametrize(
    "root, said",
    [
        ("nope://x/y", "cannot use the storage at 'nope://x/y': Protocol not known: nope"),
        (
            "{tmp}/a-file/below",
            (
                "cannot use the storage at '{tmp}/a-file/below': '{tmp}/a-file' is a file, where a folder is needed"
                " for '{tmp}/a-file/below': move it away or choose another path"
            ),
        ),
    ],
)
def test_a_storage_the_engine_cannot_use_is_one_line_and_nothing_is_solved(
    dask_client, variant_db, tmp_path, root, said, command
):
    (tmp_path / "a-file").write_text("not a folder")
    target = tmp_path / "x.sqlite" if command == "build" else variant_db(NAME)
    args = [command, "--variant", NAME, "--db", str(target), "--engine", "dask",
            "--address", dask_client.scheduler.address, "--storage", root.format(tmp=tmp_path)]  # fmt: skip
    result = CliRunner().invoke(cli, args)
    assert (result.exit_code, result.stdout) == (1, ""), result.output
    assert result.stderr.startswith(f"Error: {said.format(tmp=tmp_path)}"), result.output
    assert len(result.stderr.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]
    with pytest.raises(EngineError, match=re.escape(said.format(tmp=tmp_path))):  # the same from Python
        DaskEngine(client=dask_client, storage=root.format(tmp=tmp_path)).__enter__()


def test_storage_needs_an_engine(tmp_path):
    result = CliRunner().invoke(cli, ["build", "--db", str(tmp_path / "x.sqlite"), "--storage", str(tmp_path)])
    assert result.exit_code == 2 and result.stderr.strip() == "Error: --storage needs --engine"
    assert list(tmp_path.iterdir()) == []


def build_through(client: object, target: Path, root: str, count: int = 2, name: str = NAME, **options: object) -> None:
    with DaskEngine(client=client, storage=root) as engine:  # type: ignore[arg-type]
        build(target, Variant.parse(name), memory=1 << 20, engine=engine, shards=count, **options)  # type: ignore[arg-type]


@pytest.mark.parametrize("url", [False, True], ids=["folder", "url"])
def test_a_build_through_a_storage_has_the_rows_and_digest_of_one_process(
    dask_client, variant_db, tmp_path, url, monkeypatch
):
    monkeypatch.setattr(engine_dask, "drop_cached", calls.counted)  # each machine's cache, once the tiers are solved
    calls.CALLS.clear()
    shared = tmp_path / "shared"
    target = tmp_path / "db" / f"{NAME}.sqlite"
    target.parent.mkdir()
    build_through(dask_client, target, f"file://{shared}" if url else str(shared), 3)
    single = variant_db(NAME)
    assert rows(target) == rows(single) and digest(target) == digest(single)
    assert files_in(shared) == []  # the build's prefix removed
    assert sorted(p.name for p in target.parent.iterdir()) == [f"{NAME}.sqlite", f"{NAME}.sqlite.shards"]
    assert calls.CALLS == ([os.getpid()] if url else [])  # and on the workers (client.run)


class Stop(Exception):
    pass


def test_a_build_stopped_while_writing_shards_goes_on_from_those_in_the_storage(dask_client, variant_db, tmp_path):
    shared = tmp_path / "shared"
    target = tmp_path / f"{NAME}.sqlite"

    def stop_after_a_shard(rows: int, _total: int) -> None:
        if rows:
            raise Stop

    with pytest.raises(Stop):
        build_through(dask_client, target, f"file://{shared}", writing=stop_after_a_shard)
    while any(dask_client.processing().values()):  # the other shard's task, left running, finishes
        time.sleep(0.01)
    shards = sorted(shared.glob(f"*/{NAME}.sqlite.shards/*.sqlite"))
    assert len(shards) == 2 and not target.exists()
    lines: list[str] = []
    build_through(dask_client, target, f"file://{shared}", progress=lines.append)
    said = "\n".join(lines)
    assert len(re.findall(r"resumed \S+\.sqlite in .* after its first [\d,]+ rows", said)) == 2, said
    assert "proved the resumed database whole" in said
    assert rows(target) == rows(variant_db(NAME)) and files_in(shared) == []


@pytest.fixture(scope="module")
def s3(dask_client: object) -> Iterator[str]:
    """A bucket on a moto server standing in for S3 (this process and the workers reach it)."""
    extras.need("s3", "s3fs")
    extras.need("s3", "moto.server")
    from support.s3_stand_in import s3_bucket

    with s3_bucket(dask_client, "ttt-test") as url:
        yield url


@pytest.mark.s3
def test_a_build_through_s3_has_the_rows_and_digest_of_one_process(dask_client, variant_db, tmp_path, s3):
    import fsspec

    target = tmp_path / "2x3.sqlite"  # a small board: every file is a request to the stand-in's HTTP server
    build_through(dask_client, target, f"{s3}/builds", name="2x3")
    single = variant_db("2x3")
    assert rows(target) == rows(single) and digest(target) == digest(single)
    assert fsspec.filesystem("s3", skip_instance_cache=True).find(s3) == []  # the build's prefix removed
    with pytest.raises(EngineError) as refused:  # what the build says before it starts (the CLI's line: above)
        Storage("s3://no-such-bucket/x").check()
    assert str(refused.value) == (
        "cannot use the storage at 's3://no-such-bucket/x': FileNotFoundError: The specified bucket does not exist"
    )


@pytest.mark.s3
def test_verify_through_s3_says_what_one_process_says(dask_client, variant_db, s3):
    import fsspec

    base = ["verify", "--variant", "2x3", "--db", str(variant_db("2x3")), "--quiet"]
    single = CliRunner().invoke(cli, base)
    through = CliRunner().invoke(
        cli, [*base, "--engine", "dask", "--address", dask_client.scheduler.address, "--storage", f"{s3}/verify"]
    )
    assert (through.exit_code, through.stdout) == (single.exit_code, single.stdout) == (0, single.stdout)
    assert "every row is a canonical legal position" in through.stdout
    assert fsspec.filesystem("s3", skip_instance_cache=True).find(s3) == []  # the verify's prefix removed
