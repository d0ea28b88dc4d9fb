"""Issue 12, point 11 for qdv: the observation is the agent's memory.

Scripted scenarios where a fact becomes public and must still be in the observation
(structured and flat) many decisions later, after the next round has been dealt; both
engines (``play_both`` checks they agree at every step, observations included).
"""

from __future__ import annotations

import numpy as np

from bluffsim.games.qdv import observe as O
from bluffsim.games.qdv import rules as R
from bluffsim.games.qdv.reference import ReferenceGame, scenario
from bluffsim.games.qdv.vec import QdvGame
from tests.games import assert_same_game, play_both

APRICOT = R.FRUITS.index("apricot")
# seats 1, 2, 3, 0 bid 3, 5, 7, 8 apricots; seat 1 says vrai: 8 exactly; seat 1 punishes seat 3
EXACT = dict(hands=[["apricot x3"], ["apricot x2", "apricot"], ["apricot"], ["grape"]],
             centre="apricot", tokens=[7, 7, 7, 7])
EXACT_ROUND = ["+2 apricot", "+2 apricot", "+2 apricot", "+1 apricot", "vrai", "punish 2"]

BID_TALLY = [[1, 0, 1, 0, 3], [1, 0, 0, 3 - 8, 3], [1, 0, 0, 5 - 8, 1], [1, 0, 0, 7 - 8, 0]]
CALL_TALLY = [[0, 0, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
CALLED_TALLY = [[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
TOKEN_TALLY = [[0, 0, 0, 0, 0], [0, 0, 0, 0, 1], [0, 0, 0, 0, 0], [0, 0, 1, 0, 0]]
LAST_ROUND = dict(caller=1, call=R.CALL_VRAI, bidder=0, bid_count=8, bid_fruit=APRICOT,
                  true_count=8, loser=3, amount=1, gainer=-1, centre_value=1)
LAST_BIDS = [(1, 3, APRICOT), (2, 5, APRICOT), (3, 7, APRICOT), (0, 8, APRICOT)]


def keep_bidding(ref: ReferenceGame, vg: QdvGame, s, st, decisions: int) -> None:
    """``decisions`` more decisions on both engines, never a call (the round goes on)."""
    for _ in range(decisions):
        a = next(a for a in ref.legal_actions(s) if a not in (R.VRAI, R.MENTEUR))
        ref.apply(s, a)
        vg.step(st, np.array([a]))
        assert_same_game(vg, ref, st, [s], where=ref.action_names[a])


def block(rules: R.Rules, x: np.ndarray, name: str) -> np.ndarray:
    """The flat tensor's block ``name`` (``tensor_layout``)."""
    row = next(r for r in O.tensor_layout(rules) if r[0] == name)
    return x[row[1]:row[1] + row[2]]


def check_remembered(ref: ReferenceGame, s, st, seat: int) -> None:
    """Every fact of the exact-call showdown, from ``seat``'s observation, on both engines."""
    p = s.num_players
    vec_obs = QdvGame(ref.rules).observe(st)
    for obs in (ref.observe(s, seat), {k: v[0] for k, v in vec_obs.items()}):
        assert obs["bid_tally"].tolist() == BID_TALLY
        assert obs["call_tally"].tolist() == CALL_TALLY
        assert obs["called_tally"].tolist() == CALLED_TALLY
        assert obs["token_tally"].tolist() == TOKEN_TALLY
        assert obs["last_round"].tolist() == [LAST_ROUND[k] for k in R.LAST_ROUND]
        assert [tuple(b) for b in obs["last_bid_history"].tolist() if b[0] >= 0] == LAST_BIDS
    x = ref_tensor(ref, s, seat)
    order = [(seat + j) % p for j in range(p)]  # relative seats
    assert block(ref.rules, x, "bid_tally").tolist() == [v for q in order for v in BID_TALLY[q]]
    assert block(ref.rules, x, "call_tally").tolist() == [v for q in order for v in CALL_TALLY[q]]
    assert block(ref.rules, x, "token_tally").tolist() == [
        v for q in order for v in TOKEN_TALLY[q]]
    caller = block(ref.rules, x, "last_caller").tolist()
    assert caller.index(1.0) == (1 - seat) % p and sum(caller) == 1
    assert block(ref.rules, x, "last_bid_count").tolist() == [8.0]
    table = block(ref.rules, x, "last_bid_table").reshape(p, R.NUM_FRUITS)
    assert [table[(q - seat) % p, APRICOT] for q in range(p)] == [8, 3, 5, 7]


def ref_tensor(ref: ReferenceGame, s, seat: int) -> np.ndarray:
    obs = {k: np.asarray(v)[None] for k, v in ref.observe(s, seat).items()}
    return O.to_tensor(ref.rules, obs)[0]


def test_memory_showdown_tallies_survive_the_next_deal_and_many_decisions():
    ref, s, st = play_both(scenario, QdvGame, EXACT_ROUND, **EXACT)
    assert s.num_rounds == 1 and s.call == R.CALL_NONE and s.bid_history == []  # new round
    for seat in range(4):
        check_remembered(ref, s, st, seat)
    keep_bidding(ref, QdvGame(ref.rules), s, st, 9)
    assert s.num_rounds == 1 and not s.done and len(s.bid_history) >= 8
    check_remembered(ref, s, st, s.current_player)
    # the flat tensor of the vectorised engine carries the same memory
    np.testing.assert_array_equal(QdvGame(ref.rules).observation_tensor(st)[0],
                                  ref_tensor(ref, s, s.current_player))


def test_memory_tallies_add_up_over_showdowns():
    # round 1 as above; round 2 from the seed: seat 0 (first bidder of round 2) is tallied again
    ref, s, st = play_both(scenario, QdvGame, EXACT_ROUND, **EXACT)
    vg = QdvGame(ref.rules)
    keep_bidding(ref, vg, s, st, 3)
    bidders = [b[0] for b in s.bid_history]
    a = R.MENTEUR if R.MENTEUR in ref.legal_actions(s) else R.VRAI
    caller = s.current_player
    ref.apply(s, a)
    vg.step(st, np.array([a]))
    while s.phase == R.PHASE_SALADS:  # declarations, if any salad is held
        act = ref.legal_actions(s)[0]
        ref.apply(s, act)
        vg.step(st, np.array([act]))
    assert_same_game(vg, ref, st, [s], where="second showdown")
    obs = ref.observe(s, 0)
    made = [BID_TALLY[q][0] + bidders.count(q) for q in range(4)]
    assert obs["bid_tally"][:, 0].tolist() == made
    assert obs["call_tally"].sum() == 2
    assert obs["call_tally"][caller].sum() == sum(CALL_TALLY[caller]) + 1
    assert (obs["bid_tally"][:, 1] + obs["bid_tally"][:, 2] <= obs["bid_tally"][:, 0]).all()


def test_memory_token_challenge_loss_is_remembered_after_the_round():
    # seat 2 passes the start and loses a token to `token`; the round ends; the tally stays
    hands = [["cherry"], ["cherry x2"], ["grape x2"], ["banana"]]
    ref, s, st = play_both(scenario, QdvGame, ["+1 banana", "+1 grape", "menteur"],
                           hands=hands, centre="strawberry", tokens=[7, 7, 7, 7],
                           challenges=["token"])
    # bid 3 grapes by seat 2, count 2: seat 2 loses 2 more at the showdown
    assert s.tokens == [7, 7, 4, 7] and s.num_rounds == 1
    keep_bidding(ref, QdvGame(ref.rules), s, st, 5)
    obs = ref.observe(s)
    assert obs["token_tally"][2].tolist() == [1, 2, 0, 0, 0]
    assert obs["call_tally"][3].tolist() == [0, 0, 1, 0]  # seat 3's menteur was right
    assert obs["called_tally"][2].tolist() == [0, 0, 1, 0]
    # seat 1 bid 2 bananas (card count 1: seat 3's banana), seat 2 bid 3 grapes (count 2)
    assert obs["bid_tally"][1].tolist() == [1, 1, 0, 1, 0]
    assert obs["bid_tally"][2].tolist() == [1, 1, 0, 1, 2]
