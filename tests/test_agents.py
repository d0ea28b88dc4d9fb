"""Every registered agent: legal actions on many states, batch independence, parameters."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import agents
import bluffsim
from bluffsim.rng import AgentRNG
from tests.games import random_actions
from tests.llm_server import MODEL, LLMServer

# `learned` needs a weights file per (game, players): its contract tests are in tests/test_learn.py
PAIRS = [(name, gid) for name, gid, _ in agents.describe() if name != "learned"]


@pytest.fixture(scope="module")
def llm_url():
    """`llm` plays these contract tests against the scripted OpenAI-compatible test server
    (a real HTTP server on 127.0.0.1; tests/llm_server.py)."""
    with LLMServer() as server:
        yield server.url


def make_agent(name, game, llm_url):
    """The agent with the parameters it needs to be built (the server's address for `llm`)."""
    if name == "llm":
        return agents.make(name, game, model=MODEL, base_url=llm_url, cache="none")
    return agents.make(name, game)


def states_after(game, seeds, steps):
    """A batch of states reached by random play (finished games restarted)."""
    st_ = game.init(seeds)
    for _ in range(steps):
        game.step(st_, random_actions(game, st_))
        done = np.flatnonzero(st_.done)
        if done.size:
            game.reset_games(st_, done, st_.seed[done] + 10**6)
    return st_


@pytest.mark.parametrize("name, game_id", PAIRS)
@given(players=st.integers(2, 6), seed=st.integers(0, 2**32), steps=st.integers(0, 80))
def test_agent_returns_only_legal_actions(name, game_id, players, seed, steps, llm_url):
    lo, hi, _ = bluffsim.spec(game_id).players  # the game's declared table sizes
    players = min(max(players, lo), hi)
    game = bluffsim.make(game_id, players)
    agent = make_agent(name, game, llm_url)
    st_ = states_after(game, np.arange(seed, seed + 64), steps)
    live = np.flatnonzero(~st_.done)
    obs = {k: v[live] for k, v in game.observe(st_).items()}
    rng = AgentRNG(st_.seed[live], st_.current_player[live], st_.num_decisions[live])
    a = agent.act(obs, st_.legal_action_mask[live], rng)
    assert a.shape == (live.size,)
    assert st_.legal_action_mask[live, a].all()


@pytest.mark.parametrize("name, game_id", PAIRS)
def test_same_seed_same_actions_alone_or_in_a_batch(name, game_id, llm_url):
    game = bluffsim.make(game_id, 4)
    agent = make_agent(name, game, llm_url)
    st_ = states_after(game, np.arange(100), 30)
    obs = game.observe(st_)
    rng = AgentRNG(st_.seed, st_.current_player, st_.num_decisions)
    batch = agent.act(obs, st_.legal_action_mask, rng)
    for b in (0, 37, 99):
        one = {k: v[b:b + 1] for k, v in obs.items()}
        r1 = AgentRNG(st_.seed[b:b + 1], st_.current_player[b:b + 1], st_.num_decisions[b:b + 1])
        assert agent.act(one, st_.legal_action_mask[b:b + 1], r1)[0] == batch[b]


def test_unknown_agent_and_parameter_are_clear_errors():
    game = bluffsim.make("qdv", 3)
    with pytest.raises(ValueError, match="unknown agent 'oracle'"):
        agents.make("oracle", game)
    with pytest.raises(ValueError, match="unknown parameter"):
        agents.make("heuristic", game, temperature=1)


# every game with a heuristic, at its smallest and its default table
HEURISTIC_TABLES = [(g, p) for g in bluffsim.list_games() if g in agents.REGISTRY["heuristic"]
                    for p in sorted({bluffsim.spec(g).players[0], bluffsim.spec(g).players[2]})]


@pytest.mark.parametrize("game_id, players", HEURISTIC_TABLES)
def test_heuristic_beats_random(game_id, players):
    from bluffsim.tournament import parse_config, play_shard

    seats = [{"agent": "random", "label": f"random-{i}"} for i in range(players - 1)]
    exp = parse_config({"experiment": {"game": game_id, "players": players, "games": 600,
                                       "seed": 9},
                        "seats": [{"agent": "heuristic"}, *seats],
                        "run": {"batch": 200, "shard_games": 600}})
    games, _ = play_shard(exp, 0)
    stats_ = games.assign(rnd=games["agent"] != "heuristic").groupby("rnd")["won"].mean()
    # the heuristic holds one seat of `players`: it must win far more than its fair share
    assert stats_[False] > 1.5 / players and stats_[False] > 1.5 * stats_[True]
