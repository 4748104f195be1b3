"""Running out of memory is a NotEnoughMemoryError (one ``Error:`` line on the command line),
never a crash inside a C library.

Python's, numpy's and SQLite's allocations raise MemoryError, and a C extension that cannot be
mapped into the address space raises ImportError: :func:`out_of_memory` recognises both, and
:func:`memory_is_an_error` turns them into a NotEnoughMemoryError (``Oracle.load``, ``build``).
OpenBLAS, which numpy loads, does neither. At import it starts a thread per core, and when one
cannot be created it raises SIGINT (the program stops as by Ctrl-C: exit code 130); when a work
buffer cannot be allocated (at import, or at the first matrix product) it prints its own line
and ends the process. So, where ttt-solver is the first to import numpy, it first checks that
the address space can take numpy, its threads and OpenBLAS's buffer (:func:`numpy_room`), and
has OpenBLAS allocate that buffer right after the import, into the room just checked; if there
is no such room, the import raises MemoryError. The command line also runs OpenBLAS on the
calling thread (``OPENBLAS_NUM_THREADS=1``, unless the user chose): ttt-solver's products are
matrix-vector stacks too small to share out, and numpy then needs 128 MB of room, not 128 MB
and 40 MB for every further core.
"""

from __future__ import annotations

import mmap
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from importlib.machinery import PathFinder
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar, cast

from ..errors import NotEnoughMemoryError, raised_from

if TYPE_CHECKING:
    from importlib.abc import Loader  # not at run time: it imports pathlib, which a lookup never needs

P = ParamSpec("P")
R = TypeVar("R")

NUMPY_ROOM = 128 << 20
"""Address space numpy's import and OpenBLAS's first buffer take, with a margin: 81 MB and 34 MB
measured with one thread (numpy 2, scipy-openblas 0.3.31; VmSize before and after)."""
THREAD_ROOM = 40 << 20
"""And each further OpenBLAS thread, started at import: 37 MB measured (its stack and buffer)."""


def out_of_memory(error: BaseException | None) -> bool:
    """Whether ``error``, or what it was raised from, is running out of memory: a MemoryError,
    an OSError with ENOMEM, or a C extension that could not be mapped into the address space
    (an ImportError, not the ModuleNotFoundError of a package that is not installed), or a C
    function that failed without saying why (CPython's SystemError "error return without
    exception set"): seen under a memory limit, where an import's allocation failed in a C
    extension that did not raise MemoryError (SQLAlchemy's, importing the audit at 190 MB)."""
    for each in raised_from(error):
        if isinstance(each, MemoryError) or (isinstance(each, OSError) and each.errno == 12):  # ENOMEM
            return True
        if type(each) is ImportError and ("failed to map segment" in str(each) or "allocate memory" in str(each)):
            return True
        if type(each) is SystemError and "without exception set" in str(each):
            return True
    return False


def memory_is_an_error(what: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Make a function raise NotEnoughMemoryError ("not enough memory to {what}") where it runs
    out of memory, with numpy guarded (:func:`numpy_guarded`) while it runs."""

    def decorate(function: Callable[P, R]) -> Callable[P, R]:
        @wraps(function)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                with numpy_guarded():
                    return function(*args, **kwargs)
            except Exception as error:
                if not out_of_memory(error) or isinstance(error, NotEnoughMemoryError):
                    raise
                raise NotEnoughMemoryError(
                    f"not enough memory to {what}: free some memory, or raise this process's memory limit"
                ) from None

        return wrapper

    return decorate


@contextmanager
def numpy_guarded() -> Iterator[None]:
    """While inside, a first import of numpy checks for room first (see the module docstring)."""
    if "numpy" in sys.modules or _FirstNumpy in sys.meta_path:
        yield
        return
    sys.meta_path.insert(0, _FirstNumpy)
    try:
        yield
    finally:
        if _FirstNumpy in sys.meta_path:
            sys.meta_path.remove(_FirstNumpy)


def guard_command_line() -> None:
    """For the whole of a command: OpenBLAS and libuv on one thread each (unless the user chose),
    numpy guarded."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("UV_THREADPOOL_SIZE", "1")  # libuv's pool (uvloop, serve): it resolves one address
    if "numpy" not in sys.modules and _FirstNumpy not in sys.meta_path:
        sys.meta_path.insert(0, _FirstNumpy)


THREAD_ROOM_C = 32 << 20
"""A thread's stack (8 MB under the usual ``ulimit -s``) and what the code around its start
allocates, with a margin."""


def machine_memory() -> int | None:
    """The machine's physical memory in bytes (None where the system does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        return None


def size_text(size: int) -> str:
    """Bytes as ``--memory`` takes them and people read them: ``64KB``, ``995MB``, ``23.4GB``
    (powers of 1,024)."""
    for unit, shift in (("TB", 40), ("GB", 30), ("MB", 20), ("KB", 10)):
        if size >= 1 << shift:
            value = size / (1 << shift)
            return f"{value:.0f}{unit}" if value == int(value) or value >= 100 else f"{value:.1f}{unit}"
    return f"{size}B"


def reserve_threads(count: int = 1) -> None:
    """MemoryError unless ``count`` more threads can start now: for C code that aborts the
    process when one cannot (libuv, under uvicorn, starting the pool thread that resolves the
    address to bind)."""
    reserve(count * THREAD_ROOM_C, "threads")


def numpy_room() -> int:
    """The address space numpy's import will take: OpenBLAS starts the threads its environment
    variables ask for, else one per core this process may run on (at most 64)."""
    for name in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS"):
        value = os.environ.get(name, "")
        if value.isascii() and value.isdigit() and int(value) > 0:
            threads = int(value)
            break
    else:
        threads = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return NUMPY_ROOM + THREAD_ROOM * (min(threads, 64) - 1)


AUDIT_ROOM = 48 << 20
"""Address space the audit's first import takes (SQLAlchemy's SQL layer), with a margin: 27 MB
measured (VmSize before and after). Reserved first where a memory limit may be near: there,
CPython's import of SQLAlchemy was seen to fail with a SystemError, or to spin for minutes,
instead of raising MemoryError."""


def reserve(size: int, what: str = "numpy") -> None:
    """MemoryError unless ``size`` bytes of address space can be mapped now (then unmapped)."""

    flags = mmap.MAP_PRIVATE | getattr(mmap, "MAP_ANONYMOUS", 0) | getattr(mmap, "MAP_NORESERVE", 0)
    try:
        mmap.mmap(-1, size, flags=flags).close()
    except OSError:  # ENOMEM: the address space (ulimit -v) or the memory is exhausted
        raise MemoryError(f"no room for {what} ({size >> 20} MB)") from None


class _FirstNumpy:
    """A meta path finder that acts at the first import of numpy, then steps aside."""

    @classmethod
    def find_spec(cls, name: str, path: Any = None, target: Any = None) -> Any:
        if name != "numpy":
            return None
        sys.meta_path.remove(cls)
        reserve(numpy_room())

        spec = PathFinder.find_spec(name, path)
        if spec is not None and spec.loader is not None:
            spec.loader = cast("Loader", _Warming(spec.loader))
        return spec


class _Warming:
    """numpy's own loader, and then one small product, so that OpenBLAS takes its buffer now."""

    def __init__(self, loader: Any) -> None:
        self.loader = loader

    def create_module(self, spec: Any) -> Any:
        return self.loader.create_module(spec)  # None: the default module

    def exec_module(self, module: Any) -> None:
        module.__loader__ = module.__spec__.loader = self.loader  # numpy keeps its own loader
        self.loader.exec_module(module)
        # A matrix-vector product as the batch lookups make (a 4x4 matrix product would not
        # reach OpenBLAS's buffer).
        module.ones((512, 16), dtype=module.float32) @ module.ones(16, dtype=module.float32)
