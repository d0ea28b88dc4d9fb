"""Your own compiled agent (``agents.CompiledAgent``, ``docs/writing_an_agent.md``): it plays in
the fused loop as kind ``USER`` — on the fourth game too, which ships no compiled agents — and
the records equal the stepped path's, where its ``act`` runs the same policy."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

import agents
import bluffsim
from agents.fused import EXTERNAL, RANDOM, USER, fused_lineup
from experiments.my_compiled_agent import Doubter
from tests.compiled_agents import LiarCaller
from tests.fused import count_fused_calls, fused_and_stepped, runner_config


def test_the_fourth_games_compiled_agent_plays_fused_and_equals_the_stepped_path(monkeypatch):
    seats = [{"agent": "tests.compiled_agents:LiarCaller", "label": "caller"},
             {"agent": "random"},
             {"agent": "tests.compiled_agents:LiarCaller", "label": "bold",
              "params": {"margin": -1.0}}]
    exp = runner_config("liarsdice", seats, 3, 240, 120)
    fused, old = fused_and_stepped(exp, 1, monkeypatch)
    assert len(fused[1]) > 200 and set(fused[0]["agent"]) == {"caller", "bold", "random"}
    assert fused[0].equals(old[0]) and fused[1].equals(old[1])


def test_the_example_plays_beside_builtin_policies_in_one_kernel(monkeypatch):
    game = bluffsim.make("qdv", 4)
    lineup = [Doubter(game), agents.make("heuristic", game), agents.make("counting", game),
              Doubter(game, margin=0.0, share=0.4)]
    fused = fused_lineup(game, lineup)
    assert fused is not None and fused.kinds.tolist() == [USER, 1, 2, USER]
    np.testing.assert_array_equal(fused.params[3, :2], [0.0, 0.4])
    seats = [{"agent": "experiments.my_compiled_agent:Doubter", "label": "doubter"},
             {"agent": "heuristic"}, {"agent": "counting"},
             {"agent": "experiments.my_compiled_agent:Doubter", "label": "bold",
              "params": {"margin": 0.0, "share": 0.4}}]
    got, old = fused_and_stepped(runner_config("qdv", seats, 4, 240, 120), 0, monkeypatch)
    assert got[0].equals(old[0]) and got[1].equals(old[1])
    assert ((got[0]["placement"] == 1).groupby(got[0]["agent"]).mean() > 0).all()


@njit
def lowest_policy(obs, mask, key, r, params, ctx):
    """The lowest legal action id."""
    for a in range(mask.shape[0]):
        if mask[a]:
            return np.int64(a)
    return np.int64(-1)


class Other(agents.CompiledAgent):
    """A second compiled agent class: its policy is not the kernel's user policy."""

    name = "other"
    policy = lowest_policy


def test_one_user_policy_per_kernel_the_others_act_from_python():
    game = bluffsim.make("liarsdice", 3)
    caller, other, rand = LiarCaller(game), Other(game), agents.make("random", game)
    assert fused_lineup(game, [caller, rand, other], external=True).kinds.tolist() == [
        USER, RANDOM, EXTERNAL]
    assert fused_lineup(game, [caller, rand, other]) is None  # not all can be compiled
    assert fused_lineup(game, [rand, rand, rand]) is None  # no compiled agents for this game

    class Tweaked(LiarCaller):
        def act(self, obs, legal_mask, rng):
            return super().act(obs, legal_mask, rng)

    assert fused_lineup(game, [Tweaked(game), rand], external=True) is None


@pytest.mark.parametrize("players", [2, 4])
def test_the_runner_takes_the_fused_path_for_a_compiled_agent(players, monkeypatch):
    calls = count_fused_calls(monkeypatch)
    seats = [{"agent": "tests.compiled_agents:LiarCaller", "label": f"c{i}"}
             for i in range(players)]
    from bluffsim.tournament import play_shard

    games, rounds = play_shard(runner_config("liarsdice", seats, players, 60, 60), 0)
    assert calls and len(games) == 60 * players and len(rounds) > 60
