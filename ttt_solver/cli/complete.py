"""Shell completion of values: query names, agent specs and variants (commands and options come from click).

Each function runs on every TAB press, so it imports only what it lists.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from click.shell_completion import CompletionItem

from ..game.variant import NAMED_VARIANTS
from ..players.agent_names import AGENT_NAMES

if TYPE_CHECKING:
    import click


def variants(_ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    return [CompletionItem(name) for name in NAMED_VARIANTS if name.startswith(incomplete)]


def queries(_ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    # Imported here, not at the top: the named queries' module loads numpy; the other completions do not need it.
    from ..lookup import named_queries as named

    return [CompletionItem(q.name, help=q.description) for q in named.available() if q.name.startswith(incomplete)]


def _agent_names() -> list[str]:
    """Every family once, as a spec that works alone (``nstep`` is ``nstep:3``, ``perfect`` is ``perfect:1``)."""
    return list(dict.fromkeys(name.partition(":")[0] for name in AGENT_NAMES))


def agent(_ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    return [CompletionItem(name) for name in _agent_names() if name.startswith(incomplete)]


def agent_list(_ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """``--agents think1,th`` -> ``think1,think2``, ``think1,think3``: complete the last item of the list."""

    done, _, last = incomplete.rpartition(",")
    prefix = f"{done}," if done else ""
    taken = set(done.split(","))
    return [CompletionItem(prefix + name) for name in _agent_names() if name.startswith(last) and name not in taken]
