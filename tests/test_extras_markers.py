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
    "tests/engine/test_engine_dask.py": "dask",
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


MARKS_PLUGIN = """\
def pytest_collection_finish(session):
    for item in session.items:
        print("MARKS", item.nodeid, ",".join(sorted({mark.name for mark in item.iter_markers()})), sep="\\t")
"""


def marks(folder: Path, *args: str) -> tuple[dict[str, set[str]], dict[str, str]]:
    """Each collected test's markers, as pytest collects them (one collection, in a subprocess),
    and the reason of each module skipped while it was collected (one that imports a missing
    extra at its top: :func:`support.extra_markers.need`)."""
    (folder / "marks_plugin.py").write_text(MARKS_PLUGIN, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), os.environ.get("PYTHONPATH", "")])}
    out = pytest_run("--collect-only", "-q", "-rs", "-p", "marks_plugin", *args, env=env)
    found = (line.split("\t") for line in out.splitlines() if line.startswith("MARKS\t"))
    skipped = dict(re.findall(r"^SKIPPED \[\d+\] ([^:]+):\d+: (.*)$", out, re.MULTILINE))
    return {parts[1]: set(filter(None, parts[2].split(","))) for parts in found}, skipped


@pytest.mark.long
def test_not_extras_leaves_out_each_test_of_an_extra_by_name(tmp_path):
    found, skipped = marks(tmp_path, *NEEDING, *MIXED)
    kept = {test for test, names in found.items() if "extras" not in names}  # what -m "not extras" keeps
    for where, extra in NEEDING.items():
        mine = {test for test in found if test == where or test.startswith(f"{where}::")}
        if not mine and extras.missing(extra):  # (the source distribution's tests, with [test] alone)
            assert skipped.get(where) == extras.reason(extra), (
                f"{where} was not collected, nor skipped naming [{extra}]"
            )
            continue
        assert mine, where
        assert not mine & kept, f"{where} needs [{extra}] but -m 'not extras' keeps it"
        assert all(extra in found[test] for test in mine), f"{where} is not marked {extra}"
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
