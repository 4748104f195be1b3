"""The suite's own promises: the databases it shares are made once and never served damaged,
the long runs start first, and no property test fails for time on a loaded machine."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings
from support import ordering
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
    first in every worker's share of the list, so that the workers started together finish together."""
    items = request.session.items
    files = {item.nodeid.split("::")[0] for item in items}
    if not {"tests/cli/test_cli_fuzz.py", "tests/web/test_api_fuzz.py", "tests/test_packaging.py"} <= files:
        pytest.skip("the fuzz and sdist runs are not collected in this run")
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    assert sorted(items, key=ordering.rank) == ordering.ordered(items, 1)  # the same tests, whatever the order
    start = 0
    for size in ordering.shares(len(items), workers):
        rank = [ordering.rank(item) for item in items[start : start + size]]
        assert rank == sorted(rank) and rank[0] < 2, rank[:10]
        start += size
    marked = {item.nodeid.split("::")[0] for item in items if ordering.rank(item) < 2}
    assert marked == {"tests/cli/test_cli_fuzz.py", "tests/web/test_api_fuzz.py", "tests/test_packaging.py"}
    assert any(ordering.rank(item) == 2 for item in items)


def test_the_long_runs_are_dealt_to_the_head_of_each_workers_share():
    """worksteal's first shares of 11 tests on 3 workers are 3, 4 and 4 long: the long runs of
    the modules a, b and c go to their heads in turn (a's two together), in rank order, and the
    short tests fill them up in order."""
    assert ordering.shares(11, 3) == [3, 4, 4]
    marks = ["", "long", "", "fuzz", "long", "", "sdist", "", "long", "", ""]
    modules = "xaxbaxcxbxx"
    items = [Marked(f"{module}.py::t{i}", mark) for i, (module, mark) in enumerate(zip(modules, marks))]
    dealt = [item.nodeid.split("::")[1] for item in ordering.ordered(items, 3)]
    assert dealt == ["t6", "t0", "t2", "t3", "t8", "t5", "t7", "t1", "t4", "t9", "t10"]
    alone = [item.nodeid.split("::")[1] for item in ordering.ordered(items, 1)]
    assert alone == ["t6", "t3", "t1", "t4", "t8", "t0", "t2", "t5", "t7", "t9", "t10"]


class Marked:
    """A stand-in for a collected test with at most one marker."""

    def __init__(self, nodeid: str, mark: str) -> None:
        self.nodeid, self.mark = nodeid, mark

    def get_closest_marker(self, name: str) -> object | None:
        return name if name == self.mark else None


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
