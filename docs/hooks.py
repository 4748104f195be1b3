"""MkDocs hooks: the parts of the site made from the code, so that they cannot drift.

- Every command of ``ttt-lookup`` is loaded into the click group before mkdocs-click reads it:
  the group imports a command module only when one of its commands is asked for
  (``get_command``), and mkdocs-click lists a group's loaded commands once it has any.
- The HTTP API page gets the OpenAPI schema that the FastAPI app serves, made from the app
  itself (``<!-- openapi-schema -->`` marks where), and the site gets it as ``openapi.json``.
"""

from __future__ import annotations

import json
from typing import Any

import click
from mkdocs.structure.files import File, Files

from ttt_solver.cli import cli

MARK = "<!-- openapi-schema -->"


def on_config(config: Any) -> Any:
    with click.Context(cli) as ctx:
        for name in cli.list_commands(ctx):
            cli.get_command(ctx, name)
    return config


def openapi_schema() -> dict[str, Any]:
    """The schema of the app, as ``GET /openapi.json`` serves it (needs the ``[web]`` extra)."""
    from ttt_solver.web.app import create_app  # the [web] extra

    schema: dict[str, Any] = create_app({}).openapi()
    return schema


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    if MARK not in markdown:
        return markdown
    schema = openapi_schema()
    rows = [
        f"| `{method.upper()}` | `{path}` | {operation.get('summary', '')} |"
        for path, methods in schema["paths"].items()
        for method, operation in methods.items()
    ]
    table = "\n".join(["| method | path | summary |", "| --- | --- | --- |", *rows])
    whole = f"The whole schema ([openapi.json](openapi.json)):\n\n```json\n{json.dumps(schema, indent=2)}\n```\n"
    return markdown.replace(MARK, f"{table}\n\n{whole}")


def on_files(files: Files, config: Any) -> Files:
    files.append(File.generated(config, "openapi.json", content=json.dumps(openapi_schema(), indent=2)))
    return files
