"""legumes agents and the Reverse and accept actions: ``reverse <card>``, ``reverse`` alone, ``accept``."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from bluffsim.games.legumes import rules as R
from bluffsim.games.legumes.reference import scenario
from bluffsim.games.legumes.vec import LegumesGame
from bluffsim.rng import AgentRNG

A = ["carrot-2", "tomato-1", "bomb", "choice", "reverse", "double"]
C = ["pea-1", "pea-2", "choice"]


def decide(name: str, hands, actions, **params) -> str:
    """The agent's decision (by name) after ``actions`` in a scenario."""
    ref, s = scenario([list(h) for h in hands], ["radish-1", "radish-2", "radish-3"])
    for a in actions:
        ref.apply(s, a)
    game = LegumesGame(ref.rules)
    st = game.from_reference([s])
    if name != "heuristic":
        params.pop("accuse_rate", None)  # a heuristic parameter (no random accusations)
    agent = agents.make(name, game, **params)
    a = agent.act(game.observe(st), st.legal_action_mask,
                  AgentRNG(st.seed, st.current_player, st.num_decisions))
    assert st.legal_action_mask[0, a[0]]
    return game.action_names[int(a[0])]


@pytest.mark.parametrize("name", ["heuristic", "counting"])
def test_agents_shed_their_worst_card_with_the_reverse(name):
    # seat 1 holds no carrot and no Vegetable choice: it lies, shedding the Double with the Reverse
    hands = (A, ["leek-3", "pea-1", "double", "reverse", "bomb"], C)
    assert decide(name, hands, ["open tomato-1 carrot"], accuse_rate=0.0) == "reverse double"
    hands = (A, ["leek-3", "pea-1", "reverse"], C)
    assert decide(name, hands, ["open tomato-1 carrot"], accuse_rate=0.0) == "reverse leek-3"


@pytest.mark.parametrize("name", ["heuristic", "counting"])
def test_agents_end_the_game_with_a_face_up_last_card(name):
    assert decide(name, (A, ["reverse"], C), ["open tomato-1 carrot"], accuse_rate=0.0) == "reverse"
    assert decide(name, (A, ["choice"], C),
                  ["open tomato-1 carrot"], accuse_rate=0.0).startswith("choice ")


@pytest.mark.parametrize("name", ["heuristic", "counting"])
def test_agents_facing_a_last_card_accuse_or_accept(name):
    # two players: accepting is a sure loss, so accuse
    assert decide(name, (["carrot-1"], ["pea-3", "leek-1"]), ["open carrot-1 carrot"]) == "accuse"
    # three players, my score (2) at most every other hand size (2): sure of second place
    hands = (["carrot-1"], ["pea-1", "leek-1"], ["pea-3", "radish-3"])
    assert decide(name, hands, ["open carrot-1 carrot"]) == "accept"
    # my score is too high to be sure of second place: accuse
    hands = (["carrot-1"], ["pea-3", "leek-3"], ["pea-1", "radish-1"])
    assert decide(name, hands, ["open carrot-1 carrot"]) == "accuse"
    # after a Reverse with the last card, accepting is the only move
    hands = (A, ["leek-3", "reverse"], C)
    assert decide(name, hands, ["open tomato-1 carrot", "reverse leek-3"]) == "accept"


def test_random_agent_uses_the_new_actions():
    game = LegumesGame(R.Rules(num_players=3))
    st = game.init(np.arange(200))
    agent = agents.make("random", game)
    used = set()
    for _ in range(400):
        if st.done.all():
            break
        a = agent.act(game.observe(st), st.legal_action_mask,
                      AgentRNG(st.seed, st.current_player, st.num_decisions))
        a = np.where(st.done, -1, a)
        used.update(int(x) for x in a[a >= 0])
        game.step(st, a)
    assert R.ACCEPT in used and any(x >= R.REVERSE_PLAY0 for x in used)


def test_heuristic_games_no_longer_end_in_a_shared_first_place():
    """Before ``accept`` the accepter shed a card too, and about 14% of 4-player heuristic
    games ended with two players at 0 points; now only a dry draw pile can tie the first."""
    game = LegumesGame(R.Rules(num_players=4))
    agent = agents.make("heuristic", game)
    st = game.init(np.arange(300))
    while not st.done.all():
        a = agent.act(game.observe(st), st.legal_action_mask,
                      AgentRNG(st.seed, st.current_player, st.num_decisions))
        game.step(st, np.where(st.done, -1, a))
    shared = (st.placements == 1).sum(axis=1) > 1
    assert st.terminated.all() and not (shared & (st.reshuffles < 2)).any()
