"""A build stopped in each phase, its scratch folder then damaged, and run again: it installs
the clean build's database, or refuses in one line naming the scratch folder (after which
``--force`` builds the clean one); never a wrong database, never a traceback.

Each kind of damage (cut to half, bits flipped, removed, emptied) is applied to each kind of
file the folder holds in that phase (a tier's ``results.bin``, ``value.bin``, ``code.bin`` and
``rows.json``, ``merged/*``, the manifest, the half-written ``database.sqlite``). The builds run
with a small memory budget, so that every tier goes to the folder in several chunks, and with
small blocks of rows, so that a stop while writing leaves some written and some not. The
stopped folders are made once per variant and copied for each case; the reruns call the
library without a moves table and without syncing to disk (both beside the point here, and
most of the time), and one goes through the command line.
"""

from __future__ import annotations

import os
import random
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path

import pytest
from click.testing import CliRunner

from ttt_solver.builder.build import build
from ttt_solver.cli import cli
from ttt_solver.errors import BuildError
from ttt_solver.game.variant import Variant
from ttt_solver.store import content

MEMORY = {"3x4k3": 2 << 20, "3x5k4": 64 << 20}  # merged through files (held in memory from 3.9 MB and 118 MB)
BLOCK = 4096  # rows written per transaction (3x4k3: 7 blocks)
SOLVING, MERGING, WRITING = "solving", "merging", "writing rows"
KINDS = ("truncate", "flip", "remove", "empty")

# (phase, file): the files each phase leaves. TIER is the lowest finished tier (while solving:
# the one whose results.bin the next tier needs; later, a middle one).
TIER = "{tier}"
CASES = [
    *((SOLVING, f"{TIER}/{name}") for name in ("results.bin", "value.bin", "code.bin", "rows.json")),
    (SOLVING, "manifest.json"),
    (MERGING, f"{TIER}/value.bin"),
    *((MERGING, f"merged/{name}") for name in ("code.bin", "value.bin", "rows.json")),
    (WRITING, "merged/value.bin"),
    (WRITING, "database.sqlite"),
    (WRITING, f"{TIER}/code.bin"),
]


class Stop(Exception):
    pass


def stopped_folder(variant: str, phase: str, into: Path) -> Path:
    """A build of ``variant`` into ``into`` stopped half-way through ``phase``; its scratch folder."""
    calls = {"n": 0}

    def steps(now: str, _done: int, _total: int) -> None:
        if now == phase:
            calls["n"] += 1
            if calls["n"] == 3:
                raise Stop(phase)

    with pytest.raises(Stop):
        build(into / "t.sqlite", Variant.parse(variant), memory=MEMORY[variant], steps=steps, store_moves=False)
    return into / ".t.sqlite.solving"


@pytest.fixture(autouse=True, scope="module")
def unsynced() -> Iterator[None]:
    patched = pytest.MonkeyPatch()
    patched.setattr(os, "fsync", lambda _handle: None)
    yield
    patched.undo()


@pytest.fixture(scope="module")
def stopped(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Path]:
    """Per variant and phase, a stopped build's scratch folder (made once, copied per case)."""
    made: dict[tuple[str, str], Path] = {}
    patched = pytest.MonkeyPatch()
    patched.setattr(content, "BLOCK", BLOCK)
    try:
        for variant, phases in (("3x4k3", (SOLVING, MERGING, WRITING)), ("3x5k4", (SOLVING,))):
            for phase in phases:
                folder = tmp_path_factory.mktemp(f"{variant}-{phase.split()[0]}")
                made[variant, phase] = stopped_folder(variant, phase, folder)
    finally:
        patched.undo()
    return made


@pytest.fixture(scope="module")
def clean(variant_db: Callable[[str], Path]) -> dict[str, Path]:
    """A build never stopped, per variant: the session's (read only; its moves table aside, the
    rows and the digest a build without one has)."""
    return {name: variant_db(name) for name in MEMORY}


def lowest_tier(folder: Path) -> str:
    """The lowest finished tier: while solving, the one the next tier reads; later a middle one."""
    finished = sorted(p.name for p in folder.iterdir() if p.name.startswith("tier-") and not p.name.endswith(".part"))
    return finished[0] if len(finished) < 5 else finished[len(finished) // 2]


def damage(path: Path, kind: str, rng: random.Random) -> None:
    if kind == "remove":
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "truncate":
        os.truncate(path, path.stat().st_size // 2)
    else:  # flip bits: 8 in a small file, 200 in the database (as the campaign that found the bug)
        data = bytearray(path.read_bytes())
        for _ in range(200 if path.suffix == ".sqlite" else 8):
            at = rng.randrange(len(data) * 8)
            data[at // 8] ^= 1 << (at % 8)
        path.write_bytes(bytes(data))


def rows_of(db: Path) -> list[tuple[int, int]]:
    with closing(sqlite3.connect(db)) as conn:
        return conn.execute("SELECT code, data FROM positions ORDER BY code").fetchall()


def meta_of(db: Path) -> dict[str, str]:
    with closing(sqlite3.connect(db)) as conn:
        return dict(conn.execute("SELECT key, value FROM meta").fetchall())


def rerun(variant: str, target: Path, force: bool = False) -> tuple[str, list[str]]:
    """Build again: ("", lines said) or (the error's message, lines said)."""
    said: list[str] = []
    try:
        build(target, Variant.parse(variant), force, said.append, store_moves=False, memory=MEMORY[variant])
    except BuildError as error:
        return str(error), said
    return "", said


def check_rerun(variant: str, target: Path, clean: Path, error: str) -> None:
    """The clean database installed, or one line naming the scratch folder and then a forced
    build installs the clean one."""
    folder = target.parent / f".{target.name}.solving"
    if error:
        assert "\n" not in error and str(folder) in error, error
        assert rerun(variant, target, force=True)[0] == ""
    assert meta_of(target)["digest"] == meta_of(clean)["digest"]
    assert rows_of(target) == rows_of(clean)  # with the digest, what verify proves of the clean build
    assert not folder.exists()


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("phase,name", CASES)
def test_a_damaged_scratch_file_is_never_installed(stopped, clean, tmp_path, phase, name, kind):
    variant = "3x4k3"
    folder = tmp_path / ".t.sqlite.solving"
    shutil.copytree(stopped[variant, phase], folder)
    path = folder / name.format(tier=lowest_tier(folder))
    assert path.exists(), f"the {phase} phase left no {path.name}"
    damage(path, kind, random.Random(f"{phase} {name} {kind}"))
    error, said = rerun(variant, tmp_path / "t.sqlite")
    check_rerun(variant, tmp_path / "t.sqlite", clean[variant], error)
    part = path.relative_to(folder).parts[0]
    if not error and (part, kind) not in (("manifest.json", "remove"), ("database.sqlite", "remove")):
        # What was damaged is said, by name (a missing database is only not written yet).
        assert any(part in line and ("again" in line or "starting over" in line) for line in said), said


@pytest.mark.long
def test_3x5k4_with_a_cut_results_file_gets_the_clean_counts(stopped, clean, tmp_path):
    """``truncate -s 1000`` of the lowest finished tier's results.bin installed a database
    saying 483,159 wins and 2,792,781 draws (clean: 494,604 and 2,780,883)."""
    folder = tmp_path / ".t.sqlite.solving"
    shutil.copytree(stopped["3x5k4", SOLVING], folder)
    os.truncate(folder / lowest_tier(folder) / "results.bin", 1000)
    error, said = rerun("3x5k4", tmp_path / "t.sqlite")
    assert error == "" and any("results.bin" in line and "made again" in line for line in said), said
    check_rerun("3x5k4", tmp_path / "t.sqlite", clean["3x5k4"], error)


def test_a_removed_tier_folder_is_solved_again_and_force_always_starts_over(stopped, clean, tmp_path):
    """A removed tier folder made every rerun fail with 'No such file or directory', --force
    included: now the tier is solved again; and --force clears whatever the folder holds."""
    variant = "3x4k3"
    for force in (False, True):
        folder = tmp_path / str(force) / ".t.sqlite.solving"
        shutil.copytree(stopped[variant, MERGING], folder)
        shutil.rmtree(folder / "tier-05")
        (folder / "tier-07" / "code.bin").write_bytes(b"garbage")
        error, said = rerun(variant, folder.parent / "t.sqlite", force)
        assert error == ""
        if force:
            assert any("starting over" in line for line in said) and not any("resuming" in line for line in said)
        else:
            again = [line for line in said if "solving it again" in line]
            assert again == [
                f"3x4k3: tier-05 in {folder} is missing: solving it again",
                (
                    f"3x4k3: tier-07 in {folder} has a damaged code.bin (it holds 7 bytes, not the 52,224 recorded):"
                    " solving it again"
                ),
            ]
        check_rerun(variant, folder.parent / "t.sqlite", clean[variant], error)


def test_a_rerun_says_what_it_resumes(stopped, clean, tmp_path):
    variant = "3x4k3"
    folder = tmp_path / ".t.sqlite.solving"
    shutil.copytree(stopped[variant, WRITING], folder)
    result = CliRunner().invoke(
        cli, ["build", "--variant", variant, "--db", str(tmp_path / "t.sqlite"), "--memory", "2MB"]
    )
    assert result.exit_code == 0, result.output
    said = [line for line in result.stderr.splitlines() if "resuming" in line]
    assert said == [
        f"3x4k3: resuming from {folder}: plies 12 to 0 solved",
        f"3x4k3: resuming the merge from {folder}: 28,275 of 28,275 rows merged",
        f"3x4k3: resuming the write from {folder}: 12,288 of 28,275 rows written",
    ], result.stderr
    assert "proved the resumed database whole" in result.stderr
