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
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ("ttt_solver", *path.relative_to(PACKAGE).with_suffix("").parts)
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that ``name`` imports, wherever in the file."""
    tree = ast.parse(path.read_text())
    typing_only = {
        id(node)
        for test in ast.walk(tree)
        if isinstance(test, ast.If) and ast.unparse(test.test) == "TYPE_CHECKING"
        for statement in test.body
        for node in ast.walk(statement)
    }
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            target = ".".join([*base, node.module] if node.module else base)
            for alias in node.names:
                found.add(f"{target}.{alias.name}" if f"{target}.{alias.name}" in known else target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
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
