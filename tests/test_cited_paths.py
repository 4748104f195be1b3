"""Every test or benchmark file that the code, the docs or the tests cite by path exists: a
docstring that says ``tests/players/test_agents.py`` holds the port of the seed's code must
still be right after the tests move (three docstrings once pointed at files that had moved)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# What cites files: the package, its tests and benchmarks, the examples, the docs and CI's script.
CITING = ("ttt_solver", "tests", "benchmarks", "examples", "docs")
CITED = re.compile(r"(?<![\w/.-])((?:tests|benchmarks|examples)/[\w/.-]*?\.py)\b")  # a path from the root
NAMED = re.compile(r"(?<![\w/.-])((?:test|bench)_\w+\.py)\b")  # a file named alone


def citing_files() -> list[Path]:
    found = [ROOT / "README.md", ROOT / ".ci" / "run", ROOT / "mkdocs.yml", ROOT / "pyproject.toml"]
    for folder in CITING:
        found += sorted(path for suffix in ("*.py", "*.md") for path in (ROOT / folder).rglob(suffix))
    mine = Path(__file__).resolve()  # its examples cite a file that moved
    return [path for path in found if path.is_file() and "__pycache__" not in path.parts and path != mine]


def test_every_cited_test_or_benchmark_file_exists():
    names = {path.name for folder in ("tests", "benchmarks") for path in (ROOT / folder).rglob("*.py")}
    missing = []
    for path in citing_files():
        text = path.read_text(encoding="utf-8")
        where = path.relative_to(ROOT)
        missing += [f"{where}: {cited}" for cited in CITED.findall(text) if not (ROOT / cited).is_file()]
        missing += [f"{where}: {named}" for named in NAMED.findall(text) if named not in names]
    assert missing == []


def test_a_moved_file_is_found():
    assert CITED.findall("see ``tests/test_agents.py`` and benchmarks/bench_cli.py::main") == [
        "tests/test_agents.py",
        "benchmarks/bench_cli.py",
    ]
    assert NAMED.findall("ported in test_agents.py, not my_test_agents.py") == ["test_agents.py"]
