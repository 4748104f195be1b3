"""A closed pipe (``ttt-lookup ... | head``) ends every command the same way: quietly, with exit
code 141, as a shell reports a program that SIGPIPE stopped. Real pipes, in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CLOSED_PIPE = 141  # 128 + SIGPIPE

COMMANDS = [
    ["analyze", "X...O...."],
    ["best", "--moves", "4"],
    ["stats"],
    ["query", "ply_counts"],
    ["query", "--list"],
    ["compare", "random", "think1", "--games", "20", "--seed", "1"],
    ["tournament", "--agents", "random,think1", "--games", "10", "--positions", "10", "--seed", "1"],
    ["verify", "--quiet"],
    ["help"],
    ["analyze", "--help"],
    ["--help"],
    ["--version"],
]


def ttt_lookup(args: list[str], db: Path, **popen: object) -> subprocess.Popen[bytes]:
    uses_db = args[0] not in ("help", "--help", "--version") and "--help" not in args and "--list" not in args
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    command = [sys.executable, "-m", "ttt_solver.cli", *args, *(["--db", str(db)] if uses_db else [])]
    return subprocess.Popen(command, env=env, stderr=subprocess.PIPE, **popen)  # type: ignore[call-overload]


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_a_reader_gone_before_the_output_ends_the_command_quietly(args, db_path):
    with ttt_lookup(args, db_path, stdout=subprocess.DEVNULL) as process:
        _, usual = process.communicate(timeout=120)  # its progress lines, if any
    assert process.returncode == 0, usual
    read, write = os.pipe()
    os.close(read)  # the reader has gone before the command writes anything
    with ttt_lookup(args, db_path, stdout=write) as process:
        os.close(write)
        _, stderr = process.communicate(timeout=120)
    assert (process.returncode, stderr.decode()) == (CLOSED_PIPE, usual.decode())  # nothing more said


def test_head_after_the_first_line_of_a_long_output(db_4x4):
    """`query positions_at_ply ... | head -1` on 4x4: the reader leaves after one line of 1.6 MB
    (one write of them all would be cut short, which CPython does not report)."""
    args = ["query", "positions_at_ply", "-p", "ply=6", "--variant", "4x4"]
    with ttt_lookup(args, db_4x4, stdout=subprocess.PIPE) as process:
        assert process.stdout is not None
        first = process.stdout.readline()
        process.stdout.close()
        _, stderr = process.communicate(timeout=120)
    assert first.split() == [b"board", b"to_move", b"outcome", b"remoteness", b"best_moves", b"orbit"]
    assert (process.returncode, stderr) == (CLOSED_PIPE, b"")
