"""Making and checking databases: ``build`` and ``verify``."""

from __future__ import annotations

# Imported in the commands, not at the top: numpy and SQLAlchemy stay off every command that does not need them (--help imports each command module to list it).
import dataclasses
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import click

from ..errors import MachineTooSmallError, install_hint
from ..game.variant import Variant
from ..lookup.rows import DatabaseRows
from ..store import Target, number_in
from ..store.paths import data_folder, database_file
from ..store.reader import Reader
from ..store.shards import MOST_SHARDS
from ..system.cost_model import duration, verify_seconds
from ..system.memory import machine_memory
from .bounded_params import OneOf, Size, Whole
from .engine_params import Address, StorageRoot
from .options import CLIError, CLIFailure, F, database_options, existing_database, target_options
from .output import echo_json, output_options
from .progress import bars, quiet_option
from .stopping import StoppingCommand
from .terminated import Terminated

if TYPE_CHECKING:
    from ..builder.plan import Plan
    from ..engine import Engine

ENGINES = ("dask",)


def engine_options(doing: str, files: str, default: str) -> Callable[[F], F]:
    """``--engine``, ``--workers``, ``--address`` and ``--storage``: the same options, wording
    and checks for every command that runs its passes on an engine (``doing``: what the engine
    does; ``files``: what its workers exchange; ``default``: where, without ``--storage``)."""

    def add(command: F) -> F:
        for option in reversed(
            [
                click.option(
                    "--engine",
                    type=OneOf(ENGINES),
                    help=f"{doing} on a distributed engine (the [dask] extra); --memory is then each worker's budget.",
                ),
                click.option(
                    "--workers",
                    type=Whole(1, 1024),
                    help="With --engine and no --address: worker processes of the local cluster (default: the CPUs).",
                ),
                click.option(
                    "--address",
                    type=Address(),
                    metavar="ADDRESS",
                    help="With --engine: the scheduler to use, e.g. tcp://10.0.0.1:8786.",
                ),
                click.option(
                    "--storage",
                    type=StorageRoot(),
                    metavar="FOLDER|URL",
                    help=f"With --engine: where the workers exchange {files}: a folder every worker reaches by the"
                    f" same path, or an fsspec URL such as s3://bucket/prefix (the [s3] extra; default: {default}).",
                ),
            ]
        ):
            command = option(command)
        return command

    return add


memory_option = click.option(
    "--memory",
    metavar="SIZE",
    type=Size(minimum=1 << 16, maximum=machine_memory(), what="this machine's memory"),
    help="Memory budget, e.g. 512MB or 8GB (default: what the machine can spare, at most 8GB).",
)


@click.command(cls=StoppingCommand)
@target_options
@click.option(
    "--force",
    is_flag=True,
    help="Overwrite a target that ttt-solver did not make; start over, not resuming a stopped build.",
)
@quiet_option
@memory_option
@click.option("--plan", "plan_only", is_flag=True, help="Print the build's plan (tiers, CPU, memory, disk) and stop.")
@engine_options("Solve the tiers", "the tiers' files", "the scratch folder beside the target")
@click.option(
    "--shards",
    type=Whole(1, MOST_SHARDS),
    help="With --engine: the files the workers write the rows into, side by side (default: one a worker, over 16 cells).",
)
@output_options("json")
def build(
    variant: Variant,
    db: str | None,
    force: bool,
    quiet: bool,
    memory: int | None,
    plan_only: bool,
    engine: str | None,
    workers: int | None,
    address: str | None,
    storage: str | None,
    shards: int | None,
    fmt: str,
) -> None:
    """Solve a variant exhaustively and write its database (all or nothing).

    The default target is the variant's default database (data/ttt.sqlite for 3x3 in a
    checkout). The SQLite file is written beside the target and renamed into place. A
    variant this machine cannot hold alone (5x5k4) is refused, with its plan, unless an
    engine builds it.

    \b
    Example:
        ttt-lookup build
        ttt-lookup build --variant 4x4
        ttt-lookup build --db my.sqlite --force
        ttt-lookup build --variant 5x5k4 --plan
        ttt-lookup build --variant 4x4 --engine dask --workers 2
    """
    from ..builder.plan import check_machine, make_plan

    check_engine_options(engine, workers, address, storage, shards)
    if plan_only:
        _show_plan(make_plan(variant, target_folder(db, variant)), fmt)
        return
    chosen = _engine(engine, workers, address, storage)
    try:
        # Before the builder's imports (SQLAlchemy, the audit): a refusal comes at once.
        chosen.check_alone(lambda: check_machine(variant, target_folder(db, variant)))
        from ..builder.build import build as build_database

        with chosen as running, _stopped_says(db, variant), bars(quiet, f"{variant}: ") as shown:
            progress = None if quiet else shown.say
            if progress:
                _say_upfront(progress, variant, db, memory, force, running)
            report = build_database(
                db, variant, force=force, progress=progress, steps=shown.step, memory=memory, engine=running,
                shards=shards,
            )  # fmt: skip
    except MachineTooSmallError as error:
        _show_plan(error.plan, fmt)
        raise
    if fmt == "json":
        echo_json(dataclasses.asdict(report))
    else:
        click.echo(report.summary())


def _show_plan(plan: Plan, fmt: str) -> None:
    """The plan on stdout: its table and totals, or its JSON."""
    if fmt == "json":
        echo_json(plan.report())
    else:
        click.echo("\n".join(plan.lines()))


def _say_upfront(say: Callable[[str], None], variant: Variant, db: str | None, memory: int | None, force: bool,
                 running: Engine) -> None:  # fmt: skip
    """The lines a build says before it starts: the engine it runs on, and what it takes if its
    plan says seconds (the plan that ``--plan`` prints)."""
    from ..builder.build import scratch_folder
    from ..builder.kept import folder_size
    from ..builder.plan import make_plan
    from ..solver.solve import default_memory

    _say_engine(say, variant, running)
    plan = make_plan(variant, target_folder(db, variant))
    cost = (plan.cpu_on(running.processes), plan.disk_bytes, "of disk")
    end = "; --plan says more"
    if not force and folder_size(scratch_folder(_target(db, variant), variant)):  # it will resume
        proof = verify_seconds(sum(tier.canonical for tier in plan.tiers))
        end = f", and about {duration(proof)} more to prove the resumed database whole{end}"
    _say_cost(say, f"{variant}: this build takes", cost, memory or default_memory(), running, end)


def _say_cost(
    say: Callable[[str], None],
    start: str,
    cost: tuple[float, int, str],
    budget: int,
    running: Engine,
    end: str = "",
) -> None:
    """One line of what a run takes (CPU seconds, disk bytes and what disk), if it is seconds or more."""
    from ..builder.plan import LONG_SECONDS, takes

    seconds, disk, where = cost
    if seconds >= LONG_SECONDS:
        say(f"{start} {takes(seconds, disk, budget, where)}{running.budget_note}{end}")


def _say_engine(say: Callable[[str], None], variant: Variant, running: Engine) -> None:
    """What the engine says of itself (that Dask runs the tasks, on how many workers: :attr:`Engine.lines`)."""
    for line in running.lines:
        say(f"{variant}: {line}")


@contextmanager
def _stopped_says(db: str | None, variant: Variant) -> Iterator[None]:
    """A build stopped (Ctrl-C, SIGTERM) says what it kept and the ways on, then stops."""
    try:
        yield
    except (KeyboardInterrupt, Terminated):
        from ..builder.build import scratch_folder
        from ..builder.kept import stop_lines

        folder = scratch_folder(_target(db, variant), variant)
        click.echo("\n".join(stop_lines(folder, variant.name)), err=True)
        raise


def _target(db: str | None, variant: Variant) -> Target:
    return Target.parse(db if db is not None else database_file(variant))


def check_engine_options(
    name: str | None, workers: int | None, address: str | None, storage: str | None, shards: int | None = None
) -> None:
    """One error line for ``--workers``, ``--address``, ``--storage`` or ``--shards`` without
    ``--engine``, or for both ``--workers`` and ``--address``."""
    for given, option in ((workers, "--workers"), (address, "--address"), (storage, "--storage"), (shards, "--shards")):
        if given is not None and name is None:
            raise CLIError(f"{option} needs --engine")
    if workers is not None and address is not None:
        raise CLIError("--workers starts a local cluster, --address uses a running one: give one of them")


def _engine(name: str | None, workers: int | None, address: str | None, storage: str | None) -> Engine:
    """The engine ``--engine`` names, to enter (this process's without one); one error line if
    its extra is missing."""
    from ..engine import InProcess

    if name is None:
        return InProcess()
    try:
        from ..engine.engine_dask import DaskEngine  # the optional extra: only when asked for
    except ImportError:
        hint = install_hint("dask", "'dask[distributed]'")
        raise CLIError(f"--engine dask needs the [dask] extra: {hint}") from None
    return DaskEngine(workers or os.cpu_count() or 1, address, storage=storage)


def target_folder(db: str | None, variant: Variant) -> str:
    """The folder a build of ``variant`` at ``db`` writes into (for its free disk)."""
    target = _target(db, variant)
    return os.path.dirname(os.path.abspath(target.file)) if target.file is not None else data_folder()


@click.command(cls=StoppingCommand)
@database_options
@quiet_option
@memory_option
@engine_options("Prove the tiers", "the tiers' rows and result bytes", "a temporary folder, in TMPDIR")
@output_options("json")
def verify(
    variant: Variant,
    db: str | None,
    quiet: bool,
    memory: int | None,
    engine: str | None,
    workers: int | None,
    address: str | None,
    storage: str | None,
    fmt: str,
) -> None:
    """Prove a database whole: every row against the rules and its children's rows.

    Checks that the table holds every legal canonical position exactly once and nothing
    else, every finished position's value from the rules, every other row's value,
    remoteness, best moves and move counts from its children's rows, the orbits, the
    readable columns, the moves table (where stored), the meta counts and the content
    digest. Exit code 1 on any contradiction. (Each lookup already checks the rows it
    shows against the rows one ply below; this is the whole-table check.) Each stage is
    announced on stderr as it starts (seconds each on 4x4); --quiet keeps them off. With
    --engine, each tier's chunks are proved as the engine's tasks, with the same report.

    \b
    Example:
        ttt-lookup verify
        ttt-lookup verify --variant 4x4 --json
        ttt-lookup verify --variant 4x4 --engine dask --workers 2
    """
    from ..audit.verify import temporary_bytes, verify_source
    from ..solver.solve import default_memory

    check_engine_options(engine, workers, address, storage)
    target = Target.parse(existing_database(db, variant))
    with (
        Reader(target, variant.name) as reader,
        _engine(engine, workers, address, storage) as running,
        bars(quiet, f"{variant}: ") as shown,
    ):
        source = DatabaseRows(reader, variant)
        progress = None if quiet else shown.say
        if progress:
            _say_engine(progress, variant, running)
            rows = number_in(source.meta.get("positions")) or 0
            budget = memory or default_memory()
            disk = temporary_bytes(rows)
            cost = (verify_seconds(rows), disk, "of temporary disk (TMPDIR)")
            _say_cost(progress, f"{variant}: verify takes", cost, budget, running)
        report = verify_source(source, memory, shown.step, progress, running)
    if fmt == "json":
        echo_json(report.to_dict())
    else:
        click.echo(report.text())
    if not report.ok:
        raise CLIFailure(f"{report.summary} in {target.spec!r}; {report.hint}")


COMMANDS = [build, verify]
