"""legumes heuristic and counting: at 2 players the Bomb and the Double are finishers, kept to
the end (a last Bomb cannot be beaten, the Double as the last card ends the game when it
accuses a lie); at 3+ players they are shed as before (module docstrings)."""

from __future__ import annotations

from bluffsim.games.legumes.reference import scenario
from bluffsim.games.legumes.vec import LegumesGame
from tests.legumes.test_counting_decisions import DRAW, OPENER, THIRD, decide


def test_heuristic_lies_with_the_choice_not_the_double_at_two_players():
    me = ["leek-1", "pea-1", "bomb", "double", "choice"]
    assert decide("heuristic", (OPENER, me), ["open tomato-1 carrot"], accuse_rate=0.0) == "play choice"
    # at 3 players the Double goes first, as before
    assert decide("heuristic", (OPENER, me, THIRD), ["open tomato-1 carrot"],
                  accuse_rate=0.0) == "play double"


def test_heuristic_lies_with_a_vegetable_rather_than_the_bomb_at_two_players():
    me = ["leek-3", "pea-2", "bomb"]
    assert decide("heuristic", (OPENER, me), ["open tomato-1 carrot"], accuse_rate=0.0) == "play pea-2"
    assert decide("heuristic", (OPENER, me, THIRD), ["open tomato-1 carrot"],
                  accuse_rate=0.0) == "play bomb"


def test_heuristic_reverse_sheds_a_vegetable_before_the_finishers_at_two_players():
    me = ["leek-3", "bomb", "double", "reverse"]
    assert decide("heuristic", (OPENER, me), ["open tomato-1 carrot"],
                  accuse_rate=0.0) == "reverse leek-3"
    assert decide("heuristic", (OPENER, me, THIRD), ["open tomato-1 carrot"],
                  accuse_rate=0.0) == "reverse double"


def test_heuristic_with_only_the_bomb_and_the_double_lies_with_the_bomb():
    # measured (600 games against ``learned``): keeping the Double last wins 0.46, keeping the
    # Bomb last 0.07 (module docstring)
    assert decide("heuristic", (OPENER, ["bomb", "double"]), ["open tomato-1 carrot"],
                  accuse_rate=0.0) == "play bomb"


def test_counting_keeps_the_finishers_at_two_players():
    # no Bomb trap at 2 players, even against a next player who accuses every round
    busy2 = {"accuser_tally": [[2, 8, 0], [0, 0, 0]], "num_rounds": 10}
    busy3 = {"accuser_tally": [[0, 0, 0], [0, 0, 0], [2, 8, 0]], "num_rounds": 10}
    me = ["leek-1", "pea-1", "bomb", "choice", "double"]
    assert decide("counting", (OPENER, me), ["open tomato-1 carrot"], tallies=busy2) == "play choice"
    assert decide("counting", (OPENER, me, THIRD), ["open tomato-1 carrot"],
                  tallies=busy3) == "play bomb"
    # the last finisher (Choice) is kept with a vegetable lie, never with the Double
    me = ["leek-1", "pea-3", "choice", "double"]
    assert decide("counting", (OPENER, me), ["open tomato-1 carrot"]) == "play leek-1"


def test_heuristic_doubles_the_last_accusation_with_the_double_as_its_last_card():
    # the opener's last card: at 2 players a Double accusation costs nothing more (a lie then
    # empties my hand), so it is doubled below ``double_at``; at 3 players a plain accusation
    hands = (["carrot-2"], ["double"])
    assert decide("heuristic", hands, ["open carrot-2 carrot"], accuse_rate=0.0) == "accuse double"
    hands = (["carrot-2"], ["double"], THIRD)
    assert decide("heuristic", hands, ["open carrot-2 carrot"], accuse_rate=0.0) == "accuse"


def test_counting_doubles_the_last_accusation_with_the_double_as_its_last_card():
    assert decide("counting", (["carrot-2"], ["double"]), ["open carrot-2 carrot"]) == "accuse double"


def test_keeps_is_always_at_two_players_and_at_three_only_with_a_margin():
    """``keeps``: every game at 2 players; at 3+ never by default (``KEEP_MARGIN = None``), and
    with a margin only when my hand is at most the smallest other hand plus that margin."""
    import math

    import numpy as np

    from agents.legumes.heuristic import LegumesHeuristic, keeps, params_row

    def kept(hands, sizes, seats, size, margin):
        game = LegumesGame(scenario(hands, DRAW)[0].rules)
        rec = np.zeros(len(seats), game.observation_dtype)
        rec["hand_sizes"][:, :len(sizes[0])], rec["seat"] = sizes, seats  # the rest: 0
        return [bool(keeps(rec[i], game._rec[0], size[i], margin)) for i in range(len(seats))]

    assert kept([OPENER, OPENER], [[5, 9], [9, 2]], [0, 0], [5, 9], math.nan) == [True, True]
    three = ([OPENER, OPENER, THIRD], [[4, 6, 8], [4, 6, 8], [7, 3, 9]], [0, 1, 0], [4, 6, 7])
    assert math.isnan(params_row(LegumesHeuristic(LegumesGame(scenario(three[0], DRAW)[0].rules)))[-1])
    assert kept(*three, math.nan) == [False, False, False]
    # seat 0 with 4 vs others (6, 8): 4 <= 7; seat 1 with 6 vs (4, 8): 6 > 5; seat 0 with 7 vs (3, 9): 7 > 4
    assert kept(*three, 1.0) == [True, False, False]
