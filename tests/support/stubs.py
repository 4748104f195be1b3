"""Methods whose whole body raises: how a base class that forces a method on subclasses that
cannot have it shows (a stub raising NotImplementedError)."""

from __future__ import annotations

import ast
from pathlib import Path
from types import ModuleType


def only_raising(package: ModuleType) -> list[str]:
    """``file: function`` for each function of ``package``'s modules whose body (docstring aside)
    is one ``raise``."""
    stubs = []
    for path in sorted(Path(package.__file__ or "").parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef):
                body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
                if len(body) == 1 and isinstance(body[0], ast.Raise):
                    stubs.append(f"{path.name}: {node.name}")
    return stubs
