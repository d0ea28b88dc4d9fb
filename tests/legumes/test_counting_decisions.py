"""legumes ``counting`` (issue 15): scripted scenarios, observe, the expected decision.

Each scenario pins one part of the model: the per-seat behaviour evidence, the
Bomb's real stakes (the pile), the Bomb trap and keeping a finisher."""

from __future__ import annotations

import numpy as np

import agents
from agents.legumes.counting import claim_model
from bluffsim.games.legumes import rules as R
from bluffsim.games.legumes.reference import scenario
from bluffsim.games.legumes.vec import LegumesGame
from bluffsim.rng import AgentRNG

OPENER = ["carrot-2", "tomato-1", "leek-2", "bomb", "choice", "reverse", "double"]
ME = ["leek-1", "pea-1", "pea-3", "radish-2", "cabbage-1", "double"]
THIRD = ["pea-2", "tomato-3", "radish-1", "cabbage-2", "choice"]
DRAW = ["radish-1", "radish-2", "radish-3"]


def observe(hands, actions, discard=(), tallies=None):
    """(game, state, observation) after ``actions``; ``tallies`` sets public per-seat tallies
    (field -> per-seat lists) before the first action."""
    ref, s = scenario([list(h) for h in hands], DRAW, discard=list(discard))
    for field, value in (tallies or {}).items():
        setattr(s, field, value if isinstance(value, int) else [list(v) for v in value])
    for a in actions:
        ref.apply(s, a)
    game = LegumesGame(ref.rules)
    st = game.from_reference([s])
    return game, st, game.observe(st)


def decide(name, hands, actions, discard=(), tallies=None, **params) -> str:
    """The agent's decision (by name)."""
    game, st, obs = observe(hands, actions, discard, tallies)
    agent = agents.make(name, game, **params)
    a = agent.act(obs, st.legal_action_mask, AgentRNG(st.seed, st.current_player,
                                                      st.num_decisions))
    assert st.legal_action_mask[0, a[0]]
    return game.action_names[int(a[0])]


def beliefs(hands, actions, tallies=None) -> np.ndarray:
    """P(true), P(lie), P(Bomb) of the last face-down card, as the next seat sees it."""
    game, _, obs = observe(hands, actions, tallies=tallies)
    return claim_model(game, obs)[1][0]


LIAR = {"accused_tally": [[0, 6, 0], [0, 0, 0]], "accuser_tally": [[4, 4, 0], [0, 0, 0]],
        "num_rounds": 10}
HONEST = {"accused_tally": [[6, 0, 0], [0, 0, 0]], "accuser_tally": [[0, 0, 0], [0, 0, 0]],
          "num_rounds": 10}


def test_a_seat_caught_lying_is_believed_less_than_an_honest_one():
    # two players; the opener (6 accusations against it: all lies, or all true) is down to two
    # cards, so its claim matters: accuse the liar (doubled), play on the honest one
    hands = (["carrot-2", "tomato-1", "leek-2"], ME)
    p_liar = beliefs(hands, ["open leek-2 carrot"], tallies=LIAR)
    p_honest = beliefs(hands, ["open leek-2 carrot"], tallies=HONEST)
    assert p_liar[0] < 0.6 < 0.75 < p_honest[0]
    assert decide("counting", hands, ["open leek-2 carrot"], tallies=LIAR) == "accuse double"
    assert not decide("counting", hands, ["open leek-2 carrot"], tallies=HONEST).startswith("accuse")


def test_a_big_discard_pile_makes_the_bomb_too_costly_to_accuse():
    # the same belief (a lie 80%, a Bomb 10%): accuse with an empty pile, play when a Bomb would
    # hand me the 24-card pile
    hands = (OPENER, ME, THIRD)
    pile = [f"{v}-{n}" for v in ("tomato", "cabbage", "pea", "leek") for n in (1, 2, 3)] * 2
    belief = np.array([[0.1, 0.8, 0.1]])
    got = {}
    for name, discard in (("empty", ()), ("pile", pile)):
        game, st, obs = observe(hands, ["open leek-2 carrot"], discard)
        agent = agents.make("counting", game)
        a = agent.judge(obs, st.legal_action_mask, np.array([R.PLAY0]), belief)
        got[name] = game.action_names[int(a[0])]
    assert got["empty"].startswith("accuse")
    assert got["pile"] == "play carrot-1"
    # with no Bomb possible the pile does not matter
    game, st, obs = observe(hands, ["open leek-2 carrot"], pile)
    a = agents.make("counting", game).judge(obs, st.legal_action_mask, np.array([R.PLAY0]),
                                            np.array([[0.1, 0.9, 0.0]]))
    assert game.action_names[int(a[0])].startswith("accuse")


def test_keeps_its_last_finisher_when_in_the_race():
    # seat 1 holds a leek and the Choice (its only finisher), no carrot: it lies with the leek
    # and keeps the Choice to end the game face up; the heuristic sheds the Choice
    hands = (OPENER, ["leek-1", "pea-1", "choice"], THIRD)
    assert decide("counting", hands, ["open tomato-1 carrot"]) == "play leek-1"
    assert decide("heuristic", hands, ["open tomato-1 carrot"], accuse_rate=0.0) == "play choice"


def test_sets_the_bomb_trap_for_a_next_player_who_accuses_often():
    # seat 1 must lie (no carrot, no Reverse, one of each vegetable); seat 2 accuses every round:
    # lie with the Bomb (the accuser would take the pile); a quiet next player gets the Double
    hands = (OPENER, ["leek-1", "pea-1", "bomb", "choice", "double"], THIRD)
    busy = {"accuser_tally": [[0, 0, 0], [0, 0, 0], [2, 8, 0]], "num_rounds": 10}
    quiet = {"accuser_tally": [[0, 0, 0], [0, 0, 0], [0, 0, 0]], "num_rounds": 10}
    assert decide("counting", hands, ["open tomato-1 carrot"], tallies=busy) == "play bomb"
    assert decide("counting", hands, ["open tomato-1 carrot"], tallies=quiet) == "play double"
