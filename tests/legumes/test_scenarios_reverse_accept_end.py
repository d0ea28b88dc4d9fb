"""legumes Reverse, accept and the end of the game: scripted scenarios run on both engines
(docs/rules.md#legumes).

Every scenario goes through ``play_both``, which checks after each decision that the
reference and vectorised engines agree on masks, players, results and every
observation field (the new memory fields and tallies included).
"""

from __future__ import annotations

import numpy as np
import pytest

from bluffsim.api import IllegalActionError
from bluffsim.games.legumes import rules as R
from bluffsim.games.legumes.reference import ReferenceGame, scenario
from bluffsim.games.legumes.vec import LegumesGame
from tests.games import assert_same_game, play_both, random_actions

ACTIONS = ["bomb", "choice", "reverse", "double"]
A = ["carrot-2", "tomato-1"] + ACTIONS
B = ["carrot-1", "leek-3", "double", "reverse"]
C = ["pea-1", "pea-2", "choice"]
PILE = ["radish-1", "radish-2", "radish-3", "cabbage-1", "cabbage-2", "cabbage-3"]
TRUE, LIE, BOMB = R.OUTCOME_TRUE, R.OUTCOME_LIE, R.OUTCOME_BOMB


def play(actions, hands=(A, B, C), draw_pile=PILE, **kw):
    """Scenario + actions on both engines, checked equal after every step."""
    return play_both(scenario, LegumesGame, actions, [list(h) for h in hands], list(draw_pile), **kw)


def names(ref, s):
    return [ref.action_names[a] for a in ref.legal_actions(s)]


def card(name: str) -> int:
    return R.CARD_NAMES.index(name)


def counts(*cards: str) -> list[int]:
    out = [0] * R.NUM_TYPES
    for c in cards:
        out[card(c)] += 1
    return out


def observed(ref, s, st, seat: int, key: str) -> np.ndarray:
    """``key`` of ``seat``'s observation; when ``seat`` is to move, both engines must agree."""
    value = ref.observe(s, seat)[key]
    if s.current_player == seat:
        np.testing.assert_array_equal(LegumesGame(ref.rules).observe(st)[key][0], value)
    return value


# ------------------------------------------------------------------ 8. Reverse with a card
def test_reverse_goes_down_face_up_with_one_face_down_card():
    ref, s, st = play(["open tomato-1 carrot", "reverse leek-3"])
    assert s.direction == -1 and s.current_player == 0
    assert s.face_up[card("reverse")] == 1 and s.face_down[-1] == (1, card("leek-3"), 0)
    assert sorted(s.hands[1]) == ["carrot-1", "double"]
    legal = names(ref, s)
    assert "accuse" not in legal and "accuse double" not in legal and "accept" not in legal
    assert "play carrot-2" in legal  # the next player in the new direction must play
    with pytest.raises(IllegalActionError):
        ref.apply(s, "accuse")
    ref, s, _ = play(["open tomato-1 carrot", "reverse leek-3", "play carrot-2"])
    assert s.current_player == 2 and "accuse" in names(ref, s)  # 0 -> 2 going backwards
    _, s, _ = play(["open tomato-1 carrot", "reverse leek-3", "play carrot-2", "accuse"])
    # the carrot is true: seat 2 draws 2; the leek under the Reverse goes down unrevealed
    assert s.last_reveal[4:] == [2, 2] and s.discard[card("leek-3")] == 1
    assert s.discard_revealed == counts("carrot-2", "reverse")


def test_reverse_with_a_card_one_action_per_card_kind():
    ref, s, _ = play(["open tomato-1 carrot"])
    legal = names(ref, s)
    assert [n for n in legal if n.startswith("reverse")] == [
        "reverse carrot-1", "reverse leek-3", "reverse double"]  # not "reverse reverse", not alone
    two = ["carrot-1", "reverse", "reverse"]
    ref, s, _ = play(["open tomato-1 carrot"], hands=(A, two, C))
    assert "reverse reverse" in names(ref, s) and "reverse" not in names(ref, s)
    _, s, _ = play(["open tomato-1 carrot", "reverse reverse"], hands=(A, two, C))
    assert s.face_up[card("reverse")] == 1 and s.face_down[-1][1] == card("reverse")


def test_reverse_alone_only_as_the_last_card():
    ref, s, _ = play(["open tomato-1 carrot"], hands=(A, ["reverse"], C))
    assert "reverse" in names(ref, s)
    assert not any(n.startswith("reverse ") for n in names(ref, s))
    ref, s, _ = play(["open tomato-1 carrot"], hands=(A, ["reverse", "pea-3"], C))
    assert "reverse" not in names(ref, s) and "reverse pea-3" in names(ref, s)


def test_the_ban_is_only_for_the_next_player():
    # after the Reverse the next player (seat 0) may not accuse, but may call a new vegetable;
    # seat 2 after that may accuse the card that went down with the Reverse
    _, s, _ = play(["open tomato-1 carrot", "reverse leek-3", "choice pea", "accuse"])
    assert s.last_reveal == [2, 1, card("leek-3"), 0, 1, 3]  # a leek claimed as a carrot


def test_reverse_with_the_last_card_the_next_player_must_accept():
    ref, s, _ = play(["open tomato-1 carrot", "reverse leek-3"], hands=(A, ["leek-3", "reverse"], C))
    assert names(ref, s) == ["accept"] and s.pending == 1
    _, s, st = play(["open tomato-1 carrot", "reverse leek-3", "accept"],
                    hands=(A, ["leek-3", "reverse"], C))
    assert s.terminated and s.scores()[1] == 0 and s.placements[1] == 1
    assert st.terminated[0] and len(s.hands[0]) == 5  # the accepter sheds nothing


def test_variant_reverse_alone_keeps_the_previous_reading():
    ref, s, _ = play(["open tomato-1 carrot"], reverse_alone=True)
    legal = names(ref, s)
    assert "reverse" in legal and not any(n.startswith("reverse ") for n in legal)
    _, s, _ = play(["open tomato-1 carrot", "reverse"], reverse_alone=True)
    assert s.direction == -1 and s.current_player == 0 and len(s.face_down) == 1


@pytest.mark.parametrize("reverse_alone", [False, True])
def test_engines_agree_with_and_without_the_variant(reverse_alone):
    """Differential check of random play (both readings of the Reverse), every field."""
    game = LegumesGame(R.Rules(num_players=3, reverse_alone=reverse_alone))
    ref = ReferenceGame(game.rules)
    seeds = np.arange(40) + 11
    st = game.init(seeds)
    rstates = [ref.new_game(int(x)) for x in seeds]
    used = set()
    while not st.done.all():
        assert_same_game(game, ref, st, rstates, where=f"reverse_alone={reverse_alone}")
        a = random_actions(game, st)
        used.update(int(x) for x in a[~st.done])
        for b, s in enumerate(rstates):
            if not s.done:
                ref.apply(s, int(a[b]))
        game.step(st, a)
    assert_same_game(game, ref, st, rstates)
    with_card = any(x >= R.REVERSE_PLAY0 for x in used)
    assert with_card != reverse_alone  # the variant never offers `reverse <card>`
    if reverse_alone:
        assert R.REVERSE_ID in used


# ------------------------------------------------------------------ 9. accept
def test_accept_facing_a_last_face_down_card_ends_the_game():
    ref, s, _ = play(["open carrot-1 carrot"], hands=(["carrot-1"], B, C))
    assert names(ref, s) == ["accuse", "accuse double", "accept"] and s.pending == 0
    _, s, st = play(["open carrot-1 carrot", "accept"], hands=(["carrot-1"], B, C))
    assert s.terminated and s.hands[1] == sorted(B)  # the accepter plays no card
    assert s.placements == [1, 3, 2] and st.placements[0].tolist() == [1, 3, 2]


def test_accept_is_offered_only_facing_a_last_card():
    ref, s, _ = play(["open carrot-2 carrot", "play carrot-1"])
    assert "accept" not in names(ref, s)
    with pytest.raises(IllegalActionError):
        ref.apply(s, "accept")


def test_facing_a_last_card_the_lie_goes_on_the_truth_ends():
    _, s, _ = play(["open tomato-1 carrot", "accuse"], hands=(["tomato-1"], B, C))
    assert not s.done and s.pending == -1 and s.hands[0] == ["radish-1"]
    _, s, _ = play(["open carrot-1 carrot", "accuse double"], hands=(["carrot-1"], B, C))
    assert s.terminated and len(s.hands[1]) == 3 + 2 and s.placements[0] == 1


def test_a_bomb_as_the_last_card_ends_the_game():
    # the accuser takes the Bomb, the player has no card left: the game is over (decision)
    _, s, _ = play(["open bomb carrot", "accuse"], hands=(["bomb"], B, C))
    assert s.terminated and s.scores()[0] == 0 and "bomb" in s.hands[1]


# ------------------------------------------------------------------ 10. face up last card
def test_vegetable_choice_as_the_last_card_ends_the_game():
    _, s, st = play(["open tomato-1 carrot", "play leek-3", "choice pea"],
                    hands=(A, B, ["choice"]))
    assert s.terminated and st.terminated[0] and s.scores()[2] == 0 and s.placements[2] == 1


def test_reverse_alone_as_the_last_card_ends_the_game():
    _, s, _ = play(["open tomato-1 carrot", "reverse"], hands=(A, ["reverse"], C))
    assert s.terminated and s.placements[1] == 1 and s.face_up[card("reverse")] == 1


def test_a_double_accusation_that_costs_nothing_ends_the_game():
    _, s, _ = play(["open tomato-1 carrot", "accuse double"], hands=(A, ["double"], C))
    assert s.terminated and s.hands[1] == [] and len(s.hands[0]) == 5 + 2  # the liar drew 2
    _, s, _ = play(["open carrot-2 carrot", "accuse double"], hands=(A, ["double"], C))
    assert not s.done and len(s.hands[1]) == 4 and s.current_player == 1  # truth: it drew 4


# ------------------------------------------------------------------ 11. memory and tallies
MEMORY = ["open tomato-1 carrot", "play leek-3", "accuse",          # lie: seat 1 draws 3
          "open radish-1 pea", "play pea-1", "choice leek", "play radish-2",
          "accuse",                                                  # lie: seat 1 draws 2
          "open cabbage-1 cabbage", "play pea-2"]


def test_own_face_down_cards_are_remembered_in_the_discard_pile():
    ref, s, st = play(MEMORY)
    assert s.current_player == 0 and s.num_decisions == 10
    # seat 0's tomato went to the discard unrevealed at decision 3; seven decisions later:
    assert observed(ref, s, st, 0, "my_discard").tolist() == counts("tomato-1")
    assert observed(ref, s, st, 1, "my_discard").tolist() == counts("radish-1")
    assert observed(ref, s, st, 2, "my_discard").tolist() == counts("pea-1")
    assert observed(ref, s, st, 0, "discard_revealed").tolist() == counts("leek-3", "radish-2",
                                                                           "choice")


def test_who_played_each_face_down_card_and_under_which_call():
    ref, s, st = play(MEMORY[:7])
    claims = observed(ref, s, st, 2, "fd_claims")
    assert claims[1].tolist() == [0, 0, 1, 0, 0, 1]  # radish-1 as pea, radish-2 as leek
    assert claims[2].tolist() == [0, 0, 0, 0, 0, 1] and claims[0].sum() == 0
    ref, s, st = play(MEMORY)
    assert observed(ref, s, st, 0, "fd_claims").tolist() == [[0] * 6, [0, 0, 0, 1, 0, 0],
                                                             [0, 0, 0, 1, 0, 0]]


def test_per_seat_tallies_of_accusations_actions_and_draws():
    ref, s, st = play(MEMORY)
    assert observed(ref, s, st, 0, "accused_tally").tolist() == [[0, 0, 0], [0, 2, 0], [0, 0, 0]]
    assert observed(ref, s, st, 0, "accuser_tally").tolist() == [[0, 0, 0], [0, 0, 0], [0, 2, 0]]
    assert observed(ref, s, st, 0, "shown_tally").tolist() == [[0, 1, 0, 0], [0] * 4, [0] * 4]
    assert observed(ref, s, st, 0, "drawn_tally").tolist() == [0, 5, 0]
    ref, s, st = play(["open tomato-1 carrot", "reverse carrot-1", "play double", "accuse"])
    obs = ref.observe(s, 1)
    assert obs["accused_tally"].tolist() == [[0, 1, 0], [0] * 3, [0] * 3]  # an action card: a lie
    assert obs["accuser_tally"].tolist() == [[0] * 3, [0] * 3, [0, 1, 0]]
    # seat 1 showed its Reverse face up, seat 0's Double was revealed
    assert obs["shown_tally"].tolist() == [[0, 0, 0, 1], [0, 0, 1, 0], [0] * 4]
    assert obs["drawn_tally"].tolist() == [1, 0, 0]


BOMB_GAME = ["open tomato-1 carrot", "play carrot-1", "accuse",       # truth: seat 2 draws 1
             "open pea-1 pea", "play bomb", "accuse double",            # seat 1 takes 5 cards
             "open leek-3 leek", "play pea-2", "play carrot-2", "play tomato-1", "choice leek"]


def test_known_cards_a_bomb_put_in_a_hand_are_remembered():
    ref, s, st = play(BOMB_GAME[:6])
    assert s.last_reveal[4:] == [1, 5] and s.hands[1] == [
        "bomb", "carrot-1", "double", "leek-3", "pea-1", "reverse", "tomato-1"]
    ref, s, st = play(BOMB_GAME)
    assert s.current_player == 0 and s.num_decisions == 11
    # seat 0 knows its own tomato, the public carrot, the Bomb and the Double went to seat 1
    assert observed(ref, s, st, 0, "taken_known")[1].tolist() == counts(
        "tomato-1", "carrot-1", "bomb", "double")
    # seat 2 knows its own pea instead of the tomato; seat 1 knows all five
    assert observed(ref, s, st, 2, "taken_known")[1].tolist() == counts(
        "pea-1", "carrot-1", "bomb", "double")
    assert observed(ref, s, st, 1, "taken_known")[1].tolist() == counts(
        "tomato-1", "carrot-1", "pea-1", "bomb", "double")
    assert observed(ref, s, st, 0, "taken_known")[[0, 2]].sum() == 0
    assert observed(ref, s, st, 0, "bomb_taken").tolist() == [0, 5, 0]
    assert observed(ref, s, st, 0, "accused_tally").tolist() == [[0, 0, 1], [1, 0, 0], [0] * 3]
    assert observed(ref, s, st, 0, "accuser_tally").tolist() == [[0] * 3, [0, 0, 1], [1, 0, 0]]
    assert observed(ref, s, st, 0, "shown_tally")[:, 0].tolist() == [1, 0, 0]  # the Bomb, seat 0


def test_discard_cards_known_at_the_reshuffle_are_remembered():
    acts = ["open tomato-1 carrot", "play leek-3", "accuse",  # lie: seat 1 draws 3, pile of 1
            "open carrot-1 leek", "play pea-1", "play carrot-2"]
    ref, s, st = play(acts, draw_pile=["radish-1"], discard=["cabbage-1"])
    assert s.reshuffles == 1 and s.current_player == 1
    assert observed(ref, s, st, 0, "reshuffled_known").tolist() == counts("tomato-1", "leek-3")
    assert observed(ref, s, st, 1, "reshuffled_known").tolist() == counts("leek-3")
    assert observed(ref, s, st, 2, "reshuffled_known").tolist() == counts("leek-3")
    assert observed(ref, s, st, 0, "my_discard").sum() == 0  # the discard pile is gone


def test_the_tensor_holds_the_new_fields_in_relative_seats():
    from bluffsim.games.legumes.observe import tensor_layout

    ref, s, st = play(MEMORY)
    game = LegumesGame(ref.rules)
    x = game.observation_tensor(st)[0]
    rows = {name: (first, width) for name, first, width, _ in tensor_layout(ref.rules)}
    assert x.shape[0] == game.observation_size == sum(w for _, w in rows.values())
    first, width = rows["my_discard"]
    assert x[first + card("tomato-1")] == 1 and x[first:first + width].sum() == 1
    first, _ = rows["accused_tally"]
    assert x[first + 3 + LIE] == 2  # relative seat 1 (the next seat) was caught lying twice
    first, _ = rows["drawn_tally"]
    assert x[first:first + 3].tolist() == [0, 5, 0]
    first, _ = rows["fd_claims"]
    assert x[first + 6 + 3] == 1 and x[first + 12 + 3] == 1  # seats 1 and 2 played as cabbage


# ------------------------------------------------------------------ option extremes and dtypes
@pytest.mark.parametrize("options", [
    {"num_players": 2, "numbers": (8, 8, 8), "hand_size": 1, "max_turns": 100_000},
    {"num_players": 6, "numbers": (0, 0, 1), "hand_size": 1, "action_lie_penalty": 5},
    {"num_players": 2, "numbers": (8, 8, 8), "hand_size": 12, "first_player": -1,
     "reverse_alone": True, "max_turns": 1},
])
def test_option_extremes_fit_the_dtypes(options):
    """Big decks (144 vegetables, more than an int8 holds) and tiny ones play on both engines."""
    rules = R.Rules.from_options(**options)
    game = LegumesGame(rules)
    ref = ReferenceGame(rules)
    seeds = np.arange(6)
    st = game.init(seeds)
    rstates = [ref.new_game(int(x)) for x in seeds]
    size = rules.deck_size - rules.num_players * rules.hand_size
    assert (game.observe(st)["draw_size"] == size).all()
    for _ in range(3000):
        assert_same_game(game, ref, st, rstates, where=str(options))
        if st.done.all():
            break
        a = random_actions(game, st)
        for b, s in enumerate(rstates):
            if not s.done:
                ref.apply(s, int(a[b]))
        game.step(st, a)
    obs = game.observe(st)
    assert (obs["draw_size"] >= 0).all() and (obs["hand_sizes"] >= 0).all()
    assert (obs["discard_size"] >= 0).all()


def test_memory_matches_an_independent_log_of_the_game():
    """An agent-side log kept from the actions and the public reveals only: at every decision
    of random games, each seat's observation still holds its unrevealed discard cards and
    every seat's accusation and action-card tallies, however long ago they happened."""
    rules = R.Rules(num_players=3)
    ref = ReferenceGame(rules)
    game = LegumesGame(rules)
    longest = 0
    for seed in range(25):
        s = ref.new_game(seed)
        st = game.init([seed])
        p = rules.num_players
        mine = [[0] * R.NUM_TYPES for _ in range(p)]
        accused = [[0] * 3 for _ in range(p)]
        accuser = [[0] * 3 for _ in range(p)]
        shown = [[0] * 4 for _ in range(p)]
        table: list[tuple[int, int, int]] = []  # (owner, card, called) this round
        last_change = 0
        while not s.done:
            a = int(random_actions(game, st)[0])
            name, me, called, shuffles = ref.action_names[a], s.current_player, s.called, s.reshuffles
            ref.apply(s, a)
            game.step(st, np.array([a]))
            words = name.split()
            if words[0] in ("open", "play") or (words[0] == "reverse" and len(words) == 2):
                table.append((me, card(words[1]), card_veg(words) if words[0] == "open" else called))
            if words[0] in ("choice", "reverse") or name == "accuse double":
                shown[me][{"choice": 1, "reverse": 2, "accuse": 3}[words[0]]] += 1
            if words[0] == "accuse":
                owner, c, veg = table[-1]
                outcome = BOMB if c == R.BOMB else TRUE if c < R.BOMB and c // 3 == veg else LIE
                accused[owner][outcome] += 1
                accuser[me][outcome] += 1
                if c >= R.BOMB:
                    shown[owner][c - R.BOMB] += 1
                if c == R.BOMB:
                    mine = [[0] * R.NUM_TYPES for _ in range(p)]
                else:
                    for o, x, _ in table[:-1]:
                        mine[o][x] += 1
                table = []
                last_change = s.num_decisions
            if s.reshuffles > shuffles:
                mine = [[0] * R.NUM_TYPES for _ in range(p)]
            assert_same_game(game, ref, st, [s], where=f"seed {seed}")  # both engines
            for seat in range(p):
                obs = ref.observe(s, seat)
                assert obs["my_discard"].tolist() == mine[seat], (seed, s.num_decisions, seat)
                assert obs["accused_tally"].tolist() == accused
                assert obs["accuser_tally"].tolist() == accuser
                assert obs["shown_tally"].tolist() == shown
            longest = max(longest, s.num_decisions - last_change)
    assert longest >= 10  # facts were carried across many decisions


def card_veg(words: list[str]) -> int:
    return R.VEGETABLES.index(words[2])
