"""Counting how often user input is parsed into a board: each way in parses it once.

Every parse of board text goes through ``rules.parse`` (``Board()``, ``board_from_input``
and the oracle's lookups call it through the module), and every parse of a move list through
``rules.parse_moves``; :func:`count_parses` replaces both with counting wrappers."""

from __future__ import annotations

from typing import Any

import pytest

from ttt_solver.game import rules


def count_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts parsed from now on (board texts and move lists), in order."""
    parsed: list[str] = []
    for name in ("parse", "parse_moves"):
        real = getattr(rules, name)

        def counting(text: str, *args: Any, real: Any = real, **kwargs: Any) -> Any:
            parsed.append(text)
            return real(text, *args, **kwargs)

        monkeypatch.setattr(rules, name, counting)
    return parsed
