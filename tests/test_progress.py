"""Long silent phases say what is happening: the first ``bluffsim run`` says numba is compiling,
then that it is done and how long it took, before its progress bar (which would sit at 0%
meanwhile), only when the compile cache is cold."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from bluffsim.tournament.experiment import COMPILED, COMPILING

ROOT = Path(__file__).resolve().parents[1]

# the fourth game (tests/extra_games/liarsdice), whose kernels compile in seconds: the notes come
# from the runner, the same for every game, and a cold qdv run compiles for most of a minute
TINY = """
[experiment]
name = "tiny"
game = "liarsdice"
players = 3
games = 6
seed = 1

[[seats]]
agent = "random"
[[seats]]
agent = "random"
[[seats]]
agent = "random"

[run]
batch = 6
workers = 1
plots = false
"""


def run_cli(conf: Path, out: Path, cache: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_CACHE_DIR": str(cache)}
    return subprocess.run([sys.executable, "-m", "bluffsim.cli", "run", str(conf), "--out",
                           str(out)], capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=600)


def test_the_first_run_says_it_compiles_and_the_next_one_does_not(tmp_path):
    """An empty ``NUMBA_CACHE_DIR`` is a first run: on stderr (not stdout) the compile note, then
    the line saying it is done and how long it took, then the bar; the second run loads the
    cache and prints neither."""
    import re

    conf = tmp_path / "tiny.toml"
    conf.write_text(TINY)
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    first = run_cli(conf, tmp_path / "a", cache)
    assert first.returncode == 0, first.stderr
    lines = first.stderr.splitlines()
    assert lines[0] == f"bluffsim: {COMPILING}" and "first run only" in COMPILING
    done = re.fullmatch(r"bluffsim: kernels compiled in (\d+) s; playing", lines[1])
    assert done and COMPILED.format(seconds=int(done[1])) == lines[1].removeprefix("bluffsim: ")
    assert first.stderr.index(lines[1]) < first.stderr.index("tiny:")    # then the bar
    assert first.stderr.count(COMPILING) == 1 and "compiled" not in first.stdout
    assert any(cache.rglob("*.nbi"))                                     # numba wrote its cache
    second = run_cli(conf, tmp_path / "b", cache)
    assert second.returncode == 0, second.stderr
    assert COMPILING not in second.stderr and "kernels compiled" not in second.stderr
    assert "tiny:" in second.stderr


def test_kernels_cold_follows_numbas_cache(tmp_path):
    """In this process the engine, the random agent and their fused loop have run (so numba
    cached them): warm; the counting agent's kernels are named too; an empty cache dir is cold,
    without compiling."""
    import numpy as np

    import agents
    import bluffsim
    from agents.fused import fused_lineup
    from bluffsim.kernel_cache import agent_classes, entry_kernels, kernels_cold
    from bluffsim.rng import AgentRNG

    game = bluffsim.make("qdv", 3)
    st = game.init(np.arange(4))
    rand = agents.make("random", game)
    game.step(st, rand.act(None, st.legal_action_mask,
                           AgentRNG(st.seed, st.current_player, st.num_decisions)))
    fused_lineup(game, [rand] * 3).play(st, np.zeros((4, 3), np.int64), 1)  # the runner's path
    assert not kernels_cold(game, ["random"])
    names = {d.__name__ for d in entry_kernels(game, agent_classes("qdv", ["random", "counting"]))}
    assert names == {"start_kernel", "step_kernel", "random_kernel", "act_kernel"}
    code = ("import bluffsim; from bluffsim.kernel_cache import kernels_cold; "
            "print(kernels_cold(bluffsim.make('qdv', 3), ['random']))")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=120)
    assert done.stdout.strip() == "True", done.stderr
    assert not any(tmp_path.rglob("*.nbi"))                              # nothing compiled


def test_the_cold_check_follows_the_path_the_runner_takes():
    """A lineup with any compiled policy (learned included; a Python agent acts between the
    fused calls) starts with the fused kernel; a game without a fused module, or a lineup of
    Python agents only, with the game's step kernel."""
    import bluffsim
    from bluffsim.kernel_cache import agent_classes, fused_entry_kernels

    game = bluffsim.make("qdv", 2)
    for names in (["random", "heuristic"], ["learned", "experiments.my_agent:Skeptic"]):
        entry = fused_entry_kernels(game, names, agent_classes("qdv", names))
        assert [d.__name__ for d in entry] == ["start_kernel", "play_seats_kernel"]
    skeptics = ["experiments.my_agent:Skeptic"] * 2
    assert fused_entry_kernels(game, skeptics, agent_classes("qdv", skeptics)) is None
