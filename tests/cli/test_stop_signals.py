"""A stop signal is never lost: Python ignores an exception raised inside a weakref callback
(it would print "Exception ignored in ..." and a traceback, and go on), and a signal's handler
can run there, so the command stops at its next progress line instead, with no traceback
(``ttt_solver/cli/stopping.py``)."""

from __future__ import annotations

import subprocess
import sys

import pytest

SELF_STOPPING = """
import os, signal, sys, weakref
import click
from ttt_solver.cli import cli, main
from ttt_solver.cli.progress import progress_lines
from ttt_solver.cli.stopping import StoppingCommand

class Thing:
    pass

completed = []

def in_a_callback(_ref):
    os.kill(os.getpid(), signal.SIG{name})
    for _ in range(100_000):  # the handler runs here, inside the callback: its exception is ignored
        pass
    completed.append(True)

@cli.command("stopper", cls=StoppingCommand)
def stopper():
    thing = Thing()
    ref = weakref.ref(thing, in_a_callback)
    del thing
    click.echo(f"the callback completed: {bool(completed)}", err=True)
    say = progress_lines(False)
    say("a progress line after the signal")
    click.echo("finished")

main(["stopper"])
"""


@pytest.mark.parametrize("name, code", [("TERM", 143), ("HUP", 129), ("INT", 130)])
def test_a_stop_signal_raised_inside_a_weakref_callback_still_stops_the_command(name, code):
    done = subprocess.run(
        [sys.executable, "-c", SELF_STOPPING.replace("{name}", name)],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "the callback completed: False" in done.stderr  # the signal's first exception was lost there
    assert (done.returncode, done.stdout) == (code, ""), done.stderr
    assert done.stderr.endswith("Aborted!\n") and "a progress line after the signal" not in done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr


@pytest.mark.web
def test_serve_stops_when_the_signal_came_while_it_checked_its_databases(db_path, tmp_path):
    code = SELF_STOPPING.split("@cli.command")[0].replace("{name}", "TERM") + (
        "from ttt_solver.web import data\n"
        "checked = data.databases_of\n"
        "def databases_of(*args, **kwargs):\n"
        "    found = checked(*args, **kwargs)\n"
        "    thing = Thing(); ref = weakref.ref(thing, in_a_callback); del thing\n"
        "    click.echo(f'the callback completed: {bool(completed)}', err=True)\n"
        "    return found\n"
        "data.databases_of = databases_of\n"
        f"main(['serve', '--port', '0', '--db', {str(db_path)!r}])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert "the callback completed: False" in done.stderr and "Traceback" not in done.stderr
    assert done.returncode == 143 and done.stderr.endswith("Aborted!\n"), done.stderr[-2000:]
    assert " on http://" not in done.stderr  # it never served


STOPPED_MID_TRANSACTION = """
import os, signal, sqlite3, sys
import numpy as np
from ttt_solver.cli.stopping import terminate_as_interrupt
from ttt_solver.cli.terminated import Terminated
from ttt_solver.game.variant import Variant
from ttt_solver.store import writer

path = sys.argv[1]
insert = writer._insert_rows

def stopped_midway(*args):
    os.kill(os.getpid(), signal.SIG{name})
    for _ in range(100_000):  # a handler that raised would do so here, inside the transaction
        pass
    insert(*args)

writer._insert_rows = stopped_midway
file = writer.FileWriter(path, Variant.parse("3x3"))
try:
    with terminate_as_interrupt():
        try:
            file.positions([np.array([[7, 8]], dtype=np.int64)], lambda rows: print("written", rows))
        except (Terminated, KeyboardInterrupt) as stop:
            print("stopped:", type(stop).__name__)
finally:
    file.close()
with sqlite3.connect(path) as conn:
    print("rows:", conn.execute("SELECT count(*) FROM positions").fetchone()[0])
"""


@pytest.mark.parametrize("name, stop", [("TERM", "Terminated"), ("HUP", "Terminated"), ("INT", "KeyboardInterrupt")])
def test_a_stop_signal_inside_a_write_waits_for_its_transaction(tmp_path, name, stop):
    """A stop that comes while a block of rows is written takes effect once the block is
    committed and its connection back in SQLAlchemy's pool: raised inside SQLAlchemy's
    bookkeeping it was logged with a traceback, or left a closed connection for the next step
    (an ``OSError: Bad file descriptor`` or "Cannot operate on a closed database" one build in
    a hundred stopped while writing)."""
    done = subprocess.run(
        [sys.executable, "-c", STOPPED_MID_TRANSACTION.replace("{name}", name), str(tmp_path / "rows.sqlite")],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == f"stopped: {stop}\nrows: 1\n"  # the block committed; its progress not said


# The lookups read a few rows and write nothing: a stop signal's default action (the process ends)
# loses nothing, so they install no handlers and never import signal (tests/test_imports.py).
READS_ONLY = {"analyze", "best", "help"}


def test_every_command_that_runs_long_or_writes_stops_cleanly():
    import click

    from ttt_solver.cli import cli
    from ttt_solver.cli.stopping import StoppingCommand

    ctx = click.Context(cli)
    kinds = {name: isinstance(cli.get_command(ctx, name), StoppingCommand) for name in cli.list_commands(ctx)}
    assert {name for name, stopping in kinds.items() if not stopping} == READS_ONLY


FIRST_USE_STOPPED = """
import os, signal, sys
import ttt_solver.store.paths as paths
paths.data_folder = lambda: sys.argv[1]
import ttt_solver.cli.first_build as first_build
from ttt_solver.cli import main

def stopped(variant, announce, steps):
    os.kill(os.getpid(), signal.SIGTERM)
    for _ in range(100_000):  # the handler raises here
        pass
    print("the build went on")

first_build.default_database = stopped
main(["best", "......", "--variant", "2x3"])
"""


def test_a_lookups_first_use_build_stops_as_build_does(tmp_path):
    """A lookup installs no stop handlers, but the build it starts on first use does: SIGTERM
    stops it with ``Aborted!`` and 143 (its scratch folder kept), not by ending the process."""
    done = subprocess.run(
        [sys.executable, "-c", FIRST_USE_STOPPED, str(tmp_path)],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout, done.stderr) == (143, "", "Aborted!\n")
