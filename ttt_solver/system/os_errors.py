"""An operating system's refusal in words: the file it names, and what to do.

``OSError.strerror`` alone (``Not a directory``, ``Is a directory``, ``File exists``) leaves the
user to guess which of a build's many paths is meant; the path alone leaves them to guess
which part of it is in the way.
"""

from __future__ import annotations

import errno
import os

MOVE = "move it away or choose another path"


def described(error: OSError, named: str | None = None) -> str:
    """``error`` in one line: what is wrong, naming its file (and, where a part of the path is
    a file that should be a folder, that part), and what to do where that is clear. ``named``:
    the path the message names already (not said twice)."""
    if error.filename is None:
        return error.strerror or str(error) or type(error).__name__
    path = os.fsdecode(error.filename)
    same = named is not None and os.path.abspath(named) == os.path.abspath(path)
    if error.errno == errno.ENOTDIR and (blocking := file_on_the_way(path)) is not None:
        return f"{blocking!r} is a file, where a folder is needed{'' if same else f' for {path!r}'}: {MOVE}"
    if error.errno == errno.EEXIST and os.path.exists(path) and not os.path.isdir(path):
        return f"{'it' if same else repr(path)} is a file, where a folder is needed: {MOVE}"
    if error.errno == errno.EISDIR:
        return f"{'it' if same else repr(path)} is a folder, where a file is needed: {MOVE}"
    why = error.strerror or str(error)
    return why if same else f"{why}: {path!r}"


def file_on_the_way(path: str) -> str | None:
    """The first part of ``path`` (from its root) that is there and is not a folder, short of
    ``path`` itself; None if there is none."""
    parts = os.path.normpath(path).split(os.sep)
    for end in range(1, len(parts)):
        part = os.sep.join(parts[:end]) or os.sep
        if os.path.lexists(part) and not os.path.isdir(part):
            return part
    return None
