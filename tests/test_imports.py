"""Heavy imports stay off the paths that do not need them."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from ttt_solver.system.compiled_loops import SOLVER_LOOPS, installed
from ttt_solver.system.compiled_loops import VARIABLE as PASSES_VARIABLE


def loaded_after(
    code: str, watched: tuple[str, ...] = ("numpy", "sqlalchemy", "click"), flags: Sequence[str] = ()
) -> set[str]:
    probe = code + f"\nimport sys\nprint(' '.join(m for m in {watched!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, *flags, "-c", probe], capture_output=True, text=True, check=True)
    return set(done.stdout.splitlines()[-1].split())  # the last line: what the code printed comes first


def test_importing_the_package_loads_nothing_heavy():
    assert loaded_after("import ttt_solver; ttt_solver.Board('X...O....')") == set()


# A database counts as big (its whole-table work memory-mapped, :mod:`ttt_solver.lookup.whole_table`)
# above EAGER_ROWS canonical rows, millions: here every database does, so that 3x3 takes a 20-cell
# variant's path.
EVERY_DATABASE_BIG = "import ttt_solver.lookup.rows as r\nassert r.EAGER_ROWS > 0\nr.EAGER_ROWS = 0\n"


# An eager load of a small database reads its arrays into memory (numpy); a big one's never.
@pytest.mark.parametrize(
    ("big", "eager"), [(False, False), (True, False), (True, True)], ids=["small", "big", "big-eager"]
)
def test_a_lookup_reads_sqlite_without_sqlalchemy_or_numpy(db_path, big, eager):
    code = f"from ttt_solver import Oracle\nOracle.load({str(db_path)!r}, eager={eager}).best_move('X...O....')"
    assert loaded_after(EVERY_DATABASE_BIG * big + code, ("numpy", "sqlalchemy", "click", SOLVER_LOOPS)) == set()


# The solver's C extension made unimportable, as where it was not built (no C compiler).
HIDE_LOOPS = f"""import sys
class HideLoops:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name == {SOLVER_LOOPS!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, HideLoops)
"""


@pytest.mark.parametrize(
    ("passes", "hidden"), [(None, False), ("numpy", False), (None, True)], ids=["compiled", "numpy", "not-built"]
)
def test_building_loads_the_solver_and_writer_but_not_the_cli(tmp_path, db_path, passes, hidden):
    # The compiled loops where they were built, unless numpy's are asked for; the same file every way.
    code = (
        f"{HIDE_LOOPS * hidden}from ttt_solver.builder.build import build\n"
        f"print(build({str(tmp_path / 't.sqlite')!r}).digest)\nimport sys\n"
        f"print(' '.join(m for m in ('numpy', 'sqlalchemy', 'click', {SOLVER_LOOPS!r}) if m in sys.modules))\n"
        "from ttt_solver.solver import passes\nprint(passes.compiled_passes() is not None)"
    )
    env = {key: value for key, value in os.environ.items() if key != PASSES_VARIABLE}
    env |= {PASSES_VARIABLE: passes} if passes else {}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    digest, loaded, compiled = done.stdout.splitlines()[-3:]
    assert set(loaded.split()) - {SOLVER_LOOPS} == {"sqlalchemy", "numpy"}
    assert (SOLVER_LOOPS in loaded.split()) is (not hidden and installed())  # imported with the passes
    assert compiled == str(passes is None and not hidden and installed())
    with sqlite3.connect(db_path) as db:
        assert digest == db.execute("SELECT value FROM meta WHERE key = 'digest'").fetchone()[0]


def command_line(args: list[str]) -> str:
    """Code that runs the command line ``args`` in its process and checks that it succeeds."""
    return f"from ttt_solver.cli import main\ntry:\n    main({args!r})\nexcept SystemExit as done:\n    assert done.code == 0, done.code\n"


def analyze(db_path: Path) -> str:
    """Code that runs ``ttt-lookup analyze X...O.... --json --db DB_PATH`` (a 3x3 lookup)."""
    return command_line(["analyze", "X...O....", "--json", "--db", str(db_path)])


@pytest.mark.parametrize("big", [False, True], ids=["small", "big"])
def test_a_command_line_lookup_loads_neither_numpy_sqlalchemy_nor_pathlib(db_path, tmp_path, big):
    # What a lookup imports beyond click is most of its time: pathlib alone (with urllib and
    # ipaddress behind it) cost 5 ms of the 15 ms a lookup may add to importing click. Run
    # without site's start-up (-S), which in an editable install imports pathlib for its finder:
    # the package from this checkout, click and the rest from site-packages.
    root = str(Path(__file__).resolve().parent.parent)
    shutil.copyfile(db_path, tmp_path / "ttt.sqlite")  # the default database, found by name
    for db in (["--db", str(db_path)], []):
        code = (
            f"import sys, sysconfig\nsys.path[:0] = [{root!r}]\nsys.path.append(sysconfig.get_paths()['purelib'])\n"
            f"import ttt_solver.store.paths\nttt_solver.store.paths.data_folder = lambda: {str(tmp_path)!r}\n"
            f"{EVERY_DATABASE_BIG * big}{command_line(['analyze', 'X...O....', '--json', *db])}"
            "import ttt_solver\nassert ttt_solver.__file__.startswith(sys.path[0]), ttt_solver.__file__"
        )
        assert loaded_after(code, ("numpy", "sqlalchemy", "pathlib"), ["-S"]) == set()


# A regular expression is compiled where it is first matched, not at import, unless every lookup
# matches it: compiling the shards' three file-name patterns and the options' size and address
# patterns cost a lookup 1.5% of importing click.
RECORD_COMPILES = """import re, sys
compiled, plain = [], re.compile
def compile(pattern, flags=0):
    compiled.append(sys._getframe(1).f_globals.get("__name__", ""))
    return plain(pattern, flags)
re.compile = compile
"""


@pytest.mark.parametrize("big", [False, True], ids=["small", "big"])
def test_a_command_line_lookup_compiles_only_the_variant_name_pattern(db_path, big):
    code = (
        f"{RECORD_COMPILES}{EVERY_DATABASE_BIG * big}{analyze(db_path)}"
        "print(' '.join(name for name in compiled if name.startswith('ttt_solver')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1].split() == ["ttt_solver.game.variant"]


def test_a_command_line_lookup_leaves_the_array_form_of_the_value_rule_unloaded(db_path):
    # The scalar rule proves each row; the array form (numpy's tables and their classes, two
    # NamedTuples: 0.6% of importing click) lives in game/value_bytes.py, off the lookup.
    code = (
        f"{analyze(db_path)}import sys\n"
        "print(sorted(n for n in ('back_up', 'byte_tables', 'result_bytes') if hasattr(sys.modules['ttt_solver.game.values'], n)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "[]"
    assert "ttt_solver.game.value_bytes" not in loaded_after(code, ("ttt_solver.game.value_bytes",))


@pytest.mark.compiled
def test_a_batch_lookup_of_any_size_runs_the_compiled_loops(db_path):
    """The batch loops are a C extension that loads in microseconds: the batch lookups import it
    with their tables, and a batch of one board runs it."""
    loops = "ttt_solver.lookup.batch_loops"
    load = f"from ttt_solver import Oracle\noracle = Oracle.load({str(db_path)!r})\noracle.best_move('X...O....')\n"
    batch = "oracle.value_batch([[1, 0, 0, 0, -1, 0, 0, 0, 0]])"
    assert loaded_after(load + batch, (loops,)) == {loops}


def test_a_command_line_lookup_opens_its_database_once(db_path):
    # Learning the variant --db holds and reading its rows share one connection: each opening
    # reads the schema of the positions table again (its generated columns are long).
    code = (
        "import sqlite3\nopened = []\nconnect = sqlite3.connect\n"
        "def counted(*args, **kwargs):\n    opened.append(args[0])\n    return connect(*args, **kwargs)\n"
        f"sqlite3.connect = counted\nfrom ttt_solver.cli import main\nfor command in ('analyze', 'best'):\n"
        f"    try:\n        main([command, 'X...O....', '--json', '--db', {str(db_path)!r}])\n"
        "    except SystemExit as done:\n        assert done.code == 0, done.code\nprint(len(opened))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "2"


@pytest.mark.parametrize("lookup", [True, False], ids=["analyze", "version"])
def test_the_command_line_leaves_locale_unloaded(db_path, lookup):
    # click's help_option and version_option look their default text up in gettext's
    # translations, which searches the file system and imports locale: 2.5% of importing click.
    # (Help itself is translated: its headings are gettext's.)
    code = analyze(db_path) if lookup else command_line(["--version"])
    assert loaded_after(code, ("locale",)) == set()


# Modules a lookup has no use for, each a few tenths of a percent of importing click: the engine's
# places (the option types of build and verify, cli/engine_params.py), the option types of numbers,
# sizes and choices (cli/bounded_params.py: a lookup takes none) and the audit package (the size up
# to which a table is proved whole is the store's SMALL_ROWS).
OFF_THE_LOOKUP = ("ttt_solver.system.engine_places", "ttt_solver.cli.bounded_params", "ttt_solver.audit")


@pytest.mark.parametrize("big", [False, True], ids=["small", "big"])
def test_a_command_line_lookup_leaves_what_it_does_not_use_unloaded(db_path, big):
    assert loaded_after(EVERY_DATABASE_BIG * big + analyze(db_path), OFF_THE_LOOKUP) == set()


def test_a_command_line_lookup_makes_only_the_public_named_tuples(db_path):
    # Each NamedTuple class costs importing some 0.4% of importing click: the lookup's internal
    # values (proof.Node, proof.Answer, values.Outcome, variant.LineRead, shards.Shard) are plain classes or tuples.
    code = (
        f"{analyze(db_path)}import sys\n"
        "print(' '.join(sorted(f'{name}.{key}' for name, module in list(sys.modules.items()) if name.startswith('ttt_solver')"
        " for key, value in vars(module).items() if isinstance(value, type) and issubclass(value, tuple)"
        " and hasattr(value, '_fields') and value.__module__ == name)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1].split() == [
        "ttt_solver.lookup.position.Move", "ttt_solver.lookup.position.Position", "ttt_solver.store.row_data.Row",
        "ttt_solver.store.target.Target",
    ]  # fmt: skip


# Modules only an error or a stop needs, that the modules every lookup needs imported, each 0.6-2% of
# importing click: signal (the stop handlers, which a lookup does not install: cli/stopping.py),
# difflib (did you mean ...?: game/suggest.py), shlex (the quoted build command of a hint:
# store/hints.py) and the cost model (what building a missing default database takes:
# store/missing_database.py), with importlib.util (whether the compiled loops were built: system/compiled_loops.py;
# importlib.util itself is not watched: a site's .pth file may import it at start-up).
ERROR_PATHS_ONLY = (
    "signal", "difflib", "shlex", "ttt_solver.store.missing_database", "ttt_solver.system.cost_model",
    "ttt_solver.system.compiled_loops",
)  # fmt: skip


@pytest.mark.parametrize("big", [False, True], ids=["small", "big"])
def test_a_command_line_lookup_leaves_what_only_errors_and_stops_need_unloaded(db_path, big):
    assert loaded_after(EVERY_DATABASE_BIG * big + analyze(db_path), ERROR_PATHS_ONLY) == set()
