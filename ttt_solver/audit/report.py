"""What a proof checked and the contradictions it found: the report of ``ttt-lookup verify``,
of the whole-table proof of an eager load, and of the batch tables."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import DatabaseError
from ..game import array_rules

SHOWN = 10  # contradictions a report lists in full


@dataclass
class Report:
    """What a proof checked and the contradictions it found."""

    variant: str
    location: str
    hint: str
    checks: list[str] = field(default_factory=list)
    contradictions: list[str] = field(default_factory=list)
    found: int = 0  # contradictions in all (only the first SHOWN are listed)
    bad: set[int] = field(default_factory=set)  # codes of the rows found wrong
    kinds: int = 0  # failed checks (only the first SHOWN are listed)
    progress: Callable[[str], None] | None = field(default=None, repr=False)  # told each stage, as it starts

    @property
    def ok(self) -> bool:
        return self.found == 0

    def stage(self, what: str) -> None:
        if self.progress is not None:
            self.progress(f"{self.variant}: {what}")

    def passed(self, check: str) -> None:
        self.checks.append(check)

    def failed(self, what: str, boards: list[str] | None = None, count: int = 1) -> None:
        self.found += count
        self.kinds += 1
        if len(self.contradictions) < SHOWN:
            shown = f" (e.g. {', '.join(repr(b) for b in boards[:3])})" if boards else ""
            self.contradictions.append(f"{what}{shown}" if count == 1 else f"{count:,} rows: {what}{shown}")

    @property
    def summary(self) -> str:
        """``1 contradiction`` / ``12 contradictions``."""
        return f"{self.found:,} contradiction{'' if self.found == 1 else 's'}"

    def check(self, passed: bool | np.bool_, what: str) -> bool:
        if passed:
            self.passed(what)
        else:
            self.failed(what)
        return bool(passed)

    def rows(self, bad: np.ndarray, codes: np.ndarray, variant: Any, what: str, passed: str) -> None:
        """Record ``what`` for every row where ``bad`` holds, else ``passed``."""
        if bad.any():
            self.bad.update(codes[bad].tolist())
            self.failed_codes(what, codes[bad], variant)
        else:
            self.passed(passed)

    def failed_codes(self, what: str, codes: np.ndarray, variant: Any) -> None:
        """Record ``what`` for each of these rows (if any), the first three shown as boards."""
        if len(codes):
            self.failed(what, array_rules.decode_texts(codes[:3], variant), len(codes))

    def raise_for_contradictions(self, failing: str = "fails verification") -> None:
        if not self.ok:
            raise DatabaseError(
                f"database {self.location!r} {failing}: {self.contradictions[0]}"
                f"{f' (and {self.found - 1:,} more)' if self.found > 1 else ''}; {self.hint}"
            )

    def to_dict(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "database": self.location,
            "ok": self.ok,
            "checks": self.checks,
            "contradictions": self.found,
            "first_contradictions": self.contradictions,
        }

    def text(self) -> str:
        lines = [f"checks of {self.location} ({self.variant}):"]
        lines += [f"  ok    {check}" for check in self.checks]
        lines += [f"  FAIL  {what}" for what in self.contradictions]
        more = self.kinds - len(self.contradictions)
        if more:
            lines.append(f"  ... and {more:,} more failed check{'' if more == 1 else 's'}")
        lines.append("the table is proved" if self.ok else f"{self.summary}; {self.hint}")
        return "\n".join(lines)
