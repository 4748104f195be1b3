"""The damage campaign of issue #18 (item 9): do named queries answer from damaged files?

Builds a 3x3 database, then for each of ``--copies`` copies changes one byte at a random
offset (a seeded generator) and runs every named query on it, comparing the output with the
intact database's. Prints how many copies gave a changed output with exit code 0 (a silently
wrong answer), by query, and how the other runs ended: the same output, a refusal with the
command that rebuilds the database, another error, a traceback.

    python benchmarks/damage_queries.py [--copies 1000] [--seed 7]
"""

from __future__ import annotations

import argparse
import collections
import random
import tempfile
from pathlib import Path

from click.testing import CliRunner, Result

from ttt_solver.builder.build import build
from ttt_solver.cli import cli
from ttt_solver.lookup import named_queries as queries

PARAMS = {"positions_at_ply": ["--param", "ply=4"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    runner = CliRunner()
    with tempfile.TemporaryDirectory() as folder:
        intact, damaged = Path(folder) / "ttt.sqlite", Path(folder) / "damaged.sqlite"
        build(intact)

        def run(db: Path, name: str) -> Result:
            return runner.invoke(cli, ["query", name, *PARAMS.get(name, []), "--db", str(db), "--json"])

        names = queries.names()
        expected = {name: run(intact, name).stdout for name in names}
        content = intact.read_bytes()
        rng = random.Random(args.seed)
        wrong: collections.Counter[str] = collections.Counter()
        ends: collections.Counter[str] = collections.Counter()
        copies_wrong = 0
        for _ in range(args.copies):
            changed = bytearray(content)
            changed[rng.randrange(len(changed))] = rng.randrange(256)
            damaged.write_bytes(bytes(changed))
            any_wrong = False
            for name in names:
                result = run(damaged, name)
                code, stdout, stderr = result.exit_code, result.stdout, result.stderr
                if result.exception is not None and not isinstance(result.exception, SystemExit):
                    ends["traceback"] += 1
                elif code == 0:
                    ends["same output" if stdout == expected[name] else "CHANGED OUTPUT, exit 0"] += 1
                    if stdout != expected[name]:
                        wrong[name] += 1
                        any_wrong = True
                else:
                    ends[f"exit {code}, {'with' if '--force' in stderr else 'without'} the rebuild command"] += 1
            copies_wrong += any_wrong
    print(f"{args.copies:,} copies, one damaged byte each, {len(names)} named queries each (seed {args.seed})")
    print(f"copies with a changed output and exit code 0: {copies_wrong:,}  {dict(wrong)}")
    for end, count in sorted(ends.items()):
        print(f"  {count:7,}  {end}")


if __name__ == "__main__":
    main()
