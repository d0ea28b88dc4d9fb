"""Scripted behaviour of the qdv ``heuristic`` and ``counting`` agents (Axelrod's ``versus_test``):
a deal built with ``scenario(...)``, a few scripted decisions, then the agent's choice from
``observe`` — for the heuristic one test per rule of thumb in its docstring."""

from __future__ import annotations

from typing import Any

import agents
import bluffsim
from bluffsim.games.qdv.reference import scenario
from bluffsim.rng import AgentRNG

# seat 0 holds six bananas' worth and a salad; seat 1 sees none of it
HANDS = [["banana x3", "banana x2", "salad"], ["strawberry", "grape", "cherry"]]


def choice(game: Any, s: Any, agent_name: str = "heuristic", **params: Any) -> str:
    """The agent's action name for the player to move in reference state ``s``."""
    fast = bluffsim.spec("qdv").engine(game.rules)
    st = fast.from_reference([s])
    agent = agents.make(agent_name, fast, **params)
    rng = AgentRNG(st.seed, st.current_player, st.num_decisions)
    return game.rules.action_names[int(agent.act(fast.observe(st), st.legal_action_mask, rng)[0])]


def after(*actions: str, hands: list[list[str]] = HANDS) -> tuple[Any, Any]:
    """The scenario after ``actions`` (names), seat 1 bidding first."""
    game, s = scenario(hands, centre="banana", tokens=[3, 3])
    for a in actions:
        game.apply(s, a)
    return game, s


def test_a_bid_far_above_the_expected_count_is_called_menteur() -> None:
    game, s = after("+2 banana", "+2 banana")          # 5 bananas bid; seat 1 expects ~2.5
    assert s.current_player == 1 and s.bid_count == 5
    assert choice(game, s, bluff=0.0) == "menteur"


def test_a_bid_within_the_exact_window_is_called_vrai() -> None:
    game, s = after("+2 banana", "+2 banana")
    assert choice(game, s, bluff=0.0, call_margin=100.0, exact_window=100.0) == "vrai"


def test_a_plausible_bid_is_raised_by_one_on_the_best_fruit() -> None:
    game, s = after()                                   # the centre's banana is the standing bid
    assert s.current_player == 1
    assert choice(game, s, bluff=0.0, exact_window=0.0) == "+1 banana"
    # with switch_gain very negative any better-expected fruit is taken; never a +2 raise
    assert choice(game, s, bluff=0.0, exact_window=0.0, switch_gain=-100.0).startswith("+1 ")


def test_the_accused_bidder_declares_every_salad() -> None:
    game, s = after("+2 banana", "+2 banana", "menteur")
    assert s.current_player == 0                        # seat 0's bid was called
    assert choice(game, s) == "salads 1"


def test_whoever_called_menteur_declares_no_salad() -> None:
    hands = [["strawberry", "grape", "cherry"], ["banana x3", "banana x2", "salad"]]
    game, s = after("+2 banana", "+2 banana", "menteur", hands=hands)
    assert s.caller == 1          # seat 1 holds the salad and called menteur on seat 0's bid
    while s.current_player != 1:  # the declarations go round; seat 0 declares what it likes
        game.apply(s, game.rules.action_names[game.legal_actions(s)[0]])
    assert s.phase == 2
    assert choice(game, s) == "salads 0"


def test_an_exact_vrai_takes_the_token_reward() -> None:
    # 3 + 2 bananas in seat 0's hand + the centre's 1 = 6; the salad makes 7 if declared
    game, s = after("+2 banana", "+2 banana", "+1 banana", "vrai")
    while s.phase == 2:  # salads: nobody declares, so the count is exactly 6
        game.apply(s, "salads 0")
    assert s.phase == 3, "an exact vrai leads to the reward choice"
    assert choice(game, s) == "gain"


def test_counting_calls_menteur_on_a_bid_it_cannot_see_support_for() -> None:
    game, s = after("+2 banana", "+2 banana")
    assert choice(game, s, "counting") == "menteur"


def test_counting_holding_the_bananas_never_calls_menteur_on_a_low_banana_bid() -> None:
    game, s = after("+2 banana")                        # 3 bananas bid; seat 0 holds 6 + a salad
    assert s.current_player == 0
    assert choice(game, s, "counting") != "menteur"


def test_counting_takes_the_token_after_an_exact_vrai() -> None:
    game, s = after("+2 banana", "+2 banana", "+1 banana", "vrai")
    while s.phase == 2:
        game.apply(s, "salads 0")
    assert choice(game, s, "counting") == "gain"
