"""The Gymnasium vector env plays its opponents in the fused compiled loop (issue 24): the same
observations, masks, rewards and infos as stepping each opponent's ``act``, for built-in
opponents, frozen learned snapshots in a training mixture, ``end_when_out`` and shaping; a
tensor-callable opponent keeps the stepped path."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import bluffsim
from agents.learned import LearnedAgent
from bluffsim.adapters.gymnasium import vector_env
from bluffsim.learn import MixedOpponent
from bluffsim.rng import AgentRNG
from tests.fused import count_fused_calls


def rollout(env, steps: int, seed: int = 5) -> list:
    """``steps`` learner steps with a fixed policy of the learner's own (its random agent on
    the legal mask, keyed by the game seed and decision), everything the env returns."""
    out = []
    x, info = env.reset(seed=seed)
    out.append((x.copy(), {k: np.copy(v) for k, v in info.items()}))
    rand = agents.make("random", env.game)
    for _ in range(steps):
        st = env.state
        rng = AgentRNG(info["game_seed"], info["seat"], st.num_decisions)
        a = rand.act(None, info["action_mask"], rng)
        x, r, term, trunc, info = env.step(a)
        flat = {k: v for k, v in info.items() if not isinstance(v, dict)}
        finals = info.get("final_info", {})
        out.append((x.copy(), r.copy(), term.copy(), trunc.copy(),
                    {k: np.copy(v) for k, v in flat.items()},
                    {k: np.copy(v) for k, v in finals.items()}))
    return out


def same(a, b) -> None:
    assert len(a) == len(b)
    for i, (u, v) in enumerate(zip(a, b, strict=True)):
        for p, q in zip(u, v, strict=True):
            if isinstance(p, dict):
                assert p.keys() == q.keys(), i
                for k in p:
                    assert np.array_equal(p[k], q[k]), (i, k)
            else:
                assert np.array_equal(p, q), i


CASES = {
    "qdv_builtins": ("qdv", dict(opponents=("heuristic", "counting", "random"), seat="rotate")),
    "qdv_out_shaped": ("qdv", dict(opponents=("counting", "heuristic"), seat="rotate",
                                   end_when_out=True, shaping=0.5)),
    "veru_out": ("veru", dict(opponents=("heuristic", "counting", "random"), seat=1,
                              end_when_out=True)),
    "legumes_learned": ("legumes", dict(opponents=("learned",), seat="rotate")),
}


@pytest.mark.parametrize("case", list(CASES))
def test_fused_opponents_equal_stepped_opponents(case, monkeypatch):
    game_id, kw = CASES[case]
    calls = count_fused_calls(monkeypatch)
    fused = rollout(vector_env(game_id, 24, **kw), 90)
    assert calls
    stepped = rollout(vector_env(game_id, 24, use_fused=False, **kw), 90)
    same(fused, stepped)
    ends = sum(int(step[2].sum()) for step in fused[1:])
    assert ends > 5  # games ended and were dealt again


def test_a_training_mixture_with_snapshots_plays_fused_and_follows_set(monkeypatch):
    """The PPO opponent mixture (built-ins and frozen learned snapshots) plays in the fused
    loop; after ``set`` (a new snapshot) the loop is rebuilt; trajectories equal stepped ones."""
    game = bluffsim.make("qdv", 2)
    snap = LearnedAgent(game)  # the shipped 2p weights stand for a snapshot
    runs = []
    for fused_on in (True, False):
        mix = MixedOpponent([agents.make("heuristic", game), agents.make("counting", game)],
                            [0.5, 0.5])
        env = vector_env("qdv", 16, opponents=[mix], seat="rotate", use_fused=fused_on)
        first = rollout(env, 40)
        mix.set([agents.make("heuristic", game), LearnedAgent(game, layers=snap.layers)],
                [0.3, 0.7])
        runs.append(first + rollout(env, 40, seed=9))
        if fused_on:
            assert env._fused is not None and len(env._fused.kinds) == 3
    same(*runs)


def test_a_tensor_callable_opponent_keeps_the_stepped_path(monkeypatch):
    calls = count_fused_calls(monkeypatch)
    game = bluffsim.make("qdv", 2)
    pol = LearnedAgent(game)
    env = vector_env("qdv", 8, opponents=[pol.act_tensor])
    rollout(env, 10)
    assert not calls
