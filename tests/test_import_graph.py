"""The package's imports run one way: no module reaches itself again through the modules it
imports, and no layer imports a layer above it, counting the imports inside functions (made on
first use) and leaving out those only type checkers see (``if TYPE_CHECKING:``). The layers,
from the ground up, are :data:`LAYERS`; each module lives in the folder of its layer."""

from __future__ import annotations

import ast
from pathlib import Path

import ttt_solver

PACKAGE = Path(ttt_solver.__file__).parent


def modules() -> dict[str, Path]:
    """Every module of the package by name: its Python files, and its C extensions by their
    stubs (a ``.pyi`` with no ``.py`` beside it), which import nothing of the package."""
    found = {}
    stubs = [path for path in PACKAGE.rglob("*.pyi") if not path.with_suffix(".py").exists()]
    for path in [*PACKAGE.rglob("*.py"), *stubs]:
        parts = ("ttt_solver", *path.relative_to(PACKAGE).with_suffix("").parts)
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(name: str, path: Path, known: set[str], at_import: bool = False) -> set[str]:
    """The package's modules that ``name`` imports, wherever in the file; ``at_import``: only
    those its import runs (not in a function), and other packages' top names too."""
    tree = ast.parse(path.read_text())
    typing_only = {
        id(node)
        for test in ast.walk(tree)
        if isinstance(test, ast.If) and ast.unparse(test.test) == "TYPE_CHECKING"
        for statement in test.body
        for node in ast.walk(statement)
    }
    deferred = {
        id(node)
        for function in ast.walk(tree)
        if at_import and isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        for node in ast.walk(function)
    }
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if id(node) in typing_only or id(node) in deferred:
            continue
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            target = ".".join([*base, node.module] if node.module else base)
            for alias in node.names:
                found.add(f"{target}.{alias.name}" if f"{target}.{alias.name}" in known else target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    if at_import:
        return {other if other in known else other.partition(".")[0] for other in found} - {name}
    return (found & known) - {name}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                other = stack.pop()
                component.append(other)
                if other == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


LAYERS = (
    ("errors", "version"),  # the few modules at the root
    ("system",),  # what the process needs of the machine
    ("game",),  # board, variant, rules, codes, symmetry
    ("solver",),  # solving in arrays
    ("engine",),  # carrying the passes over the tiers: engines, the tier pipeline, scratch, storage, shuffle
    ("store",),  # the only place that talks SQL and knows the row format
    ("audit",),  # proving whole tables
    ("lookup",),  # answering questions, each proved
    ("builder",),  # writing databases: nothing below imports it
    ("players",),
    ("envs",),
    ("charts",),
    ("web",),
    ("cli",),
    ("__init__", "__main__"),  # the package's own face
)
ROOT_MODULES = {"__init__", "__main__", "errors", "version"}
READERS = ("lookup", "audit", "web")  # reading never builds


def layer_of(name: str) -> int:
    part = name.split(".")[1] if "." in name else "__init__"
    return next(height for height, names in enumerate(LAYERS) if part in names)


def graph() -> dict[str, set[str]]:
    found = modules()
    return {name: imports(name, path, set(found)) for name, path in found.items()}


def test_no_module_imports_itself_back():
    found = graph()
    assert len(found) > 80 and found["ttt_solver.lookup.oracle"] >= {"ttt_solver.lookup.rows"}
    assert cycles(found) == []


def test_no_layer_imports_a_layer_above_it():
    upward = sorted(
        f"{name} -> {other}" for name, others in graph().items() for other in others if layer_of(other) > layer_of(name)
    )
    assert upward == []


def loaded_by_importing(name: str) -> set[str]:
    """Every module importing ``name`` runs, its packages' ``__init__`` included, and the
    top names of the other packages they import (what a module's import costs, by where its
    code lives: imports inside functions are left out)."""
    found = modules()
    reached, todo = set(), [name]
    while todo:
        module = todo.pop()
        parents = [".".join(module.split(".")[:end]) for end in range(1, module.count(".") + 1)]
        for other in (imports(module, found[module], set(found), at_import=True) | set(parents)) - reached:
            reached.add(other)
            if other in found:
                todo.append(other)
    return reached


def test_a_command_line_lookup_loads_no_heavy_module_by_where_code_lives():
    """A lookup's answer is a few rows that sqlite3 reads and proves, for every variant: nothing
    the ``analyze`` and ``best`` commands import imports numpy, SQLAlchemy or the whole-table
    modules at its top (tests/test_imports.py runs one, a big database's too)."""
    loaded = loaded_by_importing("ttt_solver.cli.lookup")
    assert {"ttt_solver.lookup.oracle", "ttt_solver.lookup.proved", "sqlite3", "click"} <= loaded
    whole_table = {f"ttt_solver.lookup.{name}" for name in ("whole_table", "mapped", "tables", "in_memory", "places")}
    assert loaded & ({"numpy", "sqlalchemy", "ttt_solver.audit.retrograde"} | whole_table) == set()


def test_reading_never_imports_the_builder():
    """Nothing the lookups (and named queries), the audit or the server import, however
    indirectly, can build a database."""
    found = graph()
    for name in found:
        if name.count(".") and name.split(".")[1] in READERS:
            reached, todo = set(), [name]
            while todo:
                for other in found[todo.pop()] - reached:
                    reached.add(other)
                    todo.append(other)
            assert not {other for other in reached if other.startswith("ttt_solver.builder")}, name


def test_each_module_in_its_layer_and_named_once():
    assert {path.stem for path in PACKAGE.glob("*.py")} <= ROOT_MODULES
    folders = {path.name for path in PACKAGE.iterdir() if path.is_dir() and path.name != "__pycache__"}
    assert folders <= {name for names in LAYERS for name in names}
    names = [path.stem for path in PACKAGE.rglob("*.py") if path.stem not in ("__init__", "__main__")]
    assert sorted({name for name in names if names.count(name) > 1}) == []


def test_a_circle_is_found():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
