"""``ttt-lookup cache``: what the cache folder holds (entries, sizes, total), ``--clear``
removing it, ``--json``, and every error path as one line; the work stopped builds kept in the
data folder, listed with its sizes and removed by ``--remove-stopped`` (never a running build's)."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from ttt_solver.cli import cli


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """The cache folder, under a temporary XDG_CACHE_HOME (not created); the data folder there too."""
    from ttt_solver.store import paths

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(paths, "data_folder", lambda: str(tmp_path / "data"))
    return tmp_path / "ttt-solver"


def filled(folder):
    """Two contents' folders and a left-over file, of known sizes."""
    (folder / "3x6k4-0123456789abcdef01234567").mkdir(parents=True)
    (folder / "3x6k4-0123456789abcdef01234567" / "values.bin").write_bytes(b"v" * 1_500_000)
    (folder / "3x6k4-0123456789abcdef01234567" / "stats.json").write_bytes(b"{}")
    (folder / "4x4-fedcba9876543210fedcba98").mkdir()
    (folder / "4x4-fedcba9876543210fedcba98" / "codes.bin").write_bytes(b"c" * 250_000)
    (folder / "x.part").write_bytes(b"p" * 10)
    return folder


def run(*args):
    return CliRunner().invoke(cli, ["cache", *args])


def test_no_cache_folder_is_empty(folder):
    result = run()
    assert (result.exit_code, result.stdout, result.stderr) == (0, f"{folder}: empty\n", "")
    assert not folder.exists()  # looking creates nothing


def test_the_entries_their_sizes_and_the_total(folder):
    filled(folder)
    result = run()
    assert result.exit_code == 0 and result.stderr == ""
    assert result.stdout == (
        f"{folder}\n"
        "  3x6k4-0123456789abcdef01234567        1.5 MB\n"
        "  4x4-fedcba9876543210fedcba98          0.2 MB\n"
        "  x.part                                0.0 MB\n"
        "3 entries, 1.8 MB (ttt-lookup cache --clear removes them)\n"
    )


def test_json(folder):
    filled(folder)
    result = run("--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {
        "folder": str(folder),
        "cleared": False,
        "entries": [
            {"name": "3x6k4-0123456789abcdef01234567", "bytes": 1_500_002},
            {"name": "4x4-fedcba9876543210fedcba98", "bytes": 250_000},
            {"name": "x.part", "bytes": 10},
        ],
        "bytes": 1_750_012,
        "stopped": [],
    }


def test_clear_removes_the_folder_and_says_what_it_held(folder):
    filled(folder)
    result = run("--clear")
    assert (result.exit_code, result.stdout) == (0, f"removed {folder} (3 entries, 1.8 MB)\n")
    assert not folder.exists() and folder.parent.exists()
    again = run("--clear")
    assert (again.exit_code, again.stdout) == (0, f"nothing to clear in {folder}\n")
    assert json.loads(run("--clear", "--json").stdout) == {
        "folder": str(folder),
        "cleared": True,
        "entries": [],
        "bytes": 0,
        "stopped": [],
    }


def test_a_cache_folder_that_is_a_file_is_one_error_line(folder):
    folder.write_text("not a folder")
    for args in ([], ["--clear"]):
        result = run(*args)
        assert (result.exit_code, result.stdout) == (1, "")
        assert result.stderr == f"Error: cannot read the cache folder {str(folder)!r}: Not a directory\n"
    assert folder.read_text() == "not a folder"  # nothing removed half-way


def test_a_folder_that_cannot_be_removed_is_one_error_line(folder, monkeypatch):
    filled(folder)

    def refuse(path, *args, **kwargs):
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(shutil, "rmtree", refuse)
    result = run("--clear")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"Error: cannot remove the cache folder {str(folder)!r}: Permission denied\n"


def test_bad_usage_is_exit_code_2(folder):
    result = run("--clear", "extra")
    assert result.exit_code == 2 and result.stderr.startswith("Error: ")
    assert result.stderr.count("\n") == 1


# -- the work stopped builds kept ---------------------------------------------------------------


@pytest.fixture
def data(folder):
    """The data folder (see ``folder``), made."""
    found = folder.parent / "data"
    found.mkdir()
    return found


def stopped_build(data, variant="3x6k4", size=2_000_000):
    """A scratch folder as a stopped build leaves it: its manifest, its lock, a finished tier."""
    folder = data / f".{variant}.sqlite.solving"
    (folder / "tier-18").mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps({"format": 2, "variant": variant}))
    (folder / "lock").write_bytes(b"")
    (folder / "tier-18" / "code.bin").write_bytes(b"c" * (size - len((folder / "manifest.json").read_bytes())))
    return folder


def test_the_stopped_builds_in_the_data_folder_are_listed_with_their_sizes(folder, data):
    kept = stopped_build(data)
    result = run()
    assert result.exit_code == 0 and result.stderr == ""
    assert result.stdout == (
        f"{folder}: empty\n"
        "stopped builds (the same build command resumes one; --remove-stopped removes them):\n"
        f"  3x6k4  {kept}  1.9MB\n"
    )
    assert json.loads(run("--json").stdout)["stopped"] == [
        {"folder": str(kept), "variant": "3x6k4", "bytes": 2_000_000, "running": False, "removed": False}
    ]
    assert kept.is_dir()  # listing removes nothing


def test_remove_stopped_removes_them_but_never_a_running_build(folder, data):
    import fcntl

    kept, running = stopped_build(data), stopped_build(data, "4x5k4", 3_000_000)
    with open(running / "lock", "rb") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # as the build running in it holds it
        result = run("--remove-stopped")
    assert result.exit_code == 0 and result.stderr == ""
    assert result.stdout == (
        f"{folder}: empty\n"
        f"  3x6k4  {kept}  1.9MB  removed\n"
        f"  4x5k4  {running}  2.9MB  a build is running in it: left as it is\n"
    )
    assert not kept.exists() and (running / "tier-18" / "code.bin").is_file()
    assert json.loads(run("--remove-stopped", "--json").stdout)["stopped"] == [
        {"folder": str(running), "variant": "4x5k4", "bytes": 3_000_000, "running": False, "removed": True}
    ]
    assert not running.exists() and run("--remove-stopped").stdout == f"{folder}: empty\nno stopped builds to remove\n"
