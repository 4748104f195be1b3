"""Fuzzing the command line: every command line is an answer or one clear error line.

Hypothesis picks a valid command line of any command (from thousands made once from the
product of each command's options: variants, databases, boards, move lists, agents, query
parameters, games, seeds, flags) and gives it up to two defects: a value swapped for garbage,
a huge number, unicode, an empty string, another variant, agent or database; a stray token or
option; a token dropped. Each runs through click's CliRunner. Whatever the input: no exception
but SystemExit (so no traceback), an exit code of 0, 1 or 2, and on failure an empty stdout and
exactly one ``Error:`` line on stderr; ``--json`` output that parses.

The databases are the session's (tests/conftest.py), copied into a temporary data directory
that stands in for ``data/``; the working directory is temporary too, and a ``build`` only ever
targets paths under them. Each example asks for little work (a few games, a few positions, tiny
variants for whole-table work), so that 10,000 examples take well under a minute.
"""

from __future__ import annotations

import itertools
import json
import random
import shutil
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import example, given
from hypothesis import strategies as st
from support.boards import legal_boards
from support.fuzzing import FUZZ

from ttt_solver.cli import cli
from ttt_solver.game.variant import Variant
from ttt_solver.store import paths as store_paths

# -- the world the commands run in ---------------------------------------------------------------
# Variants with a database in the data directory (any of them may be read without --db).
PREBUILT = ("3x3", "1x3", "2x3", "3x3-misere")
TINY = ("1x3", "2x3")  # whole-table work (verify, tournaments, accuracy) is instant on these
# Valid variants without a database here: given only with a --db (nothing builds them).
OTHER_VARIANTS = ("4x4", "3x4k3", "1x16", "16x1", "4x4k3", "3x3k3", " 3X3 ", "2x8k3-misere")  # fmt: skip
BIG = ("4x4", "1x16", "16x1", "4x4k3", "2x8k3-misere")  # too big for exact play
BAD_VARIANTS = (
    "", " ", "3x3k4", "0x0", "2x2", "6x5", "9" * 40 + "x3", "٣x٣", "3x3-misère", "x", "3x", "-1x3", "3x3 k3",
)  # fmt: skip
# Placeholders a strategy writes for a path that only exists at run time (see World.resolve).
DBS = tuple(f"{{db:{name}}}" for name in PREBUILT)
READ_TARGETS = (
    *DBS,
    "{missing}",  # no file there
    "{foreign}",  # a file that is not a database
    "{folder}",  # a directory
    "{empty}",  # an empty file
    "sqlite:///{missing}",
    "",
    " ",
    ":memory:",
    "sqlite://",
    "sqlite:///",
    "sqlite:///:memory:",
    "bogus://x",
    "nosuchdialect+driver://user@host/db",
    "relative.sqlite",
    "~nosuchuser-ttt/x.sqlite",
)
BUILD_TARGETS = (
    "{new}",  # a fresh path under tmp (ours after the first build)
    "built.sqlite",  # relative: the working directory is tmp
    "sqlite:///built-by-url.sqlite",
    "{foreign-build}",  # not ours: refused without --force
    "{folder}",
    "{missing}/../nowhere/x.sqlite",
    "{empty}",
    "",
    ":memory:",
    "sqlite://",
    "bogus://x",
)


@dataclass
class World:
    root: Path
    paths: dict[str, str]
    runner: CliRunner

    def resolve(self, arg: str) -> str:
        for key, path in self.paths.items():
            arg = arg.replace(key, path)
        return arg

    def run(self, args: list[str], stdin: str | None = None) -> Result:
        return self.runner.invoke(cli, [self.resolve(arg) for arg in args], input=stdin, prog_name="ttt-lookup")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, variant_db: Callable[[str], Path]) -> Iterator[World]:
    root = tmp_path_factory.mktemp("cli-fuzz")
    data, work = root / "data", root / "work"
    data.mkdir()
    work.mkdir()
    paths = {}
    for name in PREBUILT:
        session = variant_db(name)
        paths[f"{{db:{name}}}"] = str(session)
        shutil.copy(session, data / f"{'ttt' if name == '3x3' else name}.sqlite")  # copies: a build may replace them
    (root / "foreign.sqlite").write_text("not a database\n")
    (root / "foreign-build.sqlite").write_text("not a database either\n")
    (root / "folder").mkdir()
    (root / "empty.sqlite").touch()
    paths |= {
        "{missing}": str(root / "missing.sqlite"),
        "{foreign}": str(root / "foreign.sqlite"),
        "{foreign-build}": str(root / "foreign-build.sqlite"),
        "{folder}": str(root / "folder"),
        "{empty}": str(root / "empty.sqlite"),
        "{new}": str(root / "new.sqlite"),
        "{tmp}": str(root),
    }
    before = _listing(CHECKOUT_DATA)

    def in_data() -> str:
        return str(data)

    with pytest.MonkeyPatch.context() as patch:
        # The data folder wherever a module took the function by name (a build's scratch folder
        # for a server's URL is in it): otherwise such a build wrote into the checkout's data/.
        for module in _modules_with(store_paths.data_folder):
            patch.setattr(module, "data_folder", in_data)
        try:
            import ttt_solver.web.server  # noqa: F401 - needs the [web] extra
        except ImportError:  # without the [web] extra, serve says so in one Error: line
            pass
        else:  # serve: parse, bind and open, never serve
            patch.setattr("ttt_solver.web.server.Server.serve_forever", lambda _self: None)
        patch.chdir(work)
        patch.delenv("TTT_DB", raising=False)
        yield World(root, paths, CliRunner(env={"TTT_DB": None, "NO_COLOR": None, "TERM": "dumb"}))
    for module in _modules_with(in_data):  # imported during the run: it took the stand-in
        module.data_folder = store_paths.data_folder  # type: ignore[attr-defined]
    assert _listing(CHECKOUT_DATA) == before, "a command wrote into the checkout's data/"


def _modules_with(data_folder: Callable[[], str]) -> list[object]:
    return [
        module
        for name, module in list(sys.modules.items())
        if name.startswith("ttt_solver") and getattr(module, "data_folder", None) is data_folder
    ]


CHECKOUT_DATA = Path(__file__).resolve().parents[2] / "data"


def _listing(folder: Path) -> list[tuple[str, int]]:
    return sorted((p.name, p.stat().st_mtime_ns) for p in folder.iterdir()) if folder.is_dir() else []


# -- command lines ----------------------------------------------------------------------------
# Every example is a valid command line, one of thousands made here once from the product of each
# command's options (one draw picks it), with up to two defects Hypothesis draws: a value swapped
# for garbage, a huge number, another variant, agent, board or database, a stray token or option,
# a token dropped. Few draws per example keep 10,000 examples fast (a draw costs microseconds).
ARGV_CHARS = st.characters(exclude_categories=(), exclude_characters="\x00")  # argv: lone surrogates, never NUL
WEIRD = (
    "", " ", "-", "--", "-1", "0", "1", "nan", "NaN", "inf", "-inf", "1e309", "0x10", "1_000", "٣", "１",
    "9" * 30, "-" + "9" * 30, "\t", "é", "\udcff", "😀", "X" * 300, "null", "None", "true", "?", "*", "%s", "{}",
    "a\nb", "\r", "\x1b[31m", "\u2028",
)  # fmt: skip
HUGE = ("100000000000000000000", "99999999999", str(2**63), str(2**64), "1e6", "1e100", "0", "-1", "1.5")
AGENTS = (
    "random", "think1", "think2", "think3", "heuristic", "onestep", "nstep:1", "nstep:2", "nstep", "minimax:1",
    "minimax:2", "mc:1", "mc:20", "perfect", "perfect:0.5", "perfect:0", " Think1 ", "RANDOM",
)  # fmt: skip
AGENTS_BAD = (
    "", "think4", "random:1", "mc:0", "mc:-1", "mc:999999999", "mc:1e3", "mc:", "nstep:0", "nstep:x", "nstep:-3",
    "minimax:0", "minimax:" + "9" * 5000, "perfect:2", "perfect:nan", "perfect:inf", "perfect:-0.1", "perfect:0x1",
    "perfect:", ":", "mc:1:2", "perfect:1e-400",
)  # fmt: skip
# Searches too deep to finish on 13 cells or more (refused there); on 3x3 they take a tenth of a second.
AGENTS_DEEP = ("minimax:99", "nstep:16", "nstep:99999999999999999999", "minimax:6", "nstep:" + "9" * 4000)
QUERIES = {  # name -> parameters it takes, valid
    "only_moves": ("min_choices=3",), "longest_wins": ("limit=3", "limit=-1"), "opening": ("first=0", "first=null"),
    "traps": ("min_losing=4",), "ply_counts": (), "positions_at_ply": ("ply=2", "ply=9"), "rule_of_thumb": ("max_ply=2",),
}  # fmt: skip
QUERY_NAMES_BAD = ("", "trap", "TRAPS", "only_moves.sql", "../opening", "__init__", "queries")
SCRIPTS = (
    "4\n", "0\n1\n2\n3\n4\n5\n6\n7\n8\n", "q\n", "quit\n", "", "\n", "9\nb2\n0\nq\n", " 4 \n4.0\n-1\n", "0\n0\n0\n",
    "h\n4\nu\nu\nh\n0\n", "0\n1\n2\n3\n4\n5\n6\n7\n8\nu\nr\nh\n4\nr\nq\n", "0\n1\n2\n3\n4\n5\n6\n7\n8\nx\nr\n",
)  # fmt: skip


def _where(name: str) -> list[tuple[str, ...]]:
    """Ways to name a variant's database: the data directory's, or the session's by --db."""
    found = [("--variant", name), ("--variant", name, "--db", f"{{db:{name}}}")]
    return [(), ("--db", "{db:3x3}"), *found] if name == "3x3" else found


def _templates() -> dict[str, list[tuple[str, ...]]]:
    pick = random.Random(0)

    def some(items: list[tuple[str, ...]], count: int) -> list[tuple[str, ...]]:
        return items if len(items) <= count else pick.sample(items, count)

    flags = [(), ("--json",)]
    found: dict[str, list[tuple[str, ...]]] = {}
    lookups = []
    for name in PREBUILT:
        variant = Variant.parse(name)
        boards = some([(board,) for board in legal_boards(variant.name)], 12)
        moves = [("--moves", ",".join(map(str, pick.sample(range(variant.cells), 3)))), ("--moves", "")]
        for command, where, board, json_ in itertools.product(("analyze", "best"), _where(name), boards + moves, flags):
            lookups.append((command, *where, *json_, *(("--",) if board[0].startswith("-") else ()), *board))
    found["lookup"] = some(lookups, 600)
    found["play"] = [
        ("play", *where, *side, *skill, *seed)
        for name in PREBUILT
        for where in _where(name)
        for side in [(), ("--as", "O"), ("--as", "x")]
        for skill in [(), ("--skill", "0"), ("--skill", "0.5")]
        for seed in [(), ("--seed", "3")]
    ]
    found["stats"] = [("stats", *where, *json_) for name in PREBUILT for where in _where(name) for json_ in flags]
    found["query"] = [("query", "--list"), ("query", "--list", "--json")] + [
        ("query", query, *param, *where, *fmt)
        for query, params in QUERIES.items()
        for param in [(), *(("--param", p) for p in params)]
        for name in ("3x3", *TINY)
        for where in _where(name)
        for fmt in [(), ("--json",), ("--csv",)]
    ]
    pairs = [(a, b) for a in AGENTS for b in AGENTS]
    games = [("--games", "1"), ("--games", "3", "--seed", "7"), ("--exact",)]
    found["compare"] = some(
        [
            ("compare", a, b, *game, *where, *json_)
            for a, b in pairs
            for name in TINY
            for where in _where(name)[1:]  # with --db: a swapped variant must not build a default database
            for game in games
            for json_ in flags
        ],
        500,
    ) + [
        ("compare", a, b, "--games", "2", "--variant", big, "--db", "{db:3x3}")
        for a, b in some(pairs, 40)
        for big in BIG
        if "perfect" not in a + b
    ]
    lists = [",".join(pick.sample(AGENTS, k)) for k in (2, 2, 3) for _ in range(40)]
    found["tournament"] = some(
        [
            ("tournament", *agents, *game, *positions, *where, *json_)
            for agents in [(), *(("--agents", spec) for spec in lists)]
            for name in TINY
            for where in _where(name)[1:]
            for game in [("--games", "2"), ("--games", "1", "--seed", "3"), ("--exact",)]
            for positions in [(), ("--positions", "3")]
            for json_ in flags
        ],
        500,
    )
    found["build"] = [
        ("build", "--variant", name, *target, *extra)
        for name in ("1x3", "3x1", "2x3", "1x4")
        for target in [(), *(("--db", db) for db in BUILD_TARGETS)]
        for extra in [(), ("--quiet",), ("--force", "-q"), ("--json",), ("--force", "--json")]
    ]
    found["verify"] = [
        ("verify", *where, *json_, *quiet)
        for name in TINY
        for where in _where(name)
        for json_ in flags
        for quiet in [(), ("-q",)]
    ]
    serving = [
        ("--db", "{db:1x3}"),
        ("--variant", "2x3"),
        ("--db", "{db:2x3}", "--db", "{db:1x3}"),
        ("--variant", "1x3", "--variant", "2x3"),
    ]
    found["serve"] = [
        ("serve", *dbs, *host, *port, *limit)
        for dbs in serving
        for host in [(), ("--host", "127.0.0.1")]
        for port in [(), ("--port", "0"), ("--port", "8080")]
        for limit in [(), ("--time-limit", "0.5"), ("--cache-size", "0")]
    ]
    # Not tournament: with its --help dropped it plays every default agent 1,000 times against every other.
    commands = ("analyze", "best", "play", "stats", "query", "compare", "build", "verify", "serve", "help")
    found["other"] = [
        (), ("--help",), ("-h",), ("--version",), ("--no-color",), ("--color", "stats", "--variant", "1x3"),
        *((command, "--help") for command in commands), ("help",), *(("help", command) for command in commands),
        ("help", "anlyze"), ("anlyze", "X...O...."), ("analyse", "--moves", "4"), ("ANALYZE",), ("help", "nope"),
    ]  # fmt: skip
    return found


TEMPLATES = _templates()
# Templates of each command out of 1,000: most for the lookups people run most, few for the
# commands whose every success costs a whole build, proof, app or round robin (10-20 ms).
COMMAND_SHARES = {
    "lookup": 340, "play": 100, "stats": 100, "query": 100, "compare": 120, "tournament": 40, "build": 20,
    "verify": 30, "serve": 20, "other": 120,
}  # fmt: skip
_kinds = [kind for kind, share in COMMAND_SHARES.items() for _ in range(share)]
random.Random(1).shuffle(_kinds)  # Hypothesis favours the first ones: let them be of every command
kinds = st.sampled_from(_kinds)
templates = {kind: st.sampled_from(lines) for kind, lines in TEMPLATES.items()}

# What a defect puts in place of a token: a pool for each kind of value.
garbage = st.one_of(st.sampled_from(WEIRD), st.text(ARGV_CHARS, max_size=12))
POOLS: dict[str, st.SearchStrategy[str]] = {
    "--variant": st.one_of(st.sampled_from(BAD_VARIANTS), garbage),
    # Valid variants only where a --db is given (nothing builds them), and for games only the big ones,
    # which no exact run walks (3x3 or 3x4k3 exact with fresh agents: a second).
    "--variant/db": st.one_of(st.sampled_from(BAD_VARIANTS + OTHER_VARIANTS), garbage),
    "--variant/big": st.one_of(st.sampled_from(BAD_VARIANTS + BIG), garbage),
    "--db": st.sampled_from(READ_TARGETS),
    "number": st.one_of(st.sampled_from(HUGE), garbage),
    "float": st.one_of(st.sampled_from(("1.5", "-0.1", "nan", "inf", "1e-400", "0.1")), st.floats().map(str), garbage),
    "--moves": st.one_of(
        st.lists(st.integers(-2, 10), max_size=10).map(lambda cells: ",".join(map(str, cells))),
        st.text(alphabet="0123456789, -", max_size=14),
        garbage,
    ),
    "--agents": st.lists(st.sampled_from(AGENTS + AGENTS_BAD), max_size=4).map(",".join),
    "agent": st.one_of(st.sampled_from(AGENTS_BAD + AGENTS_DEEP), garbage),
    "board": st.one_of(st.text(alphabet="XOxo.-_/| ", max_size=12), st.sampled_from(["XXX......", "X" * 16]), garbage),
    "--param": st.one_of(
        st.tuples(st.sampled_from(("min_choices", "limit", "first", "ply", "nope", "", "LIMIT")), garbage).map(
            "=".join
        ),
        garbage,
    ),
    "--plot": st.sampled_from(["", ".png", "{tmp}/no-such-folder/chart.png", "chart.xyz", "{folder}", "chart"]),
    "query": st.one_of(st.sampled_from(QUERY_NAMES_BAD), garbage),
    "command": st.one_of(st.sampled_from(("anlyze", "analyse", "HELP", "help", "verif", "")), garbage),
    "anything": garbage,
}
VALUE_KIND = {
    "--games": "number", "--seed": "number", "--positions": "number", "--port": "number", "--cache-size": "number",
    "--skill": "float", "--time-limit": "float", "--as": "anything", "--host": "anything",
}  # fmt: skip
OPTIONS = (
    "--json", "--csv", "--db", "--variant", "--moves", "--seed", "--games", "--exact", "--agents", "--positions",
    "--plot", "--param", "--list", "--as", "--skill", "--force", "--quiet", "--host", "--port", "--help", "-h",
    "--version", "--color", "--no-color", "--", "-x", "--jsonx",
)  # fmt: skip
stray = st.one_of(st.sampled_from(OPTIONS), garbage)
defects = st.lists(st.tuples(st.sampled_from(("swap", "swap", "insert", "drop")), st.integers(0, 30)), max_size=2)
none_or_some_defects = st.one_of(st.just([]), defects)


def pool_for(args: list[str], where: int) -> str | None:
    """Which pool a defect swaps ``args[where]`` from (None: not a value to swap)."""
    before, token = args[where - 1], args[where]
    if before == "--db":
        return None if args[0] == "build" else "--db"  # a build writes only where its template says
    if before == "--variant":  # with a --db, valid variants too (their default database would take seconds to build)
        if "--db" not in args or args[0] == "build":
            return "--variant"
        return "--variant/big" if args[0] in ("compare", "tournament") else "--variant/db"
    if before in VALUE_KIND or before in POOLS:
        return VALUE_KIND.get(before, before)
    if token.startswith("-") or before.startswith("--"):
        return None  # an option, or the value of a flag-like option
    if args[0] in ("analyze", "best"):
        return "board"
    if args[0] == "compare":
        return "agent"
    if args[0] == "query":
        return "query"
    if args[0] == "help":
        return "command"
    return None


@st.composite
def command_lines(draw: st.DrawFn) -> tuple[list[str], str | None]:
    """A command line with its defects, and what the player types (for play)."""
    args = list(draw(templates[draw(kinds)]))
    for kind, at in draw(none_or_some_defects) if args else ():
        where = 1 + at % len(args) if len(args) > 1 else 1
        if kind == "insert":
            token = draw(stray)
            if not token.startswith("--db") and args[where - 1] != "--db":  # never a --db the template did not choose
                args.insert(where, token)
        elif where < len(args):
            pool = pool_for(args, where)
            if kind == "swap" and pool is not None:
                args[where] = draw(POOLS[pool])
            elif kind == "drop" and args[where - 1] != "--db" and args[where] != "--db":
                del args[where]
    stdin = draw(typed) if args and args[0] == "play" else None
    return args, stdin


# What the player types: a script of moves, or anything at all (stdin is text: no lone surrogates).
typed = st.one_of(
    st.sampled_from(SCRIPTS),
    st.text(alphabet="012345678910qhur \n-", max_size=30),
    st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=20),
)
COMMANDS = command_lines()


# -- the promise ------------------------------------------------------------------------------
JSON_COMMANDS = ("analyze", "best", "stats", "query", "compare", "tournament", "build", "verify")


def check(result: Result, args: list[str]) -> None:
    where = f"ttt-lookup {' '.join(map(repr, args))}"
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        import traceback

        trace = "".join(traceback.format_exception(result.exception))
        raise AssertionError(f"{where} raised {result.exception!r}\n{trace}")
    assert result.exit_code in (0, 1, 2), (where, result.exit_code, result.output)
    assert "Traceback" not in result.stdout and "Traceback" not in result.stderr, where
    if result.exit_code:
        assert result.stdout == "", (where, result.stdout, result.stderr)
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: "), (where, result.stderr)
        assert result.stderr.endswith("\n"), where
    elif "--json" in args and not {"--help", "-h", "--version"} & set(args) and args[0] in JSON_COMMANDS:
        json.loads(result.stdout)


# What the 5,000-example run reached and a 2,000-example one did not (traced: support/fuzzing.py),
# named here: explicit examples run on every count.
RARE = (
    ["tournament", "--agents", "random", "--variant", "1x3", "--db", "{db:1x3}"],
    ["tournament", "--agents", "random,RANDOM", "--games", "1", "--variant", "1x3", "--db", "{db:1x3}"],
    ["tournament", "--games", "1", "--variant", "1x3", "--db", "{db:1x3}"],  # the default agents
    ["tournament", "--positions", "0", "--variant", "1x3", "--db", "{db:1x3}"],
    ["compare", "nstep:x", "random", "--variant", "1x3", "--db", "{db:1x3}"],
    ["compare", "minimax:0", "random", "--variant", "1x3", "--db", "{db:1x3}"],
    ["compare", "mc:999999999", "random", "--variant", "1x3", "--db", "{db:1x3}"],
    ["compare", "random", "think1", "--games", "0", "--variant", "1x3", "--db", "{db:1x3}"],
    ["query", "trap", "--db", "{db:3x3}"],
    ["query", "--db", "{db:3x3}"],
    ["query", "traps", "--param", "nope=1", "--db", "{db:3x3}"],
    ["query", "traps", "--json", "--csv", "--db", "{db:3x3}"],
    ["analyze", "X........", "--db", "~nosuchuser-ttt/x.sqlite"],
    ["analyze", "X........", "--moves", "4", "--db", "{db:3x3}"],
    ["analyze", "XXXOO.O..", "--db", "{db:3x3}"],
    ["analyze", "XXX......", "--db", "{db:3x3}"],
    ["analyze", "--moves", "4,0,8", "--db", "{db:3x3}"],
    ["analyze", "X.. .O. ...", "--db", "{db:3x3}"],
    ["stats", "--variant", "6x5"],
    ["stats", "--variant", "4x4k5"],
    ["stats", "--variant", "2x2"],
    ["build", "--variant", "1x3", "--db", "bogus://x", "--json"],  # a server's scratch folder: in the data folder
    ["serve", "--port", "0"],  # the data folder's databases
)


def _with_rare(test: Callable[..., None]) -> Callable[..., None]:
    for args in RARE:
        test = example(case=(args, None))(test)
    return test


@FUZZ
@_with_rare
@given(case=COMMANDS)
def test_any_command_line_answers_or_fails_in_one_line(world: World, case: tuple[list[str], str | None]) -> None:
    args, stdin = case
    check(world.run(args, stdin), args)
