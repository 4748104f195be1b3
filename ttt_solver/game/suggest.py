"""Did you mean ...? The names closest to a mistyped one, for error messages.

``anlyze`` and ``analyse`` are close to ``analyze``, ``trap`` to ``traps``, ``--varient`` to
``--variant`` (not to ``--quiet``); case and an option's leading dashes do not count.
The command line and the variant names import this as they load, for their error paths; difflib
(with heapq: 3M instructions, 2% of importing click) is imported only when a name is mistyped,
as click imports it for its own suggestions: difflib's matching is not worth copying.
"""

from __future__ import annotations

from collections.abc import Iterable


def close_names(name: str, names: Iterable[str], count: int = 3) -> list[str]:
    """Up to ``count`` of ``names`` that look like ``name``, closest first.

    Names are compared without their leading dashes: the ``--`` every long option shares
    would otherwise count as likeness, and make ``--quiet`` look like ``--varient``.
    """
    by_key: dict[str, str] = {}
    for known in names:
        by_key.setdefault(_key(known), known)
    typed = _key(name)
    begun = [key for key in by_key if _begins(typed, key)]
    return [by_key[key] for key in dict.fromkeys(begun + _similar(typed, list(by_key)))][:count]


CUTOFF = 0.6  # difflib's likeness (2 x letters in common / letters in both) a suggestion needs
MARGIN = 0.1  # and at most this much below the likest name's: 'verfy' is 'verify', not also 'query'


def _similar(typed: str, keys: list[str]) -> list[str]:
    """The keys most like ``typed``, likest first."""
    # Here, not at the top: only a mistyped name gets here, and every lookup imports this module
    # (its variant names' errors), so difflib would weigh on every command line for nothing.
    from difflib import SequenceMatcher

    matcher = SequenceMatcher(b=typed)
    scored = []
    for key in keys:
        matcher.set_seq1(key)
        scored.append((matcher.ratio(), key))
    best = max((score for score, _ in scored), default=0.0)
    close = [(score, key) for score, key in scored if score >= max(CUTOFF, best - MARGIN)]
    return [key for _, key in sorted(close, key=lambda found: -found[0])]


def _begins(typed: str, known: str) -> bool:
    """``typed`` is the start of ``known`` (``--tim`` of ``--time-limit``; three letters at
    least), but for a slip in its last letter (``--vary``); or ``known`` is its first word
    (``--db`` of ``--db-path``)."""
    if len(typed) >= 3 and typed != known and known.startswith(typed if len(typed) == 3 else typed[:-1]):
        return True
    return typed.startswith((f"{known}-", f"{known}_"))


def _key(name: str) -> str:
    """What counts when names are compared: the letters, without case or leading dashes."""
    return name.strip().lower().lstrip("-")


def did_you_mean(name: str, names: Iterable[str]) -> str | None:
    """``did you mean 'traps'?`` (or ``'a' or 'b'``), or None when no name is close."""
    found = close_names(name, names)
    if not found:
        return None
    quoted = [repr(known) for known in found]
    listed = quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"
    return f"did you mean {listed}?"
