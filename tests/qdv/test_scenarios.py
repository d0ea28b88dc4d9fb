"""Scripted qdv scenarios with exact expected results, run on both engines (docs/rules.md#qdv)."""

from __future__ import annotations

import numpy as np
import pytest

from bluffsim.api import IllegalActionError, RulesError
from bluffsim.games.qdv import rules as R
from bluffsim.games.qdv.reference import (
    ReferenceGame,
    placement_scores,
    placements_from_scores,
    scenario,
)
from bluffsim.games.qdv.vec import QdvGame
from tests.games import play_both

K = R.KIND_INDEX


def play(actions, **setup):
    """Build a scenario, apply ``actions`` on both engines, check they agree at every step."""
    _, s, st = play_both(scenario, QdvGame, actions, **setup)
    return s, st


def four(hands, centre, tokens=(7, 7, 7, 7), **kw):
    return dict(hands=hands, centre=centre, tokens=list(tokens), **kw)


# ------------------------------------------------------------------ the seed's worked examples
def test_example_vrai_wrong_bid_5_count_7_caller_loses_3():
    hands = [["strawberry", "grape"], ["strawberry x3"], ["strawberry", "cherry"], ["banana"]]
    s, st = play(["+2 strawberry", "+1 strawberry", "vrai"], **four(hands, "strawberry x2"))
    assert s.tokens == [7, 7, 7, 4] and st.tokens[0].tolist() == [7, 7, 7, 4]
    assert s.last_round["true_count"] == 7 and s.last_round["bid_count"] == 5
    assert (s.last_round["loser"], s.last_round["amount"]) == (3, 3)


def test_example_menteur_bid_8_count_7_bidder_loses_2():
    hands = [["apricot x3"], ["apricot x2"], ["apricot"], ["grape"]]
    acts = ["+2 apricot", "+2 apricot", "+2 apricot", "+1 apricot", "menteur"]
    s, st = play(acts, **four(hands, "apricot"))
    assert s.tokens == [5, 7, 7, 7] and st.tokens[0].tolist() == [5, 7, 7, 7]
    assert s.last_round["true_count"] == 7 and s.last_round["loser"] == 0


def test_example_menteur_bid_5_count_6_caller_loses_2():
    hands = [["strawberry", "strawberry"], ["strawberry", "strawberry"], ["grape"], ["banana"]]
    s, st = play(["+2 strawberry", "+1 strawberry", "menteur"], **four(hands, "strawberry x2"))
    assert s.tokens == [7, 7, 7, 5] and st.tokens[0].tolist() == [7, 7, 7, 5]
    assert s.last_round["true_count"] == 6


EXACT = (["apricot x3"], ["apricot x2", "apricot"], ["apricot"], ["grape"])
EXACT_BIDS = ["+2 apricot", "+2 apricot", "+2 apricot", "+1 apricot", "vrai"]


def test_example_vrai_exact_bid_8_count_8_caller_gains_1():
    s, st = play(EXACT_BIDS + ["gain"], **four(list(EXACT), "apricot"))
    assert s.tokens == [7, 8, 7, 7] and st.tokens[0].tolist() == [7, 8, 7, 7]
    assert s.last_round["true_count"] == 8 and s.last_round["gainer"] == 1


def test_example_vrai_exact_caller_may_take_1_from_another():
    s, st = play(EXACT_BIDS + ["punish 2"], **four(list(EXACT), "apricot"))
    assert s.tokens == [7, 7, 7, 6] and st.tokens[0].tolist() == [7, 7, 7, 6]


def test_exact_call_reward_is_the_callers_decision():
    s, _ = play(EXACT_BIDS, **four(list(EXACT), "apricot"))
    assert s.phase == R.PHASE_REWARD and s.current_player == 1
    ref = ReferenceGame(R.Rules(num_players=4))
    names = [ref.action_names[a] for a in ref.legal_actions(s)]
    assert names == ["gain", "punish 1", "punish 2", "punish 3"]


def test_punish_cannot_target_a_player_without_tokens():
    hands = [["apricot x3"], ["apricot x2", "apricot"], [], ["apricot", "grape"]]
    acts = ["+2 apricot", "+2 apricot", "+2 apricot", "+1 apricot", "vrai"]  # seats 1, 3, 0, 1, 3
    s, _ = play(acts, **four(hands, "apricot", tokens=(7, 7, 0, 7)))
    assert s.phase == R.PHASE_REWARD and s.current_player == 3
    ref = ReferenceGame(R.Rules(num_players=4))
    names = [ref.action_names[a] for a in ref.legal_actions(s)]
    assert names == ["gain", "punish 1", "punish 2"]  # seat 2 (punish 3) has no tokens


# ------------------------------------------------------------------ the circle and challenges
PLAIN = [["cherry"], ["cherry x2"], ["grape x2"], ["banana"]]


def turned(s):
    return {R.EFFECTS[e]: n for e, n in enumerate(s.challenges) if n}


def test_passing_the_start_draws_a_challenge():
    # start strawberry; banana -> grape passes strawberry
    s, _ = play(["+1 banana", "+1 grape"], **four(PLAIN, "strawberry", challenges=["reverse"]))
    assert turned(s) == {"reverse": 1}
    assert s.direction == -1 and s.current_player == 1  # seat 2 bid, reversed: seat 1 next


def test_leaving_the_start_draws_nothing():
    s, _ = play(["+1 banana"], **four(PLAIN, "strawberry", challenges=["reverse"]))
    assert turned(s) == {} and s.current_player == 2


def test_same_fruit_does_not_move_the_marker():
    s, _ = play(["+1 strawberry", "+2 strawberry"],
                **four(PLAIN, "strawberry", challenges=["reverse"]))
    assert turned(s) == {} and s.current_player == 3


@pytest.mark.parametrize("landing, expected", [(True, {"reverse": 1}), (False, {})])
def test_landing_on_the_start_triggers_unless_the_variant_is_off(landing, expected):
    s, _ = play(["+1 banana", "+1 strawberry"],
                **four(PLAIN, "strawberry", challenges=["reverse"],
                       challenge_on_landing=landing))
    assert turned(s) == expected


def test_wrap_around_the_circle():
    # start cherry: cherry -> apricot goes all the way round without reaching cherry again,
    # apricot -> banana passes cherry
    s, _ = play(["+1 apricot"], **four(PLAIN, "cherry", challenges=["reverse"]))
    assert turned(s) == {}
    s, _ = play(["+1 apricot", "+1 banana"], **four(PLAIN, "cherry", challenges=["reverse"]))
    assert turned(s) == {"reverse": 1}


CROSS = ["+1 banana", "+1 grape"]  # seat 2 draws the challenge


def test_challenge_reveal_turns_a_card_face_up_for_everyone():
    hands = [["cherry"], ["cherry x2"], ["grape x2"], ["banana"]]
    s, st = play(CROSS, **four(hands, "strawberry", challenges=["reveal"]))
    assert s.revealed[2][K["grape x2"]] == 1 and s.hand_counts[2][K["grape x2"]] == 1
    ref = ReferenceGame(R.Rules(num_players=4))
    assert ref.observe(s, 3)["revealed"][2][K["grape x2"]] == 1
    assert st.revealed[0, 2, K["grape x2"]] == 1


def test_challenge_discard_removes_a_card_from_the_count():
    hands = [["cherry"], ["cherry x2"], ["grape x3"], ["banana"]]
    s, _ = play(CROSS + ["menteur"], **four(hands, "strawberry", challenges=["discard"]))
    # bid 3 grapes; the only grapes were discarded: count 0 < 3, bidder (seat 2) loses 4
    assert s.last_round["true_count"] == 0 and s.tokens == [7, 7, 3, 7]
    s, _ = play(CROSS + ["menteur"], **four(hands, "strawberry", challenges=["reverse"]))
    assert s.last_round["true_count"] == 3  # without the discard the grapes count


def test_challenge_draw_adds_the_top_undealt_card():
    hands = [["cherry"], ["cherry x2"], ["banana x2"], ["banana"]]
    s, _ = play(CROSS, **four(hands, "strawberry", challenges=["draw"], undealt=["grape x3"]))
    assert s.hand_counts[2][K["grape x3"]] == 1 and s.drawn == [0, 0, 1, 0]
    ref = ReferenceGame(R.Rules(num_players=4))
    assert ref.observe(s, 3)["hand_sizes"].tolist() == [1, 1, 2, 1]
    s, _ = play(CROSS + ["menteur"],
                **four(hands, "strawberry", challenges=["draw"], undealt=["grape x3"]))
    assert s.last_round["true_count"] == 3 and s.tokens == [7, 7, 7, 6]


def test_challenge_skip_passes_over_the_next_player():
    s, _ = play(CROSS, **four(PLAIN, "strawberry", challenges=["skip"]))
    assert s.current_player == 0


def test_challenge_skip_with_two_players_gives_the_bidder_another_turn():
    s, _ = play(["+1 banana", "+1 grape"],
                hands=[["cherry"], ["grape"]], centre="strawberry", tokens=[9, 9],
                challenges=["skip"])
    assert s.current_player == 0 and s.bidder == 0


def test_challenge_reverse_turns_the_order():
    s, _ = play(CROSS + ["+1 grape"], **four(PLAIN, "strawberry", challenges=["reverse"]))
    assert s.bid_history[-1][0] == 1 and s.current_player == 0


# (issue 12 changed this test's premise: a `token` challenge to 0 eliminates at once, not at
# the round's end; before, seat 2 kept bidding at 0 tokens)
def test_challenge_token_costs_the_bidder_now_and_eliminates_at_once():
    s, _ = play(CROSS, **four(PLAIN, "strawberry", tokens=(7, 7, 1, 7), challenges=["token"]))
    assert s.tokens == [7, 7, 0, 7] and not s.in_round[2] and s.elim_round[2] == 0
    assert s.current_player == 3 and not s.done
    s, _ = play(CROSS + ["+1 grape", "+1 grape", "+1 grape", "+1 grape"],
                **four(PLAIN, "strawberry", tokens=(7, 7, 1, 7), challenges=["token"]))
    # bids by seats 3, 0, 1, then seat 3 again: seat 2 is skipped in turn order
    assert [b[0] for b in s.bid_history] == [1, 2, 3, 0, 1, 3]
    s, _ = play(CROSS + ["menteur"],
                **four(PLAIN, "strawberry", tokens=(7, 7, 1, 7), challenges=["token"]))
    # bid 3 grapes, count 2 (seat 2's grape x2): seat 2 is accused but has nothing left to lose
    assert s.tokens == [7, 7, 0, 7] and s.last_round["loser"] == 2 and s.elim_round[2] == 0
    assert not s.in_round[2] and sum(s.hand_counts[2]) == 0


def test_an_exhausted_challenge_deck_draws_nothing():
    s, _ = play(CROSS + ["+1 banana", "+1 grape"],
                **four(PLAIN, "strawberry", challenges=["reverse"],
                       challenge_deck=["reverse"]))
    assert turned(s) == {"reverse": 1}


# ------------------------------------------------------------------ bids and calls
def test_bids_raise_by_one_or_two_only_up_to_the_ceiling():
    ref, s = scenario([["grape"], ["banana"]], "strawberry", [2, 2],
                      fruit_multipliers=(1, 1), salads=0, challenge_deck=())
    assert ref.rules.max_count == 2
    names = [ref.action_names[a] for a in ref.legal_actions(s)]
    assert names == [f"+1 {f}" for f in R.FRUITS] + ["vrai"]  # no +2 (3 > 2), no menteur
    ref.apply(s, "+1 grape")
    assert s.bid_count == 2
    assert [ref.action_names[a] for a in ref.legal_actions(s)] == ["vrai", "menteur"]


def test_plus_two_adds_two():
    s, _ = play(["+2 cherry", "+1 cherry"], **four(PLAIN, "strawberry x3"))
    assert s.bid_history == [(1, 5, R.FRUITS.index("cherry")), (2, 6, R.FRUITS.index("cherry"))]


def test_menteur_is_forbidden_against_the_initial_bid_but_vrai_is_allowed():
    ref, s = scenario(**four(PLAIN, "cherry"))
    assert R.MENTEUR not in ref.legal_actions(s) and R.VRAI in ref.legal_actions(s)
    with pytest.raises(IllegalActionError, match="menteur"):
        ref.apply(s, "menteur")
    vg = QdvGame(ref.rules)
    st = vg.from_reference([s])
    with pytest.raises(IllegalActionError, match="batch index 0 for seat 1"):
        vg.step(st, np.array([R.MENTEUR]))
    s, _ = play(["vrai"], **four(PLAIN, "cherry"))  # count: centre 1 + cherry 1 + cherry x2 2
    assert s.last_round["true_count"] == 4 and s.tokens == [7, 3, 7, 7]


# ------------------------------------------------------------------ salads and the start choice
def test_salad_holders_declare_one_after_another_from_the_caller_clockwise():
    hands = [["salad", "salad"], ["salad"], ["grape"], ["cherry"], ["salad", "banana x2"]]
    setup = dict(hands=hands, centre="banana", tokens=[6] * 5)
    # seats 1, 2 bid; seat 3 calls vrai on 3 bananas; holders 4, 0, 1 declare in that order
    s, _ = play(["+1 banana", "+1 banana", "vrai"], **setup)
    assert s.phase == R.PHASE_SALADS and s.current_player == 4
    ref = ReferenceGame(R.Rules(num_players=5))
    assert [ref.action_names[a] for a in ref.legal_actions(s)] == ["salads 0", "salads 1"]
    s, _ = play(["+1 banana", "+1 banana", "vrai", "salads 0"], **setup)
    assert s.current_player == 0
    assert [ref.action_names[a] for a in ref.legal_actions(s)] == [
        "salads 0", "salads 1", "salads 2"]
    assert ref.observe(s, 0)["declared"].tolist() == [-1, -1, -1, -1, 0]
    s, _ = play(["+1 banana", "+1 banana", "vrai", "salads 0", "salads 2", "salads 1"], **setup)
    # bananas: centre 1 + banana x2 = 3, salads 0 + 2 + 1 = 3 -> 6 != 3: caller loses 4
    assert s.last_round["true_count"] == 6 and s.tokens[3] == 2
    s, _ = play(["+1 banana", "+1 banana", "vrai", "salads 0", "salads 0", "salads 0"], **setup)
    assert s.phase == R.PHASE_REWARD and s.current_player == 3


def test_the_caller_declares_first_when_holding_salads():
    hands = [["salad"], ["grape"], ["salad"]]
    s, _ = play(["+1 cherry", "vrai"], hands=hands, centre="cherry", tokens=[8, 8, 8])
    assert s.caller == 2 and s.current_player == 2 and s.phase == R.PHASE_SALADS


def test_a_centre_salad_lets_the_dealer_choose_and_counts_as_that_fruit():
    hands = [["grape"], ["grape x2"], ["cherry"], ["banana"]]
    ref, s = scenario(**four(hands, "salad", dealer=2))
    assert s.phase == R.PHASE_START and s.current_player == 2
    assert [ref.action_names[a] for a in ref.legal_actions(s)] == [
        f"start {f}" for f in R.FRUITS]
    s, _ = play(["start grape", "vrai"], **four(hands, "salad", dealer=2))
    # start grape, bid 1 grape; seat 3 says vrai: grape 1 + grape x2 2 + centre salad 1 = 4
    assert s.last_round["bid_count"] == 1 and s.last_round["true_count"] == 4
    assert s.tokens == [7, 7, 7, 3]


# ------------------------------------------------------------------ tokens, rounds, the end
def test_tokens_never_go_below_zero_and_dealer_rotation_skips_the_eliminated():
    hands = [["grape"], ["banana"], ["cherry"]]
    # seat 1 bids 2 grapes, seat 2 says vrai: centre 1 + grape 1 = 2, exact; punish seat 0
    s, st = play(["+1 grape", "vrai", "punish 1"], hands=hands, centre="grape", tokens=[1, 5, 5])
    assert s.tokens == [0, 5, 5] and s.elim_round == [0, -1, -1]
    assert s.num_rounds == 1 and s.dealer == 1 and not s.in_round[0]
    assert sum(s.hand_counts[0]) == 0 and sum(s.hand_counts[1]) == 5
    assert s.current_player == (1 if s.centre == R.SALAD else 2)
    assert st.dealer[0] == 1
    s, _ = play(["+2 grape", "+2 grape", "menteur"], hands=hands, centre="grape",
                tokens=[5, 5, 2])
    # bid 5 grapes by seat 2, count 2: seat 2 loses 4 but holds 2 -> 0, not -2
    assert s.last_round["amount"] == 4 and s.tokens == [5, 5, 0] and s.elim_round[2] == 0


def test_the_last_player_with_tokens_wins():
    s, st = play(["+2 grape", "menteur"], hands=[["grape"], ["banana"]], centre="grape",
                 tokens=[3, 1])
    # seat 1 bids 3 grapes, count 2: seat 1 loses 2 -> out; seat 0 wins
    assert s.terminated and s.placements == [1, 2] and s.current_player == -1
    assert st.terminated[0] and st.placements[0].tolist() == [1, 2]


# (issue 12 changed the premise of the two tests below: before, a `token` challenge to 0 let the
# player go on until the showdown, so everybody could reach 0 in one round, and players out in
# the same round shared a place; now each elimination is its own event)
def test_everyone_out_is_impossible_the_game_ends_when_one_player_is_left():
    s, st = play(["+1 banana", "+1 grape"], hands=[["grape x3"], ["cherry"]],
                 centre="strawberry", tokens=[1, 1], challenges=["token"])
    # seat 0's bid costs it its last token: seat 1 is the last with tokens, before any call
    assert s.tokens == [0, 1] and s.terminated and s.num_rounds == 0
    assert s.placements == [2, 1] and st.placements[0].tolist() == [2, 1]


def test_placement_by_elimination_event_two_token_eliminations_in_one_round():
    # seat 2 passes the start and seat 3 lands on it: both draw `token` and drop to 0, out at
    # once, one after the other; seat 0 calls menteur on seat 3's 4 strawberries (count 1)
    s, st = play(["+1 banana", "+1 grape", "+1 strawberry", "menteur"],
                 hands=[["grape"], ["banana"], ["cherry"], ["cherry"]], centre="strawberry",
                 tokens=[5, 1, 1, 1], challenges=["token", "token"], max_rounds=1)
    assert s.elim_round == [-1, -1, 0, 0] and s.truncated and s.tokens == [5, 1, 0, 0]
    assert s.placements == [1, 2, 4, 3] and st.placements[0].tolist() == [1, 2, 4, 3]


def test_placement_one_event_one_shared_place():
    # the placement rule itself: eliminated at the same decision -> the same place
    assert placements_from_scores(placement_scores([0, 3, 0, 0], [7, -1, 7, 4])) == [2, 1, 2, 4]


def test_max_rounds_truncates_and_ranks_by_tokens():
    s, st = play(["+2 grape", "menteur"], hands=[["grape"], ["banana"], ["cherry"]],
                 centre="grape", tokens=[5, 3, 5], max_rounds=1)
    # seat 1 bids 3 grapes, count 2: seat 1 loses 2 -> [5, 1, 5]; truncated after 1 round
    assert s.truncated and not s.terminated and s.tokens == [5, 1, 5]
    assert s.placements == [1, 3, 1] and st.truncated[0] and not st.terminated[0]


def test_the_deal_is_capped_so_the_deck_never_runs_out():
    ref = ReferenceGame(R.Rules(num_players=6, starting_tokens=20))
    s = ref.new_game(5)
    assert [sum(h) for h in s.hand_counts] == [8] * 6  # floor(51 / 6)
    ref = ReferenceGame(R.Rules(num_players=2))
    assert [sum(h) for h in ref.new_game(5).hand_counts] == [9, 9]


def test_scenario_refuses_cards_that_do_not_exist():
    with pytest.raises(RulesError, match="unknown qdv card 'kiwi'"):
        scenario([["kiwi"], []], "grape", [9, 9])
    with pytest.raises(RulesError, match="no 'grape x3' card left"):
        scenario([["grape x3"], ["grape x3"]], "grape", [9, 9])


# ------------------------------------------------------------------ issue 12: elimination, end, own bid
# seat 1 bids 2 bananas; seat 0 bids 3 grapes, passing the start: `token` takes seat 0 from 1 to 0
ELIM = dict(hands=[["grape x3"], ["grape"]], centre="strawberry", tokens=[1, 3],
            challenges=["token"])


def test_elimination_is_immediate_two_players_token_to_zero_ends_the_game_at_once():
    # before issue 12 seat 0 kept playing: seat 1 bid 4 grapes, seat 0 said an exact "vrai"
    # and gained a token back; now the game is over the moment seat 0 has no token left
    s, st = play(["+1 banana", "+1 grape"], **ELIM)
    assert s.tokens == [0, 3] and s.terminated and s.current_player == -1
    assert s.placements == [2, 1] and st.placements[0].tolist() == [2, 1]
    assert bool(st.terminated[0]) and not st.legal_action_mask[0].any()
    ref = ReferenceGame(R.Rules(num_players=2))
    assert ref.legal_actions(s) == []


# three players, seat 1 deals: seat 2 bids 2 bananas, seat 0 bids 3 grapes passing the start and
# loses its last token to `token`; seat 0 holds the only grapes (x3) and a salad
THREE = dict(hands=[["grape x3", "salad"], ["cherry"], ["salad"]], centre="strawberry",
             tokens=[1, 5, 5], dealer=1, challenges=["token"])
OUT = ["+1 banana", "+1 grape"]


def names(s, players=3, **options):
    ref = ReferenceGame(R.Rules(num_players=players, **options))
    return [ref.action_names[a] for a in ref.legal_actions(s)]


def test_elimination_is_immediate_skipped_in_turn_order_and_the_bid_stands():
    s, st = play(OUT, **THREE)
    assert s.tokens == [0, 5, 5] and not s.in_round[0] and not s.done
    assert s.elim_round[0] == 0 and st.in_round[0].tolist() == [False, True, True]
    # the next player answers the eliminated player's bid: it stands, calls are allowed
    assert s.current_player == 1 and (s.bidder, s.bid_count) == (0, 3)
    assert {"vrai", "menteur"} <= set(names(s))
    s, _ = play(OUT + ["+1 grape", "+1 grape", "+1 grape"], **THREE)
    assert [b[0] for b in s.bid_history] == [2, 0, 1, 2, 1]  # seat 0 never bids again
    assert s.current_player == 2


def test_elimination_is_immediate_cards_count_salads_do_not():
    # seat 1 calls menteur on seat 0's 3 grapes: seat 0's grape x3 still counts (3 >= 3);
    # seat 0's salad is not declared, seat 2 alone declares
    s, st = play(OUT + ["menteur"], **THREE)
    assert s.phase == R.PHASE_SALADS and s.current_player == 2
    s, st = play(OUT + ["menteur", "salads 0"], **THREE)
    assert s.last_round["true_count"] == 3 and s.last_round["loser"] == 1
    assert s.tokens == [0, 4, 5] and st.tokens[0].tolist() == [0, 4, 5]
    assert s.declared == [-1, -1, 0] and s.num_rounds == 1 and not s.done
    assert sum(s.hand_counts[0]) == 0 and s.current_player in (1, 2)  # next round: 1 and 2


def test_elimination_is_immediate_never_gains_nor_is_punished():
    # seat 1 says vrai on 3 grapes: exact; the reward cannot punish the eliminated seat 0
    s, _ = play(OUT + ["vrai", "salads 0"], **THREE)
    assert s.phase == R.PHASE_REWARD and s.current_player == 1
    assert names(s) == ["gain", "punish 1"]  # seat 2; "punish 2" would be seat 0
    s, _ = play(OUT + ["vrai", "salads 0", "gain"], **THREE)
    assert s.tokens == [0, 6, 5] and s.elim_round == [0, -1, -1] and not s.done


def test_game_ends_the_moment_one_player_has_tokens_mid_round():
    # seat 0 is already out; seat 2 bids 2 bananas, seat 1 bids 3 grapes passing the start and
    # loses its last token: seat 2 wins at once, mid-round, before anyone calls
    s, st = play(["+1 banana", "+1 grape"], hands=[[], ["grape"], ["cherry"]],
                 centre="strawberry", tokens=[0, 1, 4], dealer=1, challenges=["token"])
    assert s.terminated and s.phase == R.PHASE_OVER and s.current_player == -1
    assert s.tokens == [0, 0, 4] and s.num_rounds == 0
    assert s.placements == [3, 2, 1] and st.placements[0].tolist() == [3, 2, 1]
    assert not st.legal_action_mask[0].any() and st.phase[0] == R.PHASE_OVER


def test_game_ends_when_a_punish_reward_eliminates_the_last_opponent():
    # seat 1 bids 2 grapes, seat 0 says vrai: centre 1 + grape 1 = 2, exact; punish seat 1
    s, st = play(["+1 grape", "vrai", "punish 1"], hands=[["grape"], ["banana"]],
                 centre="grape", tokens=[4, 1])
    assert s.terminated and s.tokens == [4, 0] and s.placements == [1, 2]
    assert st.placements[0].tolist() == [1, 2] and s.token_tally[1][R.LOST_PUNISH] == 1


def test_no_call_on_ones_own_bid_two_players_skip_bidder_must_bid():
    s, st = play(["+1 banana", "+1 grape"], hands=[["cherry"], ["grape"]], centre="strawberry",
                 tokens=[9, 9], challenges=["skip"])
    assert s.current_player == 0 and s.bidder == 0
    assert names(s, 2) == [f"+{d} {f}" for d in (1, 2) for f in R.FRUITS]
    assert not st.legal_action_mask[0, [R.VRAI, R.MENTEUR]].any()
    s, _ = play(["+1 banana", "+1 grape", "+1 grape"], hands=[["cherry"], ["grape"]],
                centre="strawberry", tokens=[9, 9], challenges=["skip"])
    assert s.current_player == 1 and {"vrai", "menteur"} <= set(names(s, 2))


def test_no_call_on_ones_own_bid_a_skip_at_the_ceiling_is_void():
    # max count 3: seat 0's bid of 3 grapes (the ceiling) passes the start and draws `skip`;
    # seat 0 could not bid again, so the skip does nothing and seat 1 answers the bid
    opts = dict(fruit_multipliers=(1, 1, 1), salads=0, challenge_deck=("skip",))
    s, st = play(["+1 banana", "+1 grape"], hands=[["grape"], ["banana"]], centre="strawberry",
                 tokens=[3, 3], **opts)
    assert s.bid_count == 3 and s.challenges[R.EFFECTS.index("skip")] == 1
    assert s.current_player == 1 and names(s, 2, **opts) == ["vrai", "menteur"]


def test_no_call_on_ones_own_bid_three_players_next_in_turn_eliminated():
    # seat 0 is eliminated mid-round (`token`), later seat 1 draws `skip`: seat 2 loses its turn
    # and, seat 0 being out, the turn comes back to seat 1, who must bid again
    setup = dict(THREE, challenges=["token", "skip"])
    s, st = play(OUT + ["+1 strawberry"], **setup)  # seat 1 lands on the start
    assert s.current_player == 1 and s.bidder == 1
    assert names(s) == [f"+{d} {f}" for d in (1, 2) for f in R.FRUITS]
    # the same with seat 0 out before the round
    s, _ = play(["+1 banana", "+1 grape"], hands=[[], ["cherry"], ["grape"]],
                centre="strawberry", tokens=[0, 5, 5], dealer=0, challenges=["skip"])
    assert s.bidder == 2 and s.current_player == 2
    assert R.VRAI not in ReferenceGame(R.Rules(num_players=3)).legal_actions(s)
