"""The served databases, watched: every request gets the copy of its variant that is current,
and a database that changed under the running server is opened again.

At most once every ``interval`` seconds per variant, a request starts a check in a thread
(:func:`ttt_solver.web.data.stamp`: a file's identity and time of change, a server database's
digest). When it changed (a rebuild renamed a new file over it, or it was written in place),
the database is opened again in that thread, as at start-up, while requests go on being
answered from the copy opened before; then the new copy replaces it whole. The batch tables
are built again only for a new content digest. A database that cannot be opened any more
(gone, damaged, another variant, a server that fails) turns its variant's every request into
that error (503, naming the command that rebuilds it) until a later check opens it again.
Nothing is ever answered from a mixture of two copies.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable

from ..errors import DatabaseError, InvalidVariantError, TTTError
from ..game.variant import Variant
from . import data

_SPELLINGS = 1024  # spellings of served variants' names remembered


class Watched:
    """One served variant and the state of its database."""

    def __init__(self, served: data.Served, interval: float) -> None:
        self.served = served
        self.failure: str | None = None  # why the database cannot be served now
        self.interval = interval
        self._stamp = served.stamp
        self._next_check = time.monotonic() + interval
        self._busy = threading.Lock()

    def current(self) -> data.Served:
        """The copy to answer from; DatabaseError if the database cannot be served now."""
        now = time.monotonic()
        if now >= self._next_check and not self._busy.locked():
            self._next_check = now + self.interval
            threading.Thread(target=self.check, name=f"watch {self.served.name}", daemon=True).start()
        if self.failure is not None:
            raise DatabaseError(self.failure)
        return self.served

    def check(self) -> None:
        """Open the database again if it changed since it was last opened (one check at a time)."""
        if not self._busy.acquire(blocking=False):
            return
        try:
            old = self.served
            now = data.stamp(old.database, old.variant)
            if now == self._stamp:
                return
            try:
                new = data.open_variant(old.database, old.variant, reuse=old)
            except (TTTError, MemoryError) as error:
                self.failure = str(error) if isinstance(error, TTTError) else "not enough memory to open the database"
                self._stamp = now
                return
            self.served, self.failure, self._stamp = new, None, new.stamp
            # The old copy's connection closes when the last request still using it lets it go.
        finally:
            self._busy.release()


class Registry:
    """The served variants by name."""

    def __init__(self, served: Iterable[data.Served], interval: float = 1.0) -> None:
        self.watched = {one.name: Watched(one, interval) for one in served}
        self._spellings: dict[str, Watched] = {}  # names as requests spell them (a few, bounded)

    def get(self, name: str) -> data.Served:
        """The current copy of variant ``name`` (any spelling the command line takes): 404-worthy
        InvalidVariantError if it is not served, DatabaseError if it cannot be served now."""
        found = self._spellings.get(name)
        if found is None:
            try:
                found = self.watched.get(Variant.parse(name).name)
            except InvalidVariantError:
                found = None
            if found is None:
                raise InvalidVariantError(f"variant {name!r} is not served here; served: {', '.join(self.watched)}")
            if len(self._spellings) >= _SPELLINGS:
                self._spellings.clear()
            self._spellings[name] = found
        return found.current()

    def available(self) -> list[data.Served]:
        """The variants that can be served now, in the order given."""
        found = []
        for name in self.watched:
            try:
                found.append(self.get(name))
            except DatabaseError:
                continue
        return found
