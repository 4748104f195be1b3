"""A throwaway PostgreSQL cluster for the tests and benchmarks.

``initdb`` in a temporary folder, started by ``pg_ctl`` on a free port on 127.0.0.1 (and a
Unix socket in the same folder), stopped and removed afterwards. The server refuses to run as
root, so as root the cluster belongs to the ``postgres`` user of Debian's package.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from glob import glob
from pathlib import Path
from typing import Any, Self


def binaries() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl``: on PATH, else Debian's newest version."""
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent
    folders = sorted(glob("/usr/lib/postgresql/*/bin"), key=lambda f: int(Path(f).parent.name or 0))
    return Path(folders[-1]) if folders and Path(folders[-1], "initdb").exists() else None


def unavailable() -> str | None:
    """Why no cluster can be started here (None: one can)."""
    if binaries() is None:
        return "no PostgreSQL server binaries (initdb, pg_ctl); apt-get install postgresql"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install -e '.[postgres]')"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no postgres user to run the server as"
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Cluster:
    """A running throwaway server: ``url`` reaches its ``postgres`` database as superuser."""

    def __init__(self, durable: bool = False) -> None:
        """``durable``: the server's default settings (fsync and all), for benchmarks; by
        default fsync is off, as nothing here must survive a crash."""
        folder = binaries()
        assert folder is not None, unavailable()
        self._bin = folder
        self.root = Path(tempfile.mkdtemp(prefix="ttt-pg-"))
        self._user: dict[str, Any] = {}
        if os.geteuid() == 0:
            account = pwd.getpwnam("postgres")
            os.chown(self.root, account.pw_uid, account.pw_gid)
            self._user = {"user": account.pw_uid, "group": account.pw_gid, "extra_groups": []}
        self.data = self.root / "data"
        self.port = _free_port()
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8")
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.root}"
        if not durable:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "log"), "-w", "-o", options, "start")
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, program: str, *args: str) -> None:
        subprocess.run([str(self._bin / program), *args], check=True, capture_output=True, cwd=self.root, **self._user)

    def database(self, name: str) -> str:
        """A new empty database: its URL. Its default collation ignores punctuation, as the
        en_US collations of many servers do (there ``.`` does not sort before ``O`` and ``X``)."""
        import psycopg

        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres", autocommit=True) as c:
            c.execute(
                f'CREATE DATABASE "{name}" TEMPLATE template0 LOCALE_PROVIDER icu'
                " ICU_LOCALE 'und-u-ka-shifted' LOCALE 'C.UTF-8'"
            )
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()
