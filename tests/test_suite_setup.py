"""The suite's own promises: the databases it shares are made once and never served damaged,
the long runs start first, and no property test fails for time on a loaded machine."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings
from support.sharing import made_once

COUNT_AND_WRITE = """\
import sys
from pathlib import Path

sys.path.insert(0, {tests!r})
from support.sharing import made_once


def make(path):
    with open({log!r}, "a") as log:
        log.write("made\\n")
    path.write_text("contents")


print(made_once(Path({folder!r}), "shared.txt", make).read_text())
"""


def test_a_file_is_made_once_for_every_process_and_remade_when_its_bytes_changed(tmp_path):
    log = tmp_path / "log"
    code = COUNT_AND_WRITE.format(tests=str(Path(__file__).parent), log=str(log), folder=str(tmp_path))
    processes = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True) for _ in range(4)]
    assert [p.communicate()[0] for p in processes] == ["contents\n"] * 4
    assert log.read_text() == "made\n"  # four processes at once: one made it, three waited and shared it

    (tmp_path / "shared.txt").write_text("damaged")
    assert made_once(tmp_path, "shared.txt", lambda path: path.write_text("remade")).read_text() == "remade"
    assert made_once(tmp_path, "shared.txt", lambda path: pytest.fail("made again")).read_text() == "remade"
    (tmp_path / "shared.txt").unlink()
    assert made_once(tmp_path, "shared.txt", lambda path: path.write_text("new")).read_text() == "new"


def test_the_session_databases_are_whole(variant_db):
    """What the fixtures serve has the bytes it was built with (tests must copy before tampering)."""
    from support.sharing import file_digest

    path = variant_db("3x3")
    assert Path(f"{path}.sha256").read_text() == file_digest(path)


def test_the_long_runs_are_marked_and_start_first(request):
    """The sdist runs, then the fuzz runs (marked by ``@FUZZ``), then the other long tests come
    first in every worker's list, so that two workers started together finish together."""
    items = request.session.items
    files = {item.nodeid.split("::")[0] for item in items}
    if not {"tests/cli/test_cli_fuzz.py", "tests/web/test_api_fuzz.py", "tests/test_packaging.py"} <= files:
        pytest.skip("the fuzz and sdist runs are not collected in this run")
    order = ("sdist", "fuzz", "long")
    rank = [next((i for i, name in enumerate(order) if item.get_closest_marker(name)), 3) for item in items]
    assert rank == sorted(rank)
    marked = {item.nodeid.split("::")[0] for item, r in zip(items, rank) if r < 2}
    assert marked == {"tests/cli/test_cli_fuzz.py", "tests/web/test_api_fuzz.py", "tests/test_packaging.py"}
    assert any(r == 2 for r in rank)


def test_temporary_files_go_to_memory_unless_tmpdir_says_otherwise(tmp_path):
    """Where /dev/shm can take them, tmp_path and the commands' temporary files live in memory."""
    import tempfile

    from conftest import MEMORY_TEMP

    if os.environ.get("TMPDIR") != str(MEMORY_TEMP):
        pytest.skip(f"TMPDIR is {os.environ.get('TMPDIR')!r} (set before the run, or no room in {MEMORY_TEMP})")
    assert tmp_path.resolve().is_relative_to(MEMORY_TEMP)
    assert Path(tempfile.gettempdir()) == MEMORY_TEMP


def test_property_tests_have_no_deadline():
    """Under load an example may take seconds (test_board_fuzz failed on its 200 ms deadline)."""
    assert settings.default.deadline is None
