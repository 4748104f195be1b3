"""What ``ttt-lookup verify`` says: its stages on stderr as they start, and a report that reads well."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from contextlib import closing

import pytest
from click.testing import CliRunner
from support.damage import set_number

from ttt_solver.cli import cli

STAGES = [
    "checking the file, its meta table and its tables",
    "reading the positions table",
    "proving {rows} rows against the rules and their children's rows",
    "checking the generated columns, then the packed arrays and their digest",
]


@pytest.mark.parametrize(("variant", "rows"), [("3x3", "765"), ("3x4k3", "28,275"), ("2x3", "75")])
def test_verify_announces_each_stage_on_stderr(variant_db, variant, rows):
    db = str(variant_db(variant))
    text = CliRunner().invoke(cli, ["verify", "--db", db])
    assert text.exit_code == 0, text.output
    stages = [f"{variant}: {stage.format(rows=rows)}" for stage in STAGES]
    stages.append(f"{variant}: checking the moves table")  # stored for these small variants
    assert text.stderr.splitlines() == stages
    assert text.stdout.startswith(f"checks of {db} ({variant}):\n") and "checks of" not in text.stderr
    as_json = CliRunner().invoke(cli, ["verify", "--db", db, "--json"])
    assert json.loads(as_json.stdout)["ok"] is True and as_json.stderr == text.stderr  # stdout stays clean
    quiet = CliRunner().invoke(cli, ["verify", "--db", db, "-q"])
    assert (quiet.stdout, quiet.stderr) == (text.stdout, "")


def test_the_report_reads_as_sentences(db_path):
    lines = CliRunner().invoke(cli, ["verify", "--db", str(db_path), "-q"]).stdout.splitlines()
    assert lines[0] == f"checks of {db_path} (3x3):"
    checks = [line.removeprefix("  ok    ") for line in lines[1:-1]]
    for name in ("value", "remoteness", "best moves", "winning moves", "drawing moves", "losing moves"):
        assert f"{name} of every row from its children" in checks
    assert "every orbit as the symmetries make it" in checks
    assert "138 finished rows valued by the rules" in checks
    assert "the positions table and its generated columns are this version's" in checks
    assert lines[-1] == "the table is proved"


@pytest.mark.parametrize(
    ("statement", "single"),
    [
        ("UPDATE meta SET value = 'ab' WHERE key = 'digest'", True),
        (f"UPDATE positions SET {set_number('remoteness', 'remoteness + 2')} WHERE ply = 8", False),
    ],
)
def test_a_count_of_contradictions_agrees_with_its_noun(db_path, tmp_path, statement, single):
    copy = tmp_path / "copy.sqlite"
    shutil.copyfile(db_path, copy)
    with closing(sqlite3.connect(copy)) as conn, conn:
        conn.execute(statement)
    result = CliRunner().invoke(cli, ["verify", "--db", str(copy), "-q"])
    assert result.exit_code == 1
    last = result.stdout.splitlines()[-1]
    count = int(re.match(r"([\d,]+) contradictions?;", last)[1].replace(",", ""))  # type: ignore[index]
    noun = "contradiction" if count == 1 else "contradictions"
    assert last.startswith(f"{count:,} {noun}; ") and result.stderr.startswith(f"Error: {count:,} {noun} in ")
    assert (count == 1) == single
    assert not re.search(r"(?<![\d,])1 (rows|contradictions|more failed checks)\b", result.stdout)
