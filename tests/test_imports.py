"""Heavy imports stay off the paths that do not need them."""

from __future__ import annotations

import subprocess
import sys


def loaded_after(code: str) -> set[str]:
    probe = code + "\nimport sys\nprint(' '.join(m for m in ('numpy', 'sqlalchemy', 'click') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(done.stdout.split())


def test_importing_the_package_loads_nothing_heavy():
    assert loaded_after("import ttt_solver; ttt_solver.Board('X...O....')") == set()


def test_a_lookup_reads_sqlite_without_sqlalchemy_or_numpy(db_path):
    code = f"from ttt_solver import Oracle\nOracle.load({str(db_path)!r}, eager=False).best_move('X...O....')"
    assert loaded_after(code) == set()


def test_building_loads_the_solver_and_writer_but_not_the_cli(tmp_path):
    code = f"from ttt_solver.build import build\nbuild({str(tmp_path / 't.sqlite')!r})"
    assert loaded_after(code) == {"sqlalchemy", "numpy"}
