"""Your own agents: "package.module:ClassName" in configs, the contract check, agents.register."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import agents
import bluffsim
from agents.custom import AgentContractError
from tests.console import bluffsim_here

ROOT = Path(__file__).resolve().parents[1]


def cli(args, cwd):
    return subprocess.run([sys.executable, "-m", "bluffsim.cli", *args], capture_output=True,
                          text=True, cwd=cwd, env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})


def test_the_readme_example_agent_runs_end_to_end_from_the_cli(tmp_path):
    out = tmp_path / "res"
    proc = cli(["run", "experiments/custom_agent.toml", "--games", "90", "--workers", "2",
                "--out", str(out), "--quiet", "--no-plots"], cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    games = pd.read_parquet(out / "games.parquet")
    assert set(games["agent"]) == {"skeptic", "heuristic", "random"}
    assert games["game"].nunique() == 90


def test_a_spec_builds_the_class_with_its_params():
    game = bluffsim.make("qdv", 3)
    a = agents.make("experiments.my_agent:Skeptic", game, p_call=0.25)
    assert type(a).__name__ == "Skeptic" and a.p_call == 0.25


BAD_AGENTS = '''
import numpy as np

class NoAct:
    name = "noact"
    traits = {}
    def __init__(self, game):
        pass

class NoName:
    traits = {}
    def __init__(self, game):
        pass
    def act(self, obs, mask, rng):
        return np.zeros(len(mask), np.int64)

class Floats:
    name = "floats"
    traits = {}
    def __init__(self, game):
        pass
    def act(self, obs, mask, rng):
        return np.zeros(len(mask))

class Illegal:
    name = "illegal"
    traits = {}
    def __init__(self, game):
        pass
    def act(self, obs, mask, rng):
        return np.full(len(mask), mask.shape[1] + 3)

class BareGames:
    name = "bare"
    traits = {}
    games = "qdv"
    def __init__(self, game):
        pass
    def act(self, obs, mask, rng):
        return np.argmax(mask, axis=1)

class UnknownGames(BareGames):
    games = ("qdv", "chess")

class NpRandom:
    name = "nprandom"
    traits = {"stochastic": True}
    def __init__(self, game):
        pass
    def act(self, obs, mask, rng):
        u = np.random.random_sample(len(mask))
        return np.argmax(np.cumsum(mask, axis=1) > (u * mask.sum(axis=1))[:, None], axis=1)

class StdRandom:
    name = "stdrandom"
    traits = {"stochastic": True}
    def __init__(self, game):
        pass
    def act(self, obs, mask, rng):
        import random
        return np.array([random.choice(np.flatnonzero(row)) for row in mask], np.int64)

class Stateful:
    name = "stateful"
    traits = {}
    def __init__(self, game):
        self.calls = 0
    def act(self, obs, mask, rng):
        self.calls += 1
        last = mask.shape[1] - 1 - np.argmax(mask[:, ::-1], axis=1)
        return np.argmax(mask, axis=1) if self.calls % 2 else last

class Good:
    name = "good"
    traits = {"stochastic": False}
    def __init__(self, game, k=0):
        self.k = k
    def act(self, obs, mask, rng):
        return np.argmax(mask, axis=1)
'''

TOML = """
[experiment]
game = "qdv"
players = 2
games = 20
[[seats]]
agent = "{agent}"
params = {params}
[[seats]]
agent = "random"
[run]
batch = 8
shard_games = 10
plots = false
"""


MISFITS = [
    ("nosuchmodule_xyz:A", "{}", "cannot import module 'nosuchmodule_xyz'"),
    ("mybad:Missing", "{}", "module 'mybad' has no class 'Missing'"),
    ("mybad:NoAct", "{}", "needs a method act(obs, legal_mask, rng) -> int[B]"),
    ("mybad:NoName", "{}", "needs a `name` attribute"),
    ("mybad:Floats", "{}", "act must return int[B]"),
    ("mybad:Illegal", "{}", "act returned an illegal action"),
    ("mybad:Good", "{ z = 1 }", "Good(game, **params) failed: TypeError"),
    ("mybad:", "{}", "write \\\"package.module:ClassName\\\""),
    ("mybad:BareGames", "{}", "games = 'qdv' is a string; give a tuple of game ids"),
    ("mybad:UnknownGames", "{}", "unknown game 'chess' in games"),
    ("mybad:NpRandom", "{}", "for the same observation, mask and rng: draw random numbers from "
                             "the rng argument only (rng.uniform, rng.below), not np.random"),
    ("mybad:StdRandom", "{}", "draw random numbers from the rng argument only"),
    ("mybad:Stateful", "{}", "keep no state between calls, or runs cannot be reproduced"),
]
"""Custom agents that do not fit, with what the one-line error says."""


def misfit_error(tmp_path: Path, agent: str, params: str, run: Any) -> str:
    """The stderr of ``bluffsim run`` (``run(args) -> (exit status, stderr)``) in ``tmp_path`` on
    a config seating ``agent``, after checking it exits 2."""
    (tmp_path / "mybad.py").write_text(BAD_AGENTS)
    (tmp_path / "c.toml").write_text(TOML.format(agent=agent, params=params))
    code, err = run(["run", "c.toml", "--out", "res", "--quiet"])
    assert code == 2, err
    return err


IN_A_PROCESS = "mybad:Illegal"
"""The misfit run as a real process: one whose ``act`` runs (the contract check plays it)."""


def test_a_custom_agent_that_does_not_fit_is_a_one_line_error_from_a_process(tmp_path):
    """One case as a real process (``tests.console``); the others in this process below."""
    agent, params, message = next(case for case in MISFITS if case[0] == IN_A_PROCESS)

    def process(args: list[str]) -> tuple[int, str]:
        proc = cli(args, cwd=tmp_path)
        return proc.returncode, proc.stderr

    err = misfit_error(tmp_path, agent, params, process)
    assert message.replace("\\", "") in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "res").exists()


@pytest.mark.parametrize("agent, params, message",
                         [case for case in MISFITS if case[0] != IN_A_PROCESS])
def test_a_custom_agent_that_does_not_fit_is_a_one_line_error(tmp_path, monkeypatch, capsys,
                                                               agent, params, message):
    monkeypatch.chdir(tmp_path)                  # the loader imports from the working directory
    monkeypatch.setattr(sys, "path", list(sys.path))
    sys.modules.pop("mybad", None)
    try:
        err = misfit_error(tmp_path, agent, params, lambda args: bluffsim_here(args, capsys))
    finally:
        sys.modules.pop("mybad", None)
    assert message.replace("\\", "") in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "res").exists()


def test_a_fitting_class_from_the_working_directory_plays_with_a_default_label(tmp_path):
    (tmp_path / "mybad.py").write_text(BAD_AGENTS)
    (tmp_path / "c.toml").write_text(TOML.format(agent="mybad:Good", params="{ k = 2 }"))
    proc = cli(["run", "c.toml", "--out", "res", "--quiet"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert set(pd.read_parquet(tmp_path / "res" / "games.parquet")["agent"]) == {"Good", "random"}


def test_register_makes_a_notebook_class_available_and_checks_it():
    class Lowest:
        name = "lowest"
        traits = {"stochastic": False}

        def __init__(self, game):
            self.game = game

        def act(self, obs, legal_mask, rng):
            return np.argmax(legal_mask, axis=1)

    agents.register("lowest-test", Lowest)
    try:
        assert "lowest-test" in agents.list_agents()
        for gid, p in (("qdv", 3), ("veru", 3), ("legumes", 3)):
            assert isinstance(agents.make("lowest-test", bluffsim.make(gid, p)), Lowest)
        from bluffsim.tournament import parse_config, play_shard

        exp = parse_config({"experiment": {"game": "veru", "players": 3, "games": 6},
                            "seats": [{"agent": "lowest-test"}, {"agent": "random"},
                                      {"agent": "heuristic"}],
                            "run": {"batch": 4, "plots": False}})
        games, _ = play_shard(exp, 0)
        assert set(games["agent"]) == {"lowest-test", "random", "heuristic"}
    finally:
        agents.REGISTRY.pop("lowest-test")
    with pytest.raises(AgentContractError, match="give a class with an act method"):
        agents.register("x", object)
    Lowest.games = "qdv"            # a bare string, not the games q, d and v
    with pytest.raises(AgentContractError, match="games = 'qdv' is a string"):
        agents.register("x", Lowest)
    assert "x" not in agents.list_agents()


def test_the_readme_shows_the_example_agent_that_the_tests_run():
    import re

    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    shown = next(b for b in blocks if "class Skeptic" in b)
    source = (ROOT / "experiments" / "my_agent.py").read_text()
    assert shown.strip() in source            # the README code is the file's code, verbatim
    assert len(shown.strip().splitlines()) <= 25


def test_check_name_accepts_registered_names_and_importable_specs():
    agents.check_name("counting")
    agents.check_name("experiments.my_agent:Skeptic")
    with pytest.raises(ValueError, match="unknown agent 'oracle'"):
        agents.check_name("oracle")
    with pytest.raises(AgentContractError, match="has no class 'Nope'"):
        agents.check_name("experiments.my_agent:Nope")


def test_an_agent_drawing_from_np_random_is_refused_wherever_it_is_built(tmp_path, monkeypatch):
    """The reproducibility check runs wherever a custom class is built: ``agents.make`` (configs,
    evaluate, exploit), ``agents.register`` classes and a ``bluffsim play`` seat; an agent drawing
    from ``rng`` (the README's Skeptic) passes it."""
    (tmp_path / "mybad.py").write_text(BAD_AGENTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    game = bluffsim.make("qdv", 3)
    with pytest.raises(AgentContractError, match="not np.random or random"):
        agents.make("mybad:NpRandom", game)
    import mybad

    agents.register("nprandom-test", mybad.NpRandom)
    try:
        with pytest.raises(AgentContractError, match="agent 'nprandom-test': act chose action"):
            agents.make("nprandom-test", game)
    finally:
        agents.REGISTRY.pop("nprandom-test")
        from agents import custom
        custom.REGISTERED.pop("nprandom-test")
    assert agents.make("experiments.my_agent:Skeptic", game).name == "skeptic"
    r = subprocess.run([sys.executable, "-m", "bluffsim.cli", "play", "qdv", "--watch", "--seats",
                        "mybad:NpRandom,random"], capture_output=True, text=True, cwd=tmp_path,
                       env={**__import__("os").environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert r.returncode == 2 and "not np.random or random" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and r.stdout == ""
