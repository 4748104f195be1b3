"""``verify --engine dask``: the whole-table proof with each tier's chunks as tasks on a local
cluster of 2 workers (``dask_client`` of conftest) reports exactly what the single-process
proof reports, on sound databases and on damaged copies, and writes nothing but temporary
files, removed after."""

from __future__ import annotations

import os
import socket
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from support import calls, write_spy
from support import extra_markers as extras
from support.damage import copy_with, set_number

from ttt_solver.audit.report import Report
from ttt_solver.audit.verify import verify_source
from ttt_solver.cli import cli
from ttt_solver.game import array_rules, codec
from ttt_solver.game.variant import Variant
from ttt_solver.lookup.rows import DatabaseRows
from ttt_solver.store import Target
from ttt_solver.store.reader import Reader
from ttt_solver.store.row_data import BEST_SHIFT

extras.need("dask", "dask.distributed")  # the module is skipped without the extra
from ttt_solver.engine import engine_dask  # after the skip without the extra
from ttt_solver.engine.engine_dask import DaskEngine

pytestmark = pytest.mark.dask
# A budget of chunks of 409 boards on 3x3 and 6,553 on 3x4k3: up to 5 and 6 tasks a tier.
MEMORY = {"3x3": 1 << 16, "3x4k3": 1 << 20}


def not_canonical(variant: Variant) -> int:
    """The code of a legal board with one X that is not its orbit's canonical code."""
    for cell in range(variant.cells):
        code = codec.encode("." * cell + "X" + "." * (variant.cells - cell - 1))
        if int(array_rules.canonical_codes([code], variant)[0]) != code:
            return code
    raise AssertionError(f"every one-X board of {variant} is canonical")


def damages(variant: Variant) -> dict[str, list[str]]:
    """SQL that damages a copy, by kind: a changed value, remoteness, best move (each in its
    own row of the middle tier), a missing and an extra row."""
    row = "(SELECT code FROM positions WHERE ply = {ply} ORDER BY code LIMIT 1 OFFSET {offset})"

    def at(offset: int) -> str:
        return row.format(ply=variant.cells // 2, offset=offset)

    best = f"((data >> {BEST_SHIFT}) | 1) - ((data >> {BEST_SHIFT}) & 1)"
    return {
        "value": [f"UPDATE positions SET {set_number('value', '(value + 2) % 3 - 1')} WHERE code = {at(10)}"],
        "remoteness": [f"UPDATE positions SET {set_number('remoteness', 'remoteness + 1')} WHERE code = {at(30)}"],
        "best": [f"UPDATE positions SET {set_number('best', best)} WHERE code = {at(50)}"],
        "missing": [f"DELETE FROM positions WHERE code = {at(70)}"],
        "extra": [f"INSERT INTO positions (code, data) VALUES ({not_canonical(variant)}, 1)"],
    }


def cases(name: str) -> dict[str, list[str]]:
    """The copies compared: a sound one, and on 3x3 each damage alone; on 3x4k3 (bigger, and
    slower to prove) all five at once."""
    found = damages(Variant.parse(name))
    if name == "3x3":
        return {"sound": [], **found}
    return {"sound": [], "all five": [statement for statements in found.values() for statement in statements]}


def verify(path: Path, variant: Variant, engine: DaskEngine | None = None) -> Report:
    with Reader(Target.parse(path), variant.name) as reader:
        return verify_source(DatabaseRows(reader, variant), MEMORY[variant.name], engine=engine)


@pytest.mark.parametrize("name", ["3x3", "3x4k3"])
def test_verify_on_two_workers_reports_what_one_process_reports(dask_client, variant_db, tmp_path, name):
    variant = Variant.parse(name)
    for kind, statements in cases(name).items():
        folder = tmp_path / kind.replace(" ", "-")
        folder.mkdir()
        copy = copy_with(variant_db(name), folder, *statements)
        single = verify(copy, variant)
        with DaskEngine(client=dask_client) as engine:
            spread = verify(copy, variant, engine)
        assert spread.text() == single.text(), kind
        assert (spread.to_dict(), spread.bad, spread.found) == (single.to_dict(), single.bad, single.found), kind
        assert single.ok == (kind == "sound"), (kind, single.contradictions)
        assert kind != "all five" or len(single.contradictions) >= 5, single.contradictions


def test_the_command_line_verifies_on_a_running_cluster_and_writes_nothing(
    dask_client, variant_db, tmp_path, monkeypatch
):
    variant = Variant.parse("3x4k3")
    copy = copy_with(variant_db("3x4k3"), tmp_path, *damages(variant)["remoteness"])
    before = copy.read_bytes(), copy.stat().st_mtime_ns
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    base = ["verify", "--variant", "3x4k3", "--db", str(copy), "--memory", "1M", "--quiet"]
    single = CliRunner().invoke(cli, base)
    spread = CliRunner().invoke(cli, [*base, "--engine", "dask", "--address", dask_client.scheduler.address])
    assert (spread.exit_code, spread.stdout, spread.stderr) == (single.exit_code, single.stdout, single.stderr)
    assert spread.exit_code == 1 and "remoteness not what the children imply" in spread.stdout
    assert (copy.read_bytes(), copy.stat().st_mtime_ns) == before
    assert list(temporary.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy.sqlite", "tmp"]


@pytest.mark.parametrize("url", [False, True], ids=["folder", "url"])
def test_verify_through_a_storage_reports_what_one_process_reports_and_leaves_nothing(
    dask_client, variant_db, tmp_path, url, monkeypatch
):
    """``--storage``: the tasks read the tiers' rows and write their files in another folder,
    or at a URL (``file://``: fsspec's every code path of a URL, without a network)."""
    monkeypatch.setattr(engine_dask, "drop_cached", calls.counted)  # the machines' copies, once proved
    calls.CALLS.clear()
    variant = Variant.parse("3x4k3")
    copy = copy_with(variant_db("3x4k3"), tmp_path, *cases("3x4k3")["all five"])
    single = verify(copy, variant)
    temporary, shared = tmp_path / "tmp", tmp_path / "shared"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    with DaskEngine(client=dask_client, storage=f"file://{shared}" if url else str(shared)) as engine:
        spread = verify(copy, variant, engine)
    assert spread.text() == single.text() and spread.bad == single.bad and not single.ok
    assert [p for p in shared.rglob("*") if p.is_file()] == [] and list(temporary.iterdir()) == []
    assert calls.CALLS == ([os.getpid()] if url else [])  # and on the workers (client.run)


def test_every_temporary_file_of_verify_has_one_writer(dask_client, db_path, tmp_path, monkeypatch):
    """As in the build (tests/engine/test_engine_dask.py): the temporary folder may be on a file
    system shared by several machines."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    variant = Variant.parse("3x3")
    with write_spy.spying(dask_client, str(tmp_path)) as writes, DaskEngine(client=dask_client) as engine:
        assert verify(db_path, variant, engine).ok
    assert writes.shared() == {}
    assert len({task for _path, task in writes.by_tasks()}) > 20  # 3x3 at 64K: up to 5 chunks a tier, and the ranges


@pytest.mark.parametrize(
    "options, message",
    [
        (["--workers", "2"], "Error: --workers needs --engine\n"),
        (["--address", "tcp://127.0.0.1:8786"], "Error: --address needs --engine\n"),
        (["--engine", "dask", "--workers", "2", "--address", "tcp://127.0.0.1:8786"], "give one of them\n"),
        (["--engine", "ray"], "Error: invalid --engine 'ray': expected dask\n"),
        (["--engine", "dask", "--workers", "0"], "Error: invalid --workers '0': expected a whole number from 1"),
        (["--storage", "/tmp/x"], "Error: --storage needs --engine\n"),
    ],
)
def test_engine_options_out_of_place_are_one_line_and_exit_2(db_path, options, message):
    result = CliRunner().invoke(cli, ["verify", "--db", str(db_path), *options])
    assert (result.exit_code, result.stdout, result.stderr.count("\n")) == (2, "", 1), result.output
    assert message in result.stderr


def test_a_scheduler_that_cannot_be_reached_is_one_line_and_exit_1(db_path, monkeypatch):
    from ttt_solver.engine import engine_dask

    monkeypatch.setattr(engine_dask, "CONNECT_SECONDS", 1)
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = CliRunner().invoke(
        cli, ["verify", "--db", str(db_path), "--engine", "dask", "--address", f"127.0.0.1:{port}"]
    )
    assert (result.exit_code, result.stdout, result.stderr.count("\n")) == (1, "", 1), result.output
    assert result.stderr.startswith(f"Error: cannot reach the Dask scheduler at '127.0.0.1:{port}'")
