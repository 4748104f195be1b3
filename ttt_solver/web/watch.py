"""The served variants, each opened when it is first asked for and watched after that.

The server answers at once: a variant's database is opened (:func:`ttt_solver.web.data.open_variant`:
seconds for a big one) in a thread when a request first names the variant, with a line on the
console when it starts and ends; until it is open, that variant's requests raise
:class:`Loading` (the API's 503 with ``"status": "loading"``) and every other variant is
answered as usual. Nothing here builds a database: a variant with no database is a 404 naming
the command that builds it.

Once open, at most once every ``interval`` seconds per variant, a request starts a check in a
thread (:func:`ttt_solver.web.data.stamp`: a file's identity and time of change, a server
database's digest). When it changed (a rebuild renamed a new file over it, or it was written
in place), the database is opened again in that thread while requests go on being answered
from the copy opened before; then the new copy replaces it whole. The batch tables are built
again only for a new content digest. A database that cannot be opened (gone, damaged, another
variant, a server that fails) turns its variant's every request into that error (503, naming
the command that rebuilds it) until a later check opens it again. Nothing is ever answered from
a mixture of two copies.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..errors import DatabaseError, InvalidVariantError, TTTError
from ..game.variant import STANDARD, Variant
from ..store.missing_database import build_command
from . import data

_SPELLINGS = 1024  # spellings of served variants' names remembered
_NEVER_OPENED = object()  # the stamp of a database not opened yet

Progress = Callable[[str], None]


class Loading(Exception):
    """A variant's database is being opened: asked again shortly, it is answered."""


class Watched:
    """One served variant: its database, the copy opened from it (once it is), and why it
    cannot be served now, if it cannot."""

    def __init__(
        self,
        variant: Variant,
        database: str,
        interval: float,
        progress: Progress | None = None,
        served: data.Served | None = None,
    ) -> None:
        self.variant = variant
        self.database = database
        self.served = served
        self.failure: str | None = None  # why the database cannot be served now
        self.interval = interval
        self.progress = progress
        self._stamp: object = _NEVER_OPENED if served is None else served.stamp
        self._next_check = 0.0 if served is None else time.monotonic() + interval
        self._busy = threading.Lock()

    @property
    def name(self) -> str:
        return self.variant.name

    @property
    def status(self) -> str:
        """``ready``, ``loading`` (being opened), ``not loaded`` (never asked for) or ``failed``."""
        if self.failure is not None:
            return "failed"
        if self.served is not None:
            return "ready"
        return "loading" if self._busy.locked() else "not loaded"

    def describe(self) -> dict[str, Any]:
        """The entry of ``GET /api/v1/variants``: an opened database's meta table and statistics,
        or the geometry and status of one not opened yet (null meta and stats)."""
        served = self.served
        if served is not None:
            return {**served.describe(), "status": "ready"}
        return {**data.geometry(self.variant), "status": self.status, "meta": None, "stats": None}

    def current(self) -> data.Served:
        """The copy to answer from; DatabaseError if the database cannot be served now,
        Loading while it is being opened for the first time."""
        now = time.monotonic()
        if now >= self._next_check and not self._busy.locked():
            self._next_check = now + self.interval
            threading.Thread(target=self.check, name=f"watch {self.name}", daemon=True).start()
        if self.failure is not None:
            raise DatabaseError(self.failure)
        if self.served is None:
            raise Loading(
                f"variant {self.name!r} is loading (its database {self.database!r} is being opened);"
                " ask again in a few seconds"
            )
        return self.served

    def check(self) -> None:
        """Open the database if it was never opened or changed since (one check at a time)."""
        if not self._busy.acquire(blocking=False):
            return
        try:
            old = self.served
            now = data.stamp(self.database, self.variant)
            if now == self._stamp:
                return
            first = old is None and self._stamp is _NEVER_OPENED
            started = time.monotonic()
            try:
                new = data.open_variant(self.database, self.variant, self.progress if first else None, reuse=old)
            except (TTTError, MemoryError) as error:
                self.failure = str(error) if isinstance(error, TTTError) else "not enough memory to open the database"
                self._stamp = now
                self._say(f"{self.name} cannot be served: {self.failure}")
                return
            self.served, self.failure, self._stamp = new, None, new.stamp
            if first:
                self._say(f"{self.name} ready ({time.monotonic() - started:.1f} s)")
            # The old copy's connection closes when the last request still using it lets it go.
        finally:
            self._busy.release()

    def _say(self, line: str) -> None:
        if self.progress is not None:
            self.progress(line)


class Registry:
    """The served variants by name: a fixed set of databases, or (``folder=True``) the default
    database of any variant that has one in the data folder, found when it is asked for."""

    def __init__(
        self,
        databases: Mapping[Variant, str] | None = None,
        *,
        opened: Iterable[data.Served] = (),
        interval: float = 1.0,
        progress: Progress | None = None,
        folder: bool = False,
    ) -> None:
        self.interval = interval
        self.progress = progress
        self.folder = folder
        self.watched: dict[str, Watched] = {}
        for one in opened:
            self.watched[one.name] = Watched(one.variant, one.database, interval, progress, served=one)
        for variant, database in (databases or {}).items():
            self.watched[variant.name] = Watched(variant, database, interval, progress)
        self._spellings: dict[str, Watched] = {}  # names as requests spell them (a few, bounded)

    @classmethod
    def of_opened(cls, served: Iterable[data.Served], interval: float = 1.0) -> Registry:
        """Variants whose databases are open already."""
        return cls(opened=served, interval=interval)

    def get(self, name: str) -> data.Served:
        """The current copy of variant ``name`` (any spelling the command line takes): 404-worthy
        InvalidVariantError if it is not served, DatabaseError if it cannot be served now,
        Loading while it is being opened."""
        found = self._spellings.get(name)
        if found is None:
            found = self._find(name)
            if len(self._spellings) >= _SPELLINGS:
                self._spellings.clear()
            self._spellings[name] = found
        return found.current()

    def _find(self, name: str) -> Watched:
        try:
            variant = Variant.parse(name)
        except InvalidVariantError:
            variant = None
        if variant is not None and variant.name in self.watched:
            return self.watched[variant.name]
        if not self.folder:
            raise InvalidVariantError(f"variant {name!r} is not served here; served: {', '.join(self.watched)}")
        if variant is None:
            raise InvalidVariantError(f"no variant {name!r}: expected a name such as 3x3, 4x4 or 3x4k3")
        database = data.folder_database(variant)
        if database is None:
            raise InvalidVariantError(
                f"no database for variant {variant.name!r} in {data.folder_name()}:"
                f" build it with: {build_command(variant)}"
            )
        return self.watched.setdefault(variant.name, Watched(variant, database, self.interval, self.progress))

    def listed(self) -> list[Watched]:
        """The variants that have a database and can be served now or once opened, in the
        order given (the data folder's: 3x3 first, then by name)."""
        ordered = list(self.watched.values())
        if self.folder:
            for variant, database in data.folder_databases():
                self.watched.setdefault(variant.name, Watched(variant, database, self.interval, self.progress))
            ordered = sorted(self.watched.values(), key=lambda one: (one.variant != STANDARD, one.name))
        return [one for one in ordered if one.failure is None]
