"""Did you mean ...? The names closest to a mistyped one, for error messages.

``anlyze`` and ``analyse`` are close to ``analyze``, ``trap`` to ``traps``; case does not count.
Only an error path imports this (and difflib).
"""

from __future__ import annotations

from collections.abc import Iterable


def close_names(name: str, names: Iterable[str], count: int = 3) -> list[str]:
    """Up to ``count`` of ``names`` that look like ``name``, closest first."""
    from difflib import get_close_matches

    by_lower: dict[str, str] = {}
    for known in names:
        by_lower.setdefault(known.lower(), known)
    return [by_lower[found] for found in get_close_matches(name.strip().lower(), list(by_lower), n=count)]


def did_you_mean(name: str, names: Iterable[str]) -> str | None:
    """``did you mean 'traps'?`` (or ``'a' or 'b'``), or None when no name is close."""
    found = close_names(name, names)
    if not found:
        return None
    quoted = [repr(known) for known in found]
    listed = quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"
    return f"did you mean {listed}?"
