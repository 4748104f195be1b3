"""The tests of each optional extra carry its marker: ``pytest -m "not extras"`` leaves them out by
name, and without the extra they skip, naming it (what a contributor with only
``pip install -e '.[test]'`` runs)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support import extra_markers as extras

ROOT = Path(__file__).resolve().parent.parent
# Modules (or single tests) that need an extra, and the extra.
NEEDING = {
    "tests/envs/test_envs.py": "rl",
    "tests/envs/test_vector_env.py": "rl",
    "tests/envs/test_pettingzoo.py": "rl",
    "tests/envs/test_envs_ecosystem.py": "rl",
    "tests/envs/test_envs_flat_observation.py": "rl",
    "tests/players/test_openspiel.py": "openspiel",
    "tests/web/test_web_api.py": "web",
    "tests/web/test_web_http.py": "web",
    "tests/web/test_web_schema.py": "web",
    "tests/charts/test_charts.py::test_stats_plot": "plot",
    "tests/cli/test_cli_arena.py::test_plot_writes_a_chart": "plot",
    "tests/store/test_targets.py::test_the_openspiel_bot_takes_the_same_error": "openspiel",
    "tests/store/test_targets.py::test_the_server_takes_the_same_error": "web",
    "tests/store/test_postgres.py": "postgres",
}
# Mixed modules: the tests above need an extra, the others in them do not.
MIXED = [
    "tests/charts/test_charts.py",
    "tests/cli/test_cli_arena.py",
    "tests/store/test_targets.py",
    "tests/game/test_variant_names.py",
]
# Hides every extra but [postgres] (psycopg comes with [test]), as in an environment where only
# `pip install -e '.[test]'` ran.
HIDE_EXTRAS = """\
import sys

HIDDEN = {hidden!r}


class HideExtras:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.partition(".")[0] in HIDDEN:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


sys.meta_path.insert(0, HideExtras)
"""


def pytest_run(*args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode in (0, 5), done.stdout[-3000:] + done.stderr[-3000:]  # 5: all deselected
    return done.stdout


def collected(*args: str) -> set[str]:
    return {line for line in pytest_run("--collect-only", "-q", *args).splitlines() if "::" in line}


@pytest.mark.long
def test_not_extras_leaves_out_each_test_of_an_extra_by_name():
    every = collected(*NEEDING, *MIXED)
    kept = collected("-m", "not extras", *NEEDING, *MIXED)
    marked = {extra: collected("-m", extra, *places(extra)) for extra in set(NEEDING.values())}
    for where, extra in NEEDING.items():
        mine = {test for test in every if test == where or test.startswith(f"{where}::")}
        assert mine, where
        assert not mine & kept, f"{where} needs [{extra}] but -m 'not extras' keeps it"
        assert mine <= marked[extra], f"{where} is not marked {extra}"
    assert any(test.startswith("tests/charts/test_charts.py::") for test in kept)  # the core's tests stay


def places(extra: str) -> list[str]:
    return [where for where, needed in NEEDING.items() if needed == extra]


@pytest.mark.long
def test_without_the_extras_each_skips_naming_its_extra(tmp_path):
    hidden = sorted(
        {module for extra, modules in extras.EXTRA_MODULES.items() if extra != "postgres" for module in modules}
    )
    (tmp_path / "sitecustomize.py").write_text(HIDE_EXTRAS.format(hidden=hidden), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    files = [where for where, extra in NEEDING.items() if extra != "postgres"]
    out = pytest_run("-q", "-rs", *files, "-m", "not slow", env=env)
    reasons = re.findall(r"^SKIPPED \[\d+\] ([^:]+):\d+: (.*)$", out, re.MULTILINE)
    assert reasons, out[-3000:]
    for path, reason in reasons:
        needed = {extra for where, extra in NEEDING.items() if where.partition("::")[0] == path}
        assert reason in {extras.reason(extra) for extra in needed}, (path, reason)
        assert reason.startswith("needs the [") and reason.endswith("]'")
