"""The commands a database error tells the user to run, quoted for their shell.

Every hint names ``--variant`` and ``--db`` as given, so it works where the user is; only a
database that is ours (damaged, or built by an older version) gets ``--force``: a file that is
not a ttt-solver database is never overwritten on our advice.
"""

from __future__ import annotations


def build_command(target: str, variant_name: str, force: bool = False) -> str:
    """``ttt-lookup build --variant V --db D [--force]``."""
    # Here, not at the top: only an error message gets here, and every lookup imports this module
    # (the store's connection and rows name their hints), so shlex (0.6% of importing click)
    # would weigh on every command line for nothing.
    import shlex

    return f"ttt-lookup build --variant {variant_name} --db {shlex.quote(target)}{' --force' if force else ''}"


def rebuild_hint(target: str, variant_name: str) -> str:
    """For a damaged or outdated database of ours."""
    return f"rebuild it with: {build_command(target, variant_name, force=True)}"


def build_hint(target: str, variant_name: str) -> str:
    """For a missing database."""
    return f"build it with: {build_command(target, variant_name)}"
