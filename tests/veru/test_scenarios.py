"""Scripted veru scenarios with exact expected results, run on both engines (docs/rules.md#veru)."""

from __future__ import annotations

import numpy as np
import pytest

from bluffsim.api import IllegalActionError, RulesError
from bluffsim.games.veru import rules as R
from bluffsim.games.veru.reference import scenario
from bluffsim.games.veru.vec import VeruGame
from tests.games import play_both

FIVE = R.RANKS.index("5")


def play(actions, hands, **kw):
    """Scenario + actions on both engines, checked equal after every step."""
    return play_both(scenario, VeruGame, actions, hands, **kw)


def names(ref, s):
    return [ref.action_names[a] for a in ref.legal_actions(s)]


H3 = [["5", "5", "9", "K"], ["7", "A", "J"], ["2", "3", "4"]]


def hand(s, seat):
    return s.hands[seat]


# ------------------------------------------------------------------ the four cells of the check
def test_believe_a_true_claim_sends_everything_out_and_the_checker_opens():
    _, s, st = play(["announce 5", "put 5", "put 5", "done", "believe"], H3)
    assert s.discard_seen[FIVE] == 2 and hand(s, 0) == ["9", "K"]
    assert s.last_check == [1, 0, 0, 1, -1]
    assert s.current_player == 1 and s.phase == R.PHASE_ANNOUNCE and st.current_player[0] == 1


def test_believe_a_false_claim_the_checker_takes_and_the_claimant_opens():
    _, s, _ = play(["announce 5", "put 9", "done", "believe"], H3)
    assert hand(s, 1) == ["7", "9", "A", "J"] and s.current_player == 0
    assert s.last_check == [1, 0, 0, 0, 1] and s.taken == [0, 1, 0]


def test_disbelieve_a_true_claim_the_checker_takes_and_the_claimant_opens():
    _, s, _ = play(["announce 5", "put 5", "done", "disbelieve"], H3)
    assert hand(s, 1) == ["5", "7", "A", "J"] and s.current_player == 0


def test_disbelieve_a_bluff_the_claimant_takes_back_and_the_checker_opens():
    ref, s, _ = play(["announce 5", "put K", "done", "disbelieve"], H3)
    assert hand(s, 0) == ["5", "5", "9", "K"] and s.current_player == 1
    assert ref.observe(s, 2)["last_check_cards"].sum() == 0  # shown to nobody


def test_a_joker_is_always_the_truth():
    _, s, _ = play(["announce 5", "put joker", "done", "disbelieve"],
                   [["joker", "9"], ["7", "8"], ["2", "3"]])
    assert s.last_check[3] == 1 and hand(s, 1) == ["7", "8", "joker"]


# ------------------------------------------------------------------ the Bank
def test_adding_sends_the_last_claim_to_the_bank_and_the_taker_gets_it_all():
    acts = ["announce 5", "put 5", "done", "put 7", "done"]
    ref, s, _ = play(acts, H3)
    assert s.bank[0][FIVE] == 1 and s.table == [R.RANKS.index("7")] and s.claimant == 1
    assert ref.observe(s, 2)["bank_sizes"].tolist() == [1, 0, 0]
    ref, s, _ = play(acts + ["disbelieve"], H3)   # seat 1's 7 was no 5: seat 1 takes all
    assert hand(s, 1) == ["5", "7", "A", "J"] and s.bank_size == 0
    assert s.current_player == 2
    assert s.seen_taken[0][1][FIVE] == 1          # seat 0 knows its 5 went to seat 1
    assert sum(s.seen_taken[2][1]) == 0           # the checker saw nothing


# ------------------------------------------------------------------ closed ranks and aces
def test_four_of_a_rank_at_the_deal_are_closed():
    ref, s, st = play([], [["8", "8", "8", "8", "2"], ["3", "4"], ["5", "6"]])
    assert s.closed_ranks == ["8"] and s.discard_seen[R.RANKS.index("8")] == 4
    assert "announce 8" not in names(ref, s) and "announce 2" in names(ref, s)
    assert st.closed[0, R.RANKS.index("8")]


def test_four_of_a_rank_after_a_pick_up_are_closed():
    ref, s, _ = play(["announce J", "put J", "done", "disbelieve"],
                     [["J", "5"], ["J", "J", "J", "2"], ["3", "4"]])
    assert s.closed_ranks == ["J"] and hand(s, 1) == ["2"]
    assert s.current_player == 0 and "announce J" not in names(ref, s)
    with pytest.raises(IllegalActionError):
        ref.apply(s, "announce J")


def test_aces_cannot_be_announced_but_can_be_passed_off():
    ref, s, _ = play([], H3)
    assert not [n for n in names(ref, s) if n == "announce A"]
    with pytest.raises(IllegalActionError, match="unknown veru action 'announce A'"):
        ref.apply(s, "announce A")
    _, s, _ = play(["announce 5", "put 5", "done", "put A", "done", "believe"], H3)
    assert hand(s, 2) == ["2", "3", "4", "5", "A"]  # believed seat 1's ace: takes it and the Bank


# ------------------------------------------------------------------ turns and putting
def test_at_most_three_cards_then_the_turn_passes_and_done_needs_a_card():
    ref, s, _ = play(["announce 5"], H3)
    assert "done" not in names(ref, s)
    ref, s, _ = play(["announce 5", "put 5", "put 5", "put 9"], H3)
    assert s.current_player == 1 and s.phase == R.PHASE_RESPOND and len(s.table) == 3
    with pytest.raises(IllegalActionError):
        ref.apply(s, "put 5")  # seat 1 holds no 5


def test_illegal_puts_are_refused_in_both_engines():
    ref, s, st = play(["announce 5"], H3)
    with pytest.raises(IllegalActionError):
        ref.apply(s, "put 7")
    with pytest.raises(IllegalActionError, match="batch index 0 for seat 0"):
        VeruGame(ref.rules).step(st, np.array([R.PUT0 + R.RANKS.index("7")]))


# ------------------------------------------------------------------ leaving and the end
def test_an_empty_hand_with_cards_in_the_round_may_only_check():
    acts = ["announce 5", "put 5", "put 7", "done", "put 3", "done"]
    ref, s, _ = play(acts, [["5"], ["7", "8"], ["3", "4"]])
    # seat 0's only card went to the Bank when seat 1 added; seat 0 is still in, hand empty
    assert s.current_player == 0 and not s.out[0]
    assert names(ref, s) == ["believe", "disbelieve"]


def test_a_player_with_nothing_left_goes_out_first():
    _, s, _ = play(["announce 5", "put 5", "believe"], [["5"], ["7", "8"], ["3", "4"]])
    assert s.out == [True, False, False] and s.place[0] == 1 and s.current_player == 1


def test_players_going_out_together_share_a_place_and_the_last_loses():
    _, s, st = play(["announce 5", "put 5", "put 7", "believe"], [["5"], ["7"], ["2", "3"]])
    # seat 1's 7 claimed as a 5: seat 2 believed wrongly and takes all; 0 and 1 are out together
    assert s.terminated and s.placements == [1, 1, 3]
    assert st.placements[0].tolist() == [1, 1, 3]


def test_endgame_limit_both_take_the_last_place():
    """Issue 12 point 5 (seed: "они оба будут проигравшими"): both take place P, not P - 1."""
    _, s, st = play(["announce 5", "put 5", "put 6"], [[], ["5", "6", "9"], ["7", "8"]],
                    opener=1, endgame_limit=3)
    # premise revised: both used to share place 2 of 3; they now both take the last place 3
    assert s.terminated and s.placements == [1, 3, 3] and st.terminated[0]
    assert st.placements[0].tolist() == [1, 3, 3]
    hands = [[], [], ["5", "6", "9"], ["7", "8"]]
    _, s, st = play(["announce 5", "put 5", "done"], hands, opener=2, endgame_limit=4)
    assert not s.done and s.endgame_count == 3
    _, s, st = play(["announce 5", "put 5", "done", "disbelieve"], hands, opener=2, endgame_limit=4)
    assert s.terminated and s.placements == [1, 1, 4, 4] and st.placements[0].tolist() == [1, 1, 4, 4]


def test_the_game_ends_when_every_rank_is_closed():
    q = [[r] * 4 for r in R.RANKS]
    hands = [q[0] + q[1] + q[2] + q[3] + ["K", "A"], q[4] + q[5] + q[6] + q[7] + ["K", "K", "K", "A"],
             q[8] + q[9] + q[10] + ["A", "A"]]
    ref, s, _ = play([], hands)
    assert names(ref, s)[:1] == ["announce K"] and len(s.closed_ranks) == 11
    _, s, st = play(["announce K", "put K", "done", "disbelieve"], hands)
    # seat 1 takes the true K, closes kings: all closed; 1 card, 1 card, 2 cards left
    assert s.terminated and s.placements == [1, 1, 3] and st.placements[0].tolist() == [1, 1, 3]


def test_max_turns_truncates_and_ranks_by_fewest_cards():
    _, s, st = play(["announce 5", "put 5", "done"], [["5", "5", "9"], ["7", "8"], ["2"]],
                    max_turns=3)
    assert s.truncated and not s.terminated and s.placements == [2, 2, 1]  # 2, 2 and 1 cards
    assert st.truncated[0] and st.placements[0].tolist() == [2, 2, 1]


def test_timeout_takes_table_and_bank_and_the_next_player_opens():
    _, s, _ = play(["announce 5", "put 9", "done", "timeout"], H3)
    assert hand(s, 1) == ["7", "9", "A", "J"] and s.current_player == 2
    assert s.last_check[2] == 2


# ------------------------------------------------------------------ gadgets
def test_joker_swap_once_per_round_never_with_one_card_twice_per_game():
    opts = dict(joker_swap_seats=(0,), jokers=2)
    ref, s, _ = play(["swap 9"], H3, **opts)
    # the swapped 9 leaves unseen (the three 9s in no scenario hand were out already)
    assert hand(s, 0) == ["5", "5", "K", "joker"] and s.discard_hidden[R.RANKS.index("9")] == 4
    assert not [n for n in names(ref, s) if n.startswith("swap")]  # once per round
    ref, s, _ = play([], [["5"], ["7"], ["2"]], **opts)
    assert not [n for n in names(ref, s) if n.startswith("swap")]  # one card
    # a new round, seat 0's turn again: a swap is back unless the game's quota is used up
    acts = ["swap 9", "announce 5", "put 5", "done", "believe", "announce 7", "put 7", "done",
            "put 2", "done"]
    ref, s, _ = play(acts, H3, joker_swap_seats=(0,), joker_swaps=2)
    assert s.current_player == 0 and names(ref, s)[-2:] == ["swap 5", "swap K"]
    ref, s, _ = play(acts, H3, joker_swap_seats=(0,), joker_swaps=1)
    assert s.current_player == 0 and not [n for n in names(ref, s) if n.startswith("swap")]
    ref, s, _ = play([], H3)
    assert not [n for n in names(ref, s) if n.startswith("swap")]   # no gadget, no swap


def test_check_gadget_sees_the_checked_cards():
    acts = ["announce 5", "put 9", "done", "believe"]
    ref, s, _ = play(acts, H3, check_seats=(2,))
    assert ref.observe(s, 2)["last_check_cards"][R.RANKS.index("9")] == 1
    assert s.seen_taken[2][1][R.RANKS.index("9")] == 1
    ref, s, _ = play(acts, H3)
    assert ref.observe(s, 2)["last_check_cards"].sum() == 0


def test_ace_hint_shows_where_the_aces_are():
    ref, s, _ = play([], H3, ace_hint_seats=(2,))
    # seat 1 holds one ace, the other three are out of the game (not in any scenario hand)
    assert ref.observe(s, 2)["ace_where"].tolist() == [0, 1, 0, 0, 0, 3]
    assert ref.observe(s, 0)["ace_where"].tolist() == [-1] * 6


@pytest.mark.parametrize("options, message", [
    ({"num_players": 2}, "num_players=2 is invalid; allowed: 3..6"),
    ({"num_players": 7}, "num_players=7"),
    ({"jokers": -1}, "jokers=-1"),
    ({"jokers": 49}, "jokers=49 is invalid; allowed: 0..48"),
    ({"check_seats": (5,)}, "check_seats=\\(5,\\)"),
])
def test_bad_options_are_refused(options, message):
    from bluffsim.games.veru.rules import Rules

    with pytest.raises(RulesError, match=message):
        Rules.from_options(**options)


# ------------------------------------------------------------------ issue 12: who opens
def test_the_wrong_guesser_never_opens_when_the_right_guesser_is_out():
    """Point 4 (seed: the one who disbelieved the truth "теряет право открытия нового раунда")."""
    hands = [["5"], ["7", "8"], ["2", "3"]]
    # seat 0's last card is a true 5; seat 1 disbelieves, takes it; seat 0 is out
    _, s, st = play(["announce 5", "put 5", "disbelieve"], hands)
    assert s.out == [True, False, False] and s.place[0] == 1 and hand(s, 1) == ["5", "7", "8"]
    assert s.current_player == 2 and s.opener == 2 and int(st.current_player[0]) == 2
    # the same with "believe" on a lie: the wrong believer is skipped as well
    _, s, st = play(["announce 5", "put 2", "believe"], [["2"], ["7", "8"], ["3", "4"]])
    assert s.out == [True, False, False] and s.current_player == 2 and int(st.opener[0]) == 2


def test_the_wrong_guesser_never_opens_even_counterclockwise_with_seats_out():
    """Point 4: the opening passes to the next player still in, skipping the out and the wrong."""
    hands = [["5"], [], ["2", "3"], ["7", "8"], ["4", "6"]]
    # counterclockwise from seat 0: 4, 3, 2, 1 (out at the deal); seat 4 checks wrongly
    _, s, st = play(["announce 5", "put 5", "disbelieve"], hands, turn_order="counterclockwise")
    assert s.out == [True, True, False, False, False] and hand(s, 4) == ["4", "5", "6"]
    assert s.current_player == 3 and int(st.current_player[0]) == 3


def test_the_wrong_guesser_left_alone_ends_the_game():
    """Point 4 edge case: the right guesser goes out and only the wrong guesser is left: game over."""
    _, s, st = play(["announce 5", "put 5", "disbelieve"], [["5"], ["7", "8"], []])
    assert s.terminated and s.placements == [2, 3, 1] and st.placements[0].tolist() == [2, 3, 1]
    assert s.current_player == -1


def test_a_timed_out_player_never_opens_and_players_out_are_skipped():
    """Point 4: after a ``timeout`` the player after the timed-out one (still in) opens."""
    hands = [["5"], ["7", "8"], [], ["4", "6"]]
    _, s, st = play(["announce 5", "put 5", "timeout"], hands)
    # seat 1 takes seat 0's last card (seat 0 out); seat 2 is out: seat 3 opens, not seat 1
    assert s.out == [True, False, True, False] and hand(s, 1) == ["5", "7", "8"]
    assert s.current_player == 3 and int(st.current_player[0]) == 3
    assert s.timeouts == [0, 1, 0, 0] and s.last_check == [-1, 0, 2, -1, 1]
    # a timeout at the announce (nothing on the table): the next player opens
    _, s, _ = play(["timeout"], [["5", "9"], ["7", "8"], ["2", "3"]])
    assert s.current_player == 1 and s.taken == [0, 0, 0] and s.timeouts == [1, 0, 0]


# ------------------------------------------------------------------ issue 12: out at the deal
def scripted_deal(monkeypatch, dealt_order: list[int]) -> None:
    """Make the reference deal ``dealt_order`` (deck positions, card i to seat opener + i); the
    compiled engine deals it with ``scripted_init``."""
    from bluffsim import rng

    one, many = rng.permutation, rng.permutations

    def permutation(seed, stream, major, n, width=None):
        return list(dealt_order) if stream == rng.Stream.DEAL else one(seed, stream, major, n, width)

    def permutations(seeds, stream, major, n):
        if stream == rng.Stream.DEAL:
            return np.tile(np.asarray(dealt_order, np.int64), (len(seeds), 1))
        return many(seeds, stream, major, n)

    monkeypatch.setattr(rng, "permutation", permutation)
    monkeypatch.setattr(rng, "permutations", permutations)


def scripted_init(game: VeruGame, seeds: list[int], dealt_order: list[int]):
    """``game.init(seeds)`` with the deal ``dealt_order`` instead of the seeds' shuffles (the
    compiled kernels cannot be monkeypatched: ``kernels.deal_kernel`` takes the order)."""
    from bluffsim.games.veru import kernels as KN

    st = game.empty_state(np.asarray(seeds, dtype=np.uint64))
    orders = np.tile(np.asarray(dealt_order, np.int64), (len(seeds), 1))
    KN.deal_kernel(st.data, st.hot, game._rec, np.arange(len(seeds)), orders)
    return st


def test_a_dealt_hand_of_closed_ranks_is_out_at_the_deal(monkeypatch):
    """Point 7: ``new_game`` (both engines) puts such a hand out at once, exactly as ``scenario``."""
    from bluffsim.games.veru.reference import ReferenceGame
    from tests.games import assert_same_game

    # 6 players from seat 0: seats 4 and 5 get 8 cards; seat 5 gets all the 2s and 3s
    # (deck positions 0..7), every other seat the rest in deck order
    to_five = iter(range(8))
    rest = iter(range(8, 52))
    order = [next(to_five) if i % 6 == 5 else next(rest) for i in range(52)]
    scripted_deal(monkeypatch, order)
    rules = R.Rules(num_players=6, jokers=0, first_opener=0)
    ref, vg = ReferenceGame(rules), VeruGame(rules)
    s = ref.new_game(3)
    assert s.out == [False] * 5 + [True] and s.place == [0] * 5 + [1]
    assert s.closed_ranks == ["2", "3"] and sum(s.hand_counts[5]) == 0
    st = scripted_init(vg, [3], order)
    assert_same_game(vg, ref, st, [s], where="scripted deal")
    assert st.out[0].tolist() == s.out and st.place[0].tolist() == s.place
    # exactly as a scenario with the same hands
    dealt = [[R.CARD_NAMES[t] for t in range(R.NUM_TYPES) for _ in range(s.hand_counts[q][t])]
             for q in range(6)]
    dealt[5] = ["2"] * 4 + ["3"] * 4
    _, sc = scenario(dealt, opener=0, jokers=0)
    for name in ("hand_counts", "out", "place", "closed", "discard_seen", "current_player",
                 "opener", "phase", "endgame_count"):
        assert getattr(sc, name) == getattr(s, name), name
    # seat 5 never plays: seat 4's claim is answered by seat 0
    def step(a: int) -> None:
        ref.apply(s, a)
        vg.step(st, np.array([a]))

    step(R.ANNOUNCE0 + FIVE)
    for _ in range(5):  # seats 0..4 each put one card (their first legal one) and stop
        step(min(a for a in ref.legal_actions(s) if R.PUT0 <= a < R.DONE))
        step(R.DONE)
    assert s.claimant == 4 and s.current_player == 0
    assert_same_game(vg, ref, st, [s], where="after a lap")


# ------------------------------------------------------------------ issue 12: the observation is the memory
H4 = [["5", "5", "9", "K"], ["5", "A", "J", "Q"], ["2", "3", "4", "8"], ["6", "10", "10", "Q"]]
MEMORY = ["announce 5", "put 5", "done", "put 5", "done", "believe",      # 1-6: true, out
          "announce 2", "put 2", "done", "put 6", "done", "disbelieve",   # 7-12: seat 3 caught
          "announce 9", "put 9", "done", "believe",                       # 13-16: true, out
          "announce J", "put J", "done", "put 3", "done", "believe"]      # 17-22: seat 3 wrong
R2, R3, R9, RJ = (R.RANKS.index(r) for r in ("2", "3", "9", "J"))


def block(ref, name: str, tensor: np.ndarray) -> np.ndarray:
    """The ``name`` block of a flat observation row (``tensor_layout``)."""
    from bluffsim.games.veru.observe import tensor_layout

    (first, width), = [(f, w) for n, f, w, _ in tensor_layout(ref.rules) if n == name]
    return tensor[first:first + width]


def test_memory_per_seat_tallies_of_behaviour():
    """Issue 12 point 11: claims, checked claims, checks right / wrong, pick-ups per seat, in both engines."""
    ref, s, st = play(MEMORY, H4)
    obs = ref.observe(s, 0)
    assert obs["claims"].tolist() == [[2, 0], [1, 1], [1, 1], [0, 1]]
    assert obs["cards_claimed"].tolist() == [2, 2, 2, 1]
    assert obs["claims_checked"].tolist() == [[0, 1], [0, 1], [1, 0], [1, 0]]   # false, true
    assert obs["checks"].tolist() == [[0, 0, 1, 0], [1, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0]]
    assert obs["pickups"].tolist() == [0, 0, 0, 2] and obs["taken"].tolist() == [0, 0, 0, 4]
    assert obs["timeouts"].tolist() == [0] * 4 and obs["swaps_made"].tolist() == [0] * 4
    vobs = VeruGame(ref.rules).observe(st)   # seat 2 is the current player: public, the same
    assert s.current_player == 2
    for key in ("claims", "cards_claimed", "claims_checked", "checks", "pickups"):
        np.testing.assert_array_equal(vobs[key][0], obs[key], err_msg=key)
    # the flat tensor, relative to seat 2: seat 3 (relative 1) believed wrongly once
    x = VeruGame(ref.rules).observation_tensor(st)[0]
    assert block(ref, "checks", x).reshape(4, 4)[1].tolist() == [0, 1, 0, 0]
    assert block(ref, "pickups", x).tolist() == [0, 2, 0, 0]


def test_memory_the_tensor_keeps_who_claimed_checked_and_took():
    """Issue 12 point 11: the flat tensor has the last check's checker, claimant and taker (relative)."""
    ref, s, st = play(MEMORY, H4)
    assert s.last_check == [3, 2, 0, 0, 3] and s.current_player == 2
    x = VeruGame(ref.rules).observation_tensor(st)[0]
    assert block(ref, "last_checker", x).tolist() == [0, 1, 0, 0]    # seat 3 = next after me
    assert block(ref, "last_claimant", x).tolist() == [1, 0, 0, 0]   # me
    assert block(ref, "last_taker", x).tolist() == [0, 1, 0, 0]
    # a true "believe": nobody takes
    ref, s, st = play(MEMORY[:6], H4)
    x = VeruGame(ref.rules).observation_tensor(st)[0]
    assert s.current_player == 2 and block(ref, "last_taker", x).tolist() == [0, 0, 0, 0]
    assert block(ref, "last_checker", x).tolist() == [1, 0, 0, 0]
    assert block(ref, "last_claimant", x).tolist() == [0, 0, 0, 1]   # seat 1 = relative 3


def test_memory_my_bank_cards_that_went_out_unseen_are_remembered():
    """Issue 12 point 11: seat 0's 5 went out unseen in the Bank at decision 6; still known at 22."""
    ref, s, _ = play(MEMORY[:6], H4)
    assert ref.observe(s, 0)["my_out"][FIVE] == 1 and ref.observe(s, 1)["my_out"].sum() == 0
    assert s.discard_seen[FIVE] == 1   # seat 1's 5 was shown to all
    ref, s, _ = play(MEMORY, H4)
    assert ref.observe(s, 0)["my_out"].tolist() == [0, 0, 0, 1] + [0] * 10
    assert s.discard_seen[FIVE] == 1 and s.discard_seen[R9] == 1
    # a swapped-away card is remembered too
    ref, s, _ = play(["swap 9", "announce 5", "put 5", "done"], H4, joker_swap_seats=(0,))
    assert ref.observe(s, 0)["my_out"][R9] == 1 and ref.observe(s, 1)["swaps_made"].tolist() == [1, 0, 0, 0]


def test_memory_cards_known_to_sit_in_a_hand_until_that_seat_plays():
    """Issue 12 point 11: seat 2's 2 went to seat 3 at decision 12 (its own card); known ten decisions later,
    the same for seat 1's J (its Bank card) and seat 2's 3 (its claim); one card put by
    seat 3 lowers every bound by one."""
    ref, s, _ = play(MEMORY[:12], H4)
    assert ref.observe(s, 2)["known_in_hand"][3][R2] == 1
    assert ref.observe(s, 0)["known_in_hand"].sum() == 0      # the checker saw nothing
    ref, s, st = play(MEMORY, H4)
    known2 = ref.observe(s, 2)["known_in_hand"]
    assert known2[3].tolist() == [1, 1] + [0] * 12 and known2.sum() == 2
    assert ref.observe(s, 1)["known_in_hand"][3][RJ] == 1
    np.testing.assert_array_equal(VeruGame(ref.rules).observe(st)["known_in_hand"][0], known2)
    x = VeruGame(ref.rules).observation_tensor(st)[0]
    assert block(ref, "known_in_hand", x).reshape(4, -1)[1, :2].tolist() == [1, 1]
    ref, s, _ = play(MEMORY + ["announce 4", "put 4", "done", "put 6", "done"], H4)
    assert ref.observe(s, 2)["known_in_hand"].sum() == 0 and ref.observe(s, 1)["known_in_hand"].sum() == 0
    assert ref.observe(s, 2)["seen_taken"][3].tolist() == [1, 1] + [0] * 12   # the history stays


def test_memory_the_check_gadget_remembers_what_it_saw_go_into_a_hand():
    """Issue 12 point 11: with the Check gadget seat 0 saw seat 2's 3 go to seat 3 at decision 22."""
    ref, s, _ = play(MEMORY, H4, check_seats=(0,))
    assert ref.observe(s, 0)["known_in_hand"][3][R3] == 1
    ref, s, _ = play(MEMORY, H4)
    assert ref.observe(s, 0)["known_in_hand"][3][R3] == 0
