"""Did you mean ...? The names closest to a mistyped one, for error messages.

``anlyze`` and ``analyse`` are close to ``analyze``, ``trap`` to ``traps``, ``--varient`` to
``--variant`` (not to ``--quiet``); case and an option's leading dashes do not count.
Likeness is difflib's ``SequenceMatcher.ratio()``, counted here (:func:`likeness`): importing
difflib cost every command-line lookup 2.5% of ``import click``, for an error path.
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
    scored = [(likeness(key, typed), key) for key in keys]
    best = max((score for score, _ in scored), default=0.0)
    close = [(score, key) for score, key in scored if score >= max(CUTOFF, best - MARGIN)]
    return [key for _, key in sorted(close, key=lambda found: -found[0])]


def likeness(a: str, b: str) -> float:
    """``difflib.SequenceMatcher(None, a, b).ratio()`` for names (no junk; difflib drops
    popular letters only from 200 letters of ``b``, a length no name has): 2 x the letters in
    common / the letters in both."""
    total = len(a) + len(b)
    return 2.0 * _matched(a, b) / total if total else 1.0


def _matched(a: str, b: str) -> int:
    """The letters of difflib's matching blocks: the longest common run (the earliest in ``a``,
    then in ``b``, as difflib picks it), then the same on each side of it."""
    lengths: dict[int, int] = {}
    size = start_a = start_b = 0
    for i, letter in enumerate(a):
        ending: dict[int, int] = {}
        for j, other in enumerate(b):
            if other == letter:
                run = ending[j] = lengths.get(j - 1, 0) + 1
                if run > size:
                    size, start_a, start_b = run, i - run + 1, j - run + 1
        lengths = ending
    if not size:
        return 0
    before = _matched(a[:start_a], b[:start_b])
    return before + size + _matched(a[start_a + size :], b[start_b + size :])


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
