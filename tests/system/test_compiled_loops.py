"""One rule for whether the compiled loops run (the solver's passes and the batch lookups)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import ttt_solver
from ttt_solver.system import compiled_loops


@pytest.mark.parametrize(("asked", "wanted"), [("numpy", False), ("compiled", True), ("", True), ("NumPy ", False)])
def test_the_compiled_loops_run_unless_numpys_are_asked_for(monkeypatch, asked, wanted):
    monkeypatch.setenv(compiled_loops.VARIABLE, asked)
    assert compiled_loops.wanted() is wanted


@pytest.mark.compiled
def test_the_build_is_known_to_run_them_where_the_extension_was_built_without_importing_it(monkeypatch):
    monkeypatch.delenv(compiled_loops.VARIABLE, raising=False)
    code = (
        "import sys\nfrom ttt_solver.system import compiled_loops\nprint(compiled_loops.installed(),"
        " 'numpy' in sys.modules, 'ttt_solver.solver' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "False", "False"]  # found, not imported: the lookup path's rule
    monkeypatch.setenv(compiled_loops.VARIABLE, "numpy")
    assert compiled_loops.installed() is False


@pytest.mark.parametrize("built", [False, pytest.param(True, marks=pytest.mark.compiled)])
def test_a_copy_of_the_package_runs_the_compiled_loops_where_it_has_the_extension(tmp_path, built):
    # As where the package was installed with a C compiler at hand, or without one.
    source = Path(ttt_solver.__file__).parent
    skipped = ("__pycache__", *(() if built else ("*.so", "*.pyd")))
    shutil.copytree(source, tmp_path / "ttt_solver", ignore=shutil.ignore_patterns(*skipped))
    code = "from ttt_solver.system import compiled_loops\nfrom ttt_solver.solver import passes\n"
    code += "print(compiled_loops.installed(), passes.compiled is not None)"
    env = {key: value for key, value in os.environ.items() if key != compiled_loops.VARIABLE}
    env["PYTHONPATH"] = str(tmp_path)
    done = subprocess.run([sys.executable, "-P", "-c", code], env=env, capture_output=True, text=True, check=True)
    assert done.stdout.split() == [str(built), str(built)]  # the cost model and the passes agree
