"""The environments where people already work: images, registered variants, make_vec, Stable-Baselines3."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from support.extra_markers import need

pytestmark = pytest.mark.rl
gym = need("rl", "gymnasium")

from ttt_solver import Oracle
from ttt_solver.envs import ENV_ID, VARIANTS, VectorTicTacToe, variant_id
from ttt_solver.envs.render import CELL, draw
from ttt_solver.game.variant import Variant
from ttt_solver.solver.reference import solve
from ttt_solver.store import paths

ROOT = Path(__file__).resolve().parents[2]
WHITE, BLUE, ORANGE = (255, 255, 255), (0, 114, 178), (230, 159, 0)


@pytest.fixture(scope="module")
def oracle() -> Oracle:
    return Oracle.from_solutions(solve())


def colour_at(image: np.ndarray, row: float, col: float) -> tuple[int, ...]:
    """The pixel at a point given in cells (0.5, 0.5 is the centre of cell 0)."""
    return tuple(int(v) for v in image[int(row * CELL), int(col * CELL)])


def test_rgb_array_draws_x_as_a_cross_and_o_as_a_ring():
    # X . .
    # . O .
    # . . .
    image = draw("X...O....", 3, 3)
    assert image.shape == (3 * CELL, 3 * CELL, 3) and image.dtype == np.uint8
    assert colour_at(image, 0.5, 0.5) == BLUE  # the cross passes through its centre
    assert colour_at(image, 1.5, 1.5) == WHITE  # the ring's centre is empty
    assert colour_at(image, 1.5, 1.5 + 0.30) == ORANGE  # and its rim is orange
    assert colour_at(image, 2.5, 2.5) == WHITE
    assert colour_at(image, 1.0, 0.5) != WHITE  # a grid line between the rows


def test_rgb_array_follows_the_rows_and_columns_of_the_variant():
    image = draw("....X.......", 3, 4)  # cell 4 is row 1, column 0 on a board 4 wide
    assert image.shape == (3 * CELL, 4 * CELL, 3)
    assert colour_at(image, 1.5, 0.5) == BLUE


def test_the_env_and_the_vector_env_render_rgb_arrays(oracle):
    env = gym.make(ENV_ID, oracle=oracle, side="X", render_mode="rgb_array")
    env.reset(seed=0)
    env.step(4)
    frame = env.render()
    assert frame.shape == (3 * CELL, 3 * CELL, 3)
    assert colour_at(frame, 1.5, 1.5) == BLUE
    vector = VectorTicTacToe(2, "heuristic", "X", oracle=oracle, render_mode="rgb_array")
    vector.reset(seed=0)
    frames = vector.render()
    assert len(frames) == 2 and all(np.array_equal(f, draw("." * 9, 3, 3)) for f in frames)


def test_every_variant_is_registered_under_its_own_id():
    for name in VARIANTS:
        spec = gym.spec(variant_id(name))
        assert spec.kwargs == {"variant": name}
        small = Variant.parse(name).cells <= 12
        assert (spec.vector_entry_point is not None) == small, name
    assert gym.spec("ttt_solver/TicTacToe-4x4-v0").id == "ttt_solver/TicTacToe-4x4-v0"


def test_a_registered_variant_makes_single_and_vector_envs(variant_db):
    oracle = Oracle.load(variant_db("3x3-misere"), variant="3x3-misere")
    env = gym.make("ttt_solver/TicTacToe-3x3-misere-v0", oracle=oracle)
    assert env.unwrapped.variant.name == "3x3-misere"
    vector = gym.make_vec("ttt_solver/TicTacToe-3x3-misere-v0", num_envs=3, oracle=oracle)
    assert isinstance(vector.unwrapped, VectorTicTacToe) and vector.unwrapped.variant.name == "3x3-misere"
    obs, _ = vector.reset(seed=0)
    assert obs.shape == (3, 3, 3, 2)


def test_make_vec_falls_back_to_sync_envs_for_boards_too_big_for_the_vector_env(lazy_4x4):
    vector = gym.make_vec("ttt_solver/TicTacToe-4x4-v0", num_envs=2, oracle=lazy_4x4, opponent="random")
    assert isinstance(vector, gym.vector.SyncVectorEnv)
    obs, infos = vector.reset(seed=0)
    assert obs.shape == (2, 4, 4, 2) and infos["action_mask"].shape == (2, 16)


def test_keyword_arguments_give_any_variant(variant_db):
    oracle = Oracle.load(variant_db("3x4k3"), variant="3x4k3", eager=False)
    env = gym.make(ENV_ID, variant="3x4k3", oracle=oracle, opponent="random")
    assert env.observation_space.shape == (3, 4, 2) and env.action_space.n == 12


@pytest.mark.sb3
@pytest.mark.long
def test_stable_baselines3_make_vec_env_works(oracle):
    env_util = need("sb3", "stable_baselines3.common.env_util")
    envs = env_util.make_vec_env(ENV_ID, n_envs=2, seed=0, env_kwargs={"oracle": oracle})  # asks for rgb_array
    assert envs.render_mode == "rgb_array"
    assert envs.reset().shape == (2, 3, 3, 2)
    assert envs.render().shape[-1] == 3
    masks = np.array(envs.env_method("action_masks"))
    assert masks.shape == (2, 9) and masks.dtype == bool


@pytest.mark.sb3
@pytest.mark.plot
@pytest.mark.long
def test_maskable_ppo_example_trains_a_few_hundred_steps(tmp_path, capsys, db_path, monkeypatch):
    need("sb3", "sb3_contrib")
    need("plot", "matplotlib")
    # The example opens the default database: the session's copy, not one built into the checkout.
    (tmp_path / "data").mkdir()
    shutil.copyfile(db_path, tmp_path / "data" / "ttt.sqlite")
    monkeypatch.setattr(paths, "data_folder", lambda: str(tmp_path / "data"))
    spec = importlib.util.spec_from_file_location("maskable_ppo", ROOT / "examples" / "maskable_ppo.py")
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    chart = tmp_path / "curve.png"
    argv = ["--steps", "256", "--checkpoints", "2", "--eval-games", "10", "--envs", "2", "--plot", str(chart)]
    assert example.main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "MaskablePPO against perfect:0.5: greedy results over 10 games against perfect"
    assert [line.split()[0] for line in lines[2:5]] == ["0", "128", "256"]
    assert all(line.split()[3] == "0.0%" for line in lines[2:5])  # nobody beats perfect
    assert chart.stat().st_size > 0


# -- every gym.make the documents show works in a fresh interpreter ---------------------------------
MAKE_CALL = re.compile(r"gym(?:nasium)?\.make(?:_vec)?\(")
BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def call_at(text: str, start: int) -> str:
    """The call that starts at ``start``, to its closing parenthesis."""
    depth = 0
    for end in range(text.index("(", start), len(text)):
        depth += {"(": 1, ")": -1}.get(text[end], 0)
        if depth == 0:
            return text[start : end + 1]
    raise AssertionError(f"unclosed call at {text[start : start + 40]!r}")


def shown_make_calls() -> list[tuple[str, str]]:
    """(where, code) of each gym.make a user may copy from README.md or docs/rl.md: the call with
    the imports written above it in its own Python block (none for one in prose)."""
    found = []
    for name in ("README.md", "docs/rl.md"):
        text = (ROOT / name).read_text(encoding="utf-8")
        blocks = [(m.start(1), m.end(1)) for m in BLOCK.finditer(text)]
        for m in MAKE_CALL.finditer(text):
            block = next(((start, end) for start, end in blocks if start <= m.start() < end), None)
            above = text[block[0] : m.start()] if block else ""
            imports = [line for line in above.splitlines() if line.startswith(("import ", "from "))]
            code = "\n".join(
                ["import gymnasium", "import gymnasium as gym", *imports, f"env = {call_at(text, m.start())}"]
            )
            found.append((f"{name} line {text.count(chr(10), 0, m.start()) + 1}", code))
    return found


SHOWN = shown_make_calls()


@pytest.mark.parametrize(("where", "code"), SHOWN, ids=[where for where, _ in SHOWN])
def test_each_env_id_the_documents_show_makes_an_env_in_a_fresh_interpreter(where, code, db_path, tmp_path):
    # A fresh interpreter: nothing has imported ttt_solver.envs unless the shown code does. The
    # default database is the session's.
    shutil.copyfile(db_path, tmp_path / "ttt.sqlite")
    probe = (
        f"import sys\nsys.path.insert(0, {str(ROOT)!r})\nimport ttt_solver.store.paths as paths\n"
        f"paths.data_folder = lambda: {str(tmp_path)!r}\n{code}\nenv.reset(seed=0)\nenv.close()\nprint('made')"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=False, cwd=tmp_path)
    assert (done.returncode, done.stdout.strip().splitlines()[-1:]) == (0, ["made"]), (
        f"{where}:\n{code}\n{done.stderr[-2000:]}"
    )


def test_the_readme_shows_how_to_make_the_env():
    assert any(where.startswith("README.md") for where, _ in SHOWN)
