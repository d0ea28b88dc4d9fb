"""legumes heuristic (issue 15 point 3): it sheds the action cards, which only cost points,
when it must lie anyway — and keeps its parameters' meaning."""

from __future__ import annotations

import agents
from bluffsim.games.legumes.reference import scenario
from bluffsim.games.legumes.vec import LegumesGame
from bluffsim.rng import AgentRNG

OPENER = ["carrot-2", "tomato-1", "bomb", "choice", "reverse", "double"]
NEXT = ["pea-1", "pea-2", "choice"]


def decide(hands, actions, discard=(), **params) -> str:
    """The heuristic's decision (by name) after ``actions`` in a scenario."""
    ref, s = scenario([list(h) for h in hands], ["radish-1", "radish-2", "radish-3"],
                      discard=list(discard))
    for a in actions:
        ref.apply(s, a)
    game = LegumesGame(ref.rules)
    st = game.from_reference([s])
    agent = agents.make("heuristic", game, **params)
    a = agent.act(game.observe(st), st.legal_action_mask,
                  AgentRNG(st.seed, st.current_player, st.num_decisions))
    assert st.legal_action_mask[0, a[0]]
    return game.action_names[int(a[0])]


def test_lies_with_an_action_card_rather_than_a_vegetable():
    # no carrot, no Reverse, one of each other vegetable (no Choice switch): lie with an action
    # card, Double first, then Choice, then Bomb; a vegetable only without any
    hands = (OPENER, ["leek-1", "pea-1", "bomb", "double", "choice"], NEXT)
    assert decide(hands, ["open tomato-1 carrot"], accuse_rate=0.0) == "play double"
    hands = (OPENER, ["leek-1", "pea-1", "bomb", "choice"], NEXT)
    assert decide(hands, ["open tomato-1 carrot"], accuse_rate=0.0) == "play choice"
    hands = (OPENER, ["leek-3", "pea-2", "bomb"], NEXT)
    assert decide(hands, ["open tomato-1 carrot"], accuse_rate=0.0) == "play bomb"
    hands = (OPENER, ["leek-3", "pea-2"], NEXT)
    assert decide(hands, ["open tomato-1 carrot"], accuse_rate=0.0) == "play pea-2"


def test_truth_and_the_other_rules_come_before_shedding():
    # holding the called vegetable: play its highest card, not an action card
    hands = (OPENER, ["carrot-1", "carrot-3", "bomb", "double"], NEXT)
    assert decide(hands, ["open tomato-1 carrot"], accuse_rate=0.0) == "play carrot-3"
    # two peas and the Choice: call peas face up
    hands = (OPENER, ["pea-1", "pea-2", "bomb", "choice"], NEXT)
    assert decide(hands, ["open tomato-1 carrot"], accuse_rate=0.0) == "choice pea"
    # holding the Reverse: shed the worst card with it, as before
    hands = (OPENER, ["leek-3", "bomb", "double", "reverse"], NEXT)
    assert decide(hands, ["open tomato-1 carrot"], accuse_rate=0.0) == "reverse double"


def test_parameters_keep_their_meaning():
    # three carrots in hand: accuse at accuse_at=3, double at double_at=3, play at accuse_at=4
    hands = (OPENER, ["carrot-1", "carrot-1", "carrot-3", "bomb", "double"], NEXT)
    assert decide(hands, ["open tomato-1 carrot"], accuse_rate=0.0) == "accuse"
    assert decide(hands, ["open tomato-1 carrot"], accuse_rate=0.0, double_at=3) == "accuse double"
    assert decide(hands, ["open tomato-1 carrot"], accuse_rate=0.0, accuse_at=4) == "play carrot-3"
    # accuse_rate=1 accuses anyway, even when it would shed an action card
    hands = (OPENER, ["leek-1", "pea-1", "bomb", "double"], NEXT)
    assert decide(hands, ["open tomato-1 carrot"], accuse_rate=1.0) == "accuse"


def decide_with_pile(hands, actions, discard, **params) -> str:
    """The heuristic's decision (by name) with ``discard`` as the discard pile."""
    return decide(hands, actions, discard=discard, **params)


def test_no_accusation_when_a_bomb_would_hand_over_more_than_the_accused_holds():
    # seat 1 holds three carrots: accuse_at=3 accuses the opener (5 cards left) while the pile
    # (discard + this round) is at most 5 cards, and plays its carrot once a Bomb would hand it
    # more; accuse_rate=1 obeys the same guard
    hands = (OPENER, ["carrot-1", "carrot-1", "carrot-3", "bomb", "double"], NEXT)
    small, big = ["pea-3"] * 4, ["pea-3"] * 5
    assert decide_with_pile(hands, ["open tomato-1 carrot"], small, accuse_rate=0.0) == "accuse"
    assert decide_with_pile(hands, ["open tomato-1 carrot"], big, accuse_rate=0.0) == "play carrot-3"
    hands = (OPENER, ["leek-1", "pea-1", "bomb", "double"], NEXT)
    assert decide_with_pile(hands, ["open tomato-1 carrot"], small, accuse_rate=1.0) == "accuse"
    assert decide_with_pile(hands, ["open tomato-1 carrot"], big, accuse_rate=1.0) == "play double"
    # facing a player's last face-down card it still accuses (the only way to keep playing)
    hands = (["carrot-1"], ["pea-3", "leek-1"])
    assert decide_with_pile(hands, ["open carrot-1 carrot"], ["pea-3"] * 9) == "accuse"
