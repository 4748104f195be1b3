"""A finished tier's record (``tier-PP/rows.json``) names its variant, its ply and its build, so a
tier folder in another tier's place matches its own checksums and is still found out: solved
again, and the build installs the digest of a build never stopped. Before, two swapped tiers
were reused: the lowest two made the resumed build die in ``solver/passes.py: spread`` with an
IndexError, others made the proof refuse every later run until ``--force``."""

from __future__ import annotations

import json
import sqlite3
import zlib
from pathlib import Path

import pytest

from ttt_solver.builder.build import build
from ttt_solver.engine.scratch import FORMAT, other_tier
from ttt_solver.game.variant import Variant

NAME = "3x5k4"
MEMORY = 64 << 20  # 3x5k4 solved tier by tier in its scratch folder, not in memory


class Stop(Exception):
    """Stands for a build killed once a tier is recorded."""


def digest(path: Path) -> str:
    with sqlite3.connect(path) as db:
        return str(db.execute("SELECT value FROM meta WHERE key = 'digest'").fetchone()[0])


def stopped_at(target: Path, ply: int) -> Path:
    """The scratch folder of a build of 3x5k4 at ``target`` stopped once tier ``ply`` is recorded."""

    def progress(line: str) -> None:
        if line.startswith(f"{NAME}: ply {ply}:"):
            raise Stop

    with pytest.raises(Stop):
        build(target, Variant.parse(NAME), memory=MEMORY, progress=progress)
    return target.parent / f".{target.name}.solving"


def swap(scratch: Path, a: int, b: int) -> None:
    (scratch / f"tier-{a:02d}").rename(scratch / "swapped")
    (scratch / f"tier-{b:02d}").rename(scratch / f"tier-{a:02d}")
    (scratch / "swapped").rename(scratch / f"tier-{b:02d}")


@pytest.mark.parametrize(("a", "b"), [(12, 13), (13, 14)])
def test_two_swapped_tier_folders_are_solved_again_and_the_digest_is_the_unstopped_builds(variant_db, tmp_path, a, b):
    target = tmp_path / f"{NAME}.sqlite"
    scratch = stopped_at(target, 12)  # tiers 15 to 12 recorded
    record = json.loads((scratch / "tier-12" / "rows.json").read_text())
    assert (record["variant"], record["ply"], record["build"]["format"]) == (NAME, 12, FORMAT)
    swap(scratch, a, b)
    lines: list[str] = []
    report = build(target, Variant.parse(NAME), memory=MEMORY, progress=lines.append)
    for here, there in ((a, b), (b, a)):
        said = f"{NAME}: tier-{here:02d} in {scratch} holds tier {there}, not this tier: solving it again"
        assert said in lines, lines
    assert f"{NAME}: ply {a}: " in "\n".join(lines) and f"{NAME}: ply {b}: " in "\n".join(lines)  # solved again
    assert report.digest == digest(target) == digest(variant_db(NAME))


@pytest.mark.parametrize(
    ("record", "said"),
    [
        ({"variant": "3x5k4", "ply": 12, "build": {"solver": 1}}, None),
        ({"variant": "3x5k4", "ply": 13, "build": {"solver": 1}}, "tier 13"),
        ({"variant": "3x4k3", "ply": 12, "build": {"solver": 1}}, "a tier of '3x4k3'"),
        ({"variant": "3x5k4", "ply": 12, "build": {"solver": 2}}, "a tier of another build"),
        ({"rows": 3, "files": {}}, "a tier of None"),  # a record of format 2 names nothing
    ],
)
def test_a_tier_record_says_what_it_is_where_it_is_not_this_tier(record, said):
    assert other_tier(record, {"variant": "3x5k4", "ply": 12, "build": {"solver": 1}}) == said


def test_a_tier_records_each_file_with_its_length_and_crc32(tmp_path):
    """CRC-32 (about 4x BLAKE2b's speed): the column files' taken as they are appended, the
    result bytes' as the join writes them (not read again), each the file's as it lies."""
    scratch = stopped_at(tmp_path / f"{NAME}.sqlite", 12)
    checked = []
    for ply in (15, 14, 13, 12):
        folder = scratch / f"tier-{ply:02d}"
        files = json.loads((folder / "rows.json").read_text())["files"]
        assert "results.bin" in files and "code.bin" in files
        for name, entry in files.items():
            raw = (folder / name).read_bytes() if (folder / name).exists() else None
            if raw is None:  # results.bin of a tier the tier below has used (removed)
                continue
            assert entry == [len(raw), f"{zlib.crc32(raw):08x}"], (ply, name)
            checked.append(name)
    assert checked.count("results.bin") == 1 and checked.count("code.bin") == 4  # tier 12's results kept
