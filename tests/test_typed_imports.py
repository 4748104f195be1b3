"""The public API type-checks in user code: ``mypy --strict`` on a file that imports it."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import ttt_solver

PUBLIC = ["Oracle", "Board", "Variant", "STANDARD", "TTTError", "InvalidBoardError", "GameOverError", "DatabaseError"]

USER_FILE = """\
from ttt_solver import STANDARD, Board, DatabaseError, GameOverError, InvalidBoardError, Oracle, TTTError, Variant


def value(oracle: Oracle, board: Board | str, variant: Variant = STANDARD) -> int:
    try:
        return oracle.value(board)
    except (InvalidBoardError, GameOverError, DatabaseError):
        return 0
    except TTTError:
        return -2


def best(oracle: Oracle) -> list[int]:
    return oracle.best_moves("X...O....")
"""


def test_dir_lists_the_public_names_and_not_the_helpers():
    names = dir(ttt_solver)
    assert set(PUBLIC) | {"__version__"} <= set(names)
    assert not {"Any", "TYPE_CHECKING", "annotations", "_LAZY"} & set(names)


def test_every_public_name_resolves():
    for name in ttt_solver.__all__:
        assert getattr(ttt_solver, name) is not None


MISSPELT_FILE = """\
from ttt_solver import Orcale
"""


@pytest.mark.long
def test_user_code_importing_the_api_passes_mypy_strict(tmp_path: Path):
    user = tmp_path / "user.py"
    user.write_text(USER_FILE)
    misspelt = tmp_path / "misspelt.py"
    misspelt.write_text(MISSPELT_FILE)
    # An editable install reaches the package through an import hook that mypy cannot follow,
    # so point mypy at the directory of the package that Python imports (the same files).
    # follow-imports=silent: the package's own modules are analysed (their types reach the user
    # file) but not reported on; CI checks them with mypy --strict ttt_solver. 4 s instead of 13.
    source_root = Path(ttt_solver.__file__).resolve().parent.parent
    installed = source_root == Path(sysconfig.get_paths()["purelib"]).resolve()  # mypy finds it there itself
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")} | ({} if installed else {"MYPYPATH": str(source_root)})
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--follow-imports=silent",
            "--cache-dir",
            str(tmp_path / "cache"),
            str(user),
            str(misspelt),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    # user.py is clean; a misspelt name is an error, not Any through the lazy __getattr__
    assert len(errors) == 1, done.stdout + done.stderr
    assert errors[0].startswith('misspelt.py:1: error: Module "ttt_solver" has no attribute "Orcale"')
