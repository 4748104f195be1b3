"""One tier pipeline for the build and for verify, on any engine: this process's engine runs
the very tasks a cluster runs (the chunks, the range shuffle, the join), nobody outside the
engine wing asks which engine it has, and the wing's words and rules are each written once."""

from __future__ import annotations

import ast
import re
import sqlite3
from pathlib import Path

from support.pipeline_engines import Counting

import ttt_solver
from ttt_solver.audit import proof_tasks
from ttt_solver.audit.proof_tasks import prove_chunk_task
from ttt_solver.audit.retrograde import chunks
from ttt_solver.audit.verify import verify_source
from ttt_solver.builder.build import build
from ttt_solver.engine import pipeline, solving
from ttt_solver.engine.shuffle import gather_range, spread_range
from ttt_solver.engine.solving import solve_chunk_task
from ttt_solver.game.variant import Variant
from ttt_solver.lookup.rows import DatabaseRows
from ttt_solver.solver import task_boards, tiers
from ttt_solver.store import Target
from ttt_solver.store.reader import Reader

PACKAGE = Path(ttt_solver.__file__).parent
ROOT = PACKAGE.parent


def digest(path: Path) -> str:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT value FROM meta WHERE key = 'digest'").fetchone()[0]


def test_a_build_in_one_process_runs_the_chunks_and_the_range_shuffle_as_tasks(tmp_path, variant_db):
    engine = Counting()
    target = tmp_path / "3x4k3.sqlite"
    build(target, Variant.parse("3x4k3"), memory=1 << 20, engine=engine)
    assert digest(target) == digest(Path(variant_db("3x4k3")))
    cells = Variant.parse("3x4k3").cells
    assert engine.ran[solve_chunk_task.__name__] > cells + 1  # a tier of many chunks somewhere
    # in one process every tier is one range: its one task spreads the chunks' rows, no images gathered
    assert engine.ran[spread_range.__name__] == cells + 1 and gather_range.__name__ not in engine.ran


def test_verify_proves_in_the_builds_chunks_whatever_the_budget(tmp_path):
    """A budget below two tiers' result bytes cut each tier verify proved as if those bytes
    were held in it, into chunks of the smallest size: 3x4k3 at 128 KB in twice the build's
    tasks, 3x5k4 at 1 MB in 13,651 tasks (over 300 s on Dask, against 10.8 s at 8 MB)."""
    variant, memory = Variant.parse("3x4k3"), 1 << 17
    built, proved = Counting(), Counting()
    build(tmp_path / "3x4k3.sqlite", variant, memory=memory, engine=built)
    with Reader(Target.parse(str(tmp_path / "3x4k3.sqlite")), "3x4k3") as reader:
        assert verify_source(DatabaseRows(reader, variant), memory, engine=proved).ok
    each = task_boards(memory)
    assert (
        proved.ran[prove_chunk_task.__name__]
        == built.ran[solve_chunk_task.__name__]
        == sum(-(-int(size) // each) for size in tiers(variant).sizes)
    )
    wide = Variant.parse("3x5k4")
    assert sum(len(chunks(wide, ply, 1 << 20)) for ply in range(wide.cells + 1)) == 543


def test_build_and_verify_drive_the_tiers_through_the_one_pipeline(tmp_path, variant_db, monkeypatch):
    driven: list[str] = []
    real = pipeline.run_tiers

    def spy(engine, storage, work, plies, memory, steps=None):  # type: ignore[no-untyped-def]
        driven.append(type(work).__name__)
        return real(engine, storage, work, plies, memory, steps)

    monkeypatch.setattr(solving, "run_tiers", spy)
    monkeypatch.setattr(proof_tasks, "run_tiers", spy)
    build(tmp_path / "3x3.sqlite", Variant.parse("3x3"))
    with Reader(Target.parse(variant_db("3x3")), "3x3") as reader:
        assert verify_source(DatabaseRows(reader, Variant.parse("3x3"))).ok
    assert driven == ["_Solve", "_Prove"]


ENGINES = {"engine", "running"}  # the names the package gives an engine it holds
ENGINE_CLASSES = {"InProcess", "DaskEngine"}
ENGINE_FLAGS = {"in_process", "record_aside"}  # what an engine says of itself for the pipeline alone


def branches_on_the_engine(source: str) -> list[int]:
    """The lines of ``source`` that ask which engine they hold: a test (``if``, a conditional
    expression, a comparison with None) that reads a name in :data:`ENGINES`, an ``isinstance``
    against an engine's class, or an engine's flag for the pipeline (:data:`ENGINE_FLAGS`)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        tests = [node.test] if isinstance(node, (ast.If, ast.IfExp, ast.While)) else []
        if isinstance(node, ast.Compare) and any(
            isinstance(c, ast.Constant) and c.value is None for c in node.comparators
        ):
            tests.append(node)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance":
            tests.extend(node.args[1:])
            names = ENGINE_CLASSES
        else:
            names = ENGINES
        if any(isinstance(n, ast.Name) and n.id in names for test in tests for n in ast.walk(test)):
            found.add(node.lineno)
        if isinstance(node, ast.Attribute) and node.attr in ENGINE_FLAGS:
            found.add(node.lineno)
    return sorted(found)


def test_the_scan_finds_each_way_of_asking_which_engine():
    asked = [
        "if engine is None:\n    pass",
        'each = " (each worker\'s)" if running is not None else ""',
        "if running is not None:\n    report = 1",
        "if engine.in_process and tables is None:\n    pass",
        "solo = isinstance(engine, InProcess)",
        "with ThreadPoolExecutor(1) if engine.record_aside else nullcontext():\n    pass",
    ]
    assert [branches_on_the_engine(source) for source in asked] == [[1]] * len(asked)
    told = [
        "engine.check_alone(check)",
        "engine = engine or InProcess()",
        "say(running.budget_note)",
        "if tables is None:\n    pass",
    ]
    assert [branches_on_the_engine(source) for source in told] == [[]] * len(told)


def test_no_branch_on_the_engine_outside_the_engine_wing():
    """The engines describe themselves (:class:`ttt_solver.engine.Engine`); the command line holds
    one whether or not --engine is given, and only its option checks read the option."""
    found = {
        str(path.relative_to(PACKAGE)): lines
        for path in PACKAGE.rglob("*.py")
        if path.parts[len(PACKAGE.parts)] != "engine" and (lines := branches_on_the_engine(path.read_text()))
    }
    assert found == {}


def test_the_progress_hooks_and_the_shard_name_rule_are_each_defined_once():
    defined: dict[str, list[str]] = {}
    for folder in ("solver", "engine", "builder", "audit", "store", "system"):
        for path in (PACKAGE / folder).glob("*.py"):
            for node in ast.parse(path.read_text()).body:
                if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
                    defined.setdefault(node.targets[0].id, []).append(f"{folder}/{path.name}")
    assert {name: defined.get(name) for name in ("Note", "Steps", "Progress")} == {
        "Note": ["solver/solve.py"], "Steps": ["solver/solve.py"], "Progress": None
    }  # fmt: skip
    build_name = re.compile(r"\[0-9a-f\]\{16\}")
    holders = [str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py") if build_name.search(p.read_text())]
    assert holders == ["store/shards.py"]


def test_the_glossary_gives_each_word_of_the_engine_one_meaning():
    text = (ROOT / "docs" / "engine.md").read_text()
    glossary = text[text.index("## Glossary") :]
    words = re.findall(r"^\| \*\*([a-z ]+)\*\* \|", glossary, re.MULTILINE)
    assert len(words) == len(set(words))
    for word in ("tier", "ply", "chunk", "range", "images", "join", "record", "scratch folder", "storage", "shard"):
        assert word in words, word
