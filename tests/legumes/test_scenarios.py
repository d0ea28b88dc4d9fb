"""Scripted legumes scenarios with exact expected results, run on both engines (docs/rules.md#legumes)."""

from __future__ import annotations

import pytest

from bluffsim.api import IllegalActionError, RulesError
from bluffsim.games.legumes import rules as R
from bluffsim.games.legumes.reference import scenario
from bluffsim.games.legumes.vec import LegumesGame
from tests.games import play_both

ACTIONS = ["bomb", "choice", "reverse", "double"]
A = ["carrot-2", "tomato-1"] + ACTIONS
B = ["carrot-1", "leek-3", "double", "reverse"]
C = ["pea-1", "pea-2", "choice"]
PILE = ["radish-1", "radish-2", "radish-3", "cabbage-1", "cabbage-2", "cabbage-3"]


def play(actions, hands=(A, B, C), draw_pile=PILE, **kw):
    """Scenario + actions on both engines, checked equal after every step."""
    return play_both(scenario, LegumesGame, actions, [list(h) for h in hands], list(draw_pile), **kw)


def names(ref, s):
    return [ref.action_names[a] for a in ref.legal_actions(s)]


# ------------------------------------------------------------------ reveal outcomes
@pytest.mark.parametrize("accuse, drawn", [("accuse", 2), ("accuse double", 4)])
def test_truth_the_accuser_draws_the_number(accuse, drawn):
    _, s, _ = play(["open carrot-2 carrot", accuse])
    assert len(s.hands[1]) == 4 - (accuse == "accuse double") + drawn
    assert s.last_reveal == [1, 0, R.CARD_NAMES.index("carrot-2"), int(accuse != "accuse"), 1,
                             drawn]
    assert s.current_player == 1 and s.phase == R.PHASE_OPEN  # who received cards opens
    assert s.discard[R.CARD_NAMES.index("carrot-2")] == 1


@pytest.mark.parametrize("accuse, drawn", [("accuse", 1), ("accuse double", 2)])
def test_lie_the_liar_draws_the_number(accuse, drawn):
    _, s, _ = play(["open tomato-1 carrot", accuse])
    assert len(s.hands[0]) == 5 + drawn and all(c in s.hands[0] for c in PILE[:drawn])
    assert s.current_player == 0


@pytest.mark.parametrize("accuse", ["accuse", "accuse double"])
def test_bomb_the_accuser_takes_the_discard_pile_and_the_bomb(accuse):
    discard = ["leek-1"] * 5 + ["pea-3"] * 3 + ["cabbage-2"] * 2
    _, s, st = play(["open bomb carrot", accuse], discard=discard)
    # 10 discarded + the bomb (+ the Double card back): no doubling, no drawing
    extra = 1 if accuse == "accuse double" else 0
    assert len(s.hands[1]) == 4 + 10 + 1 and "bomb" in s.hands[1]
    assert s.last_reveal[4:] == [1, 11 + extra] and sum(s.discard) == 0
    assert s.draw_ptr == 0 and st.hand_sizes[0, 1] == 15


@pytest.mark.parametrize("penalty, doubled, drawn", [(1, False, 1), (1, True, 2), (3, False, 3)])
def test_an_action_card_face_down_is_a_lie_worth_the_penalty(penalty, doubled, drawn):
    _, s, _ = play(["open choice carrot", "accuse double" if doubled else "accuse"],
                   action_lie_penalty=penalty)
    assert s.last_reveal[4:] == [0, drawn] and len(s.hands[0]) == 5 + drawn


# ------------------------------------------------------------------ face-up action cards
def test_variant_reverse_alone_turns_the_order_and_the_next_player_may_not_accuse():
    # premise revised (issue 12, point 8): Reverse alone is now the `reverse_alone` variant
    ref, s, _ = play(["open tomato-1 carrot", "reverse"], reverse_alone=True)
    assert s.direction == -1 and s.current_player == 0
    assert "accuse" not in names(ref, s)
    ref, s, _ = play(["open tomato-1 carrot", "reverse", "play carrot-2"], reverse_alone=True)
    assert s.current_player == 2 and "accuse" in names(ref, s)  # 0 -> 2 going backwards


def test_nobody_accuses_their_own_card():
    ref, s, _ = play(["open tomato-1 carrot", "play leek-3", "play pea-1"],
                     hands=(A, B, C))
    assert s.current_player == 0 and "accuse" in names(ref, s)
    # premise revised (point 8): Reverse alone is the `reverse_alone` variant
    ref, s, _ = play(["open carrot-2 carrot", "reverse"], hands=(A, B, C), reverse_alone=True)
    with pytest.raises(IllegalActionError):
        ref.apply(s, "accuse")


def test_vegetable_choice_renames_but_the_last_card_is_judged_by_its_own_call():
    _, s, _ = play(["open tomato-1 carrot", "choice tomato", "accuse"], hands=(A, C, B))
    assert s.last_reveal[4] == 0  # tomato under "carrot": a lie, even though tomato is called now
    _, s, _ = play(["open tomato-1 carrot", "choice tomato", "play leek-3", "accuse"],
                   hands=(A, C, B))
    assert s.last_reveal[1] == 2 and s.last_reveal[4:] == [2, 3]  # a leek played as a tomato


def test_accuse_double_needs_the_card():
    ref, s, _ = play(["open carrot-2 carrot", "play pea-1"], hands=(A, C, B))
    assert "accuse double" in names(ref, s)
    ref, s, _ = play(["open carrot-2 carrot"], hands=(A, C, B))
    assert "accuse double" not in names(ref, s) and "accuse" in names(ref, s)


# ------------------------------------------------------------------ the draw pile
def test_the_first_exhaustion_reshuffles_the_discard_pile():
    _, s, st = play(["open carrot-2 carrot", "accuse"], draw_pile=["radish-1"],
                    discard=["cabbage-1"])
    # truth: seat 1 draws 2: the radish, then the pile is empty: discard (cabbage-1 and the
    # revealed carrot-2) is shuffled into a new pile and seat 1 draws one of them
    assert s.reshuffles == 1 and len(s.hands[1]) == 6 and "radish-1" in s.hands[1]
    assert len(s.draw) - s.draw_ptr == 1 and sum(s.discard) == 0
    assert st.reshuffles[0] == 1


def test_the_second_exhaustion_ends_the_game_at_once():
    acts = ["open carrot-2 carrot", "accuse", "open leek-3 leek", "accuse"]
    _, s, st = play(acts, hands=(A, B, ["pea-1", "pea-2", "choice", "leek-1"]),
                    draw_pile=["radish-1"], discard=["cabbage-1"])
    assert s.terminated and s.reshuffles == 2 and st.terminated[0]


# ------------------------------------------------------------------ the end and scoring
def test_last_card_unchallenged_ends_the_game_and_scores_decide():
    # premise revised (point 9): the next player accepts (and sheds nothing) instead of playing
    hands = (["carrot-1"], ["leek-3", "bomb"], ["pea-2", "tomato-2"])
    _, s, st = play(["open carrot-1 carrot", "accept"], hands=hands)
    assert s.terminated and s.scores() == [0, 13, 4]
    assert s.placements == [1, 3, 2] and st.placements[0].tolist() == [1, 3, 2]


def test_last_card_accused_and_true_ends_the_game():
    hands = (["carrot-1"], ["leek-3", "bomb"], ["pea-2", "tomato-2"])
    _, s, _ = play(["open carrot-1 carrot", "accuse"], hands=hands)
    assert s.terminated and s.hands[0] == [] and s.placements[0] == 1


def test_last_card_accused_and_a_lie_the_game_goes_on():
    hands = (["tomato-1"], ["leek-3", "bomb"], ["pea-2", "tomato-2"])
    _, s, _ = play(["open tomato-1 carrot", "accuse"], hands=hands)
    assert not s.done and s.hands[0] == ["radish-1"] and s.current_player == 0


def test_equal_scores_share_a_place():
    # premise revised (point 9): the game ends on `accept`, the accepter keeps its cards
    hands = (["carrot-1"], ["leek-1", "pea-2"], ["pea-3", "tomato-1"])
    _, s, _ = play(["open carrot-1 carrot", "accept"], hands=hands)
    assert s.scores() == [0, 3, 4] and s.placements == [1, 2, 3]
    hands = (["carrot-1"], ["leek-1", "pea-2"], ["pea-1", "tomato-2"])
    _, s, _ = play(["open carrot-1 carrot", "accept"], hands=hands)
    assert s.scores() == [0, 3, 3] and s.placements == [1, 2, 2]


def test_max_turns_truncates():
    _, s, st = play(["open carrot-2 carrot", "play leek-3"], max_turns=2)
    assert s.truncated and not s.terminated and st.truncated[0]


def test_the_deal_gives_action_cards_and_eight_vegetables():
    from bluffsim.games.legumes.reference import ReferenceGame

    ref = ReferenceGame(R.Rules(num_players=4))
    s = ref.new_game(3)
    assert all(len(h) == 12 and all(a in h for a in ACTIONS) for h in s.hands)
    assert len(s.draw) == 72 - 32 and s.current_player == 0


@pytest.mark.parametrize("options, message", [
    ({"num_players": 7}, "num_players=7 is invalid; allowed: 2..6"),
    ({"action_lie_penalty": -1}, "action_lie_penalty=-1"),
    ({"first_player": 9}, "first_player=9"),
    ({"numbers": (1, 1, 1), "hand_size": 8}, "hand_size=8 is invalid"),
])
def test_bad_options_are_refused(options, message):
    with pytest.raises(RulesError, match=message):
        R.Rules.from_options(**options)
