"""The qdv ``heuristic`` compiled: one game's decision read from the engine's records.

``heuristic_action(g, h, r, deck_counts, params, exp, scratch)`` returns, for the current
player of the game held in the records ``g`` (``kernels.STATE_DTYPE``) and ``h``
(``kernels.HOT_DTYPE``), exactly the action ``QdvHeuristic.act`` (``agents/qdv/heuristic.py``, the readable
specification) returns from the structured observation: the same visible pool
(``agents.qdv.common.visible``), the same expected counts (``QdvHeuristic.expected_counts``)
with the floats computed by the same ``+ - * /`` in the same order, and the same two
uniforms of the agent's stream (``AgentRNG.uniform(2)``: words 0 and 1 of
(game seed, ``Stream.AGENT + seat``, decision)).  ``params`` is float64[5] in
``PARAMS`` order.  ``tests/test_fused_agents.py`` checks the two agree action for action.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bluffsim import rng_nb as rn
from bluffsim.games.qdv import rules as R

# the agent's parameters in the order of the ``params`` row handed to the kernel
PARAMS = ("call_margin", "exact_window", "bluff", "switch_gain", "salad_weight")
CALL_MARGIN, EXACT_WINDOW, BLUFF, SWITCH_GAIN, SALAD_WEIGHT = range(len(PARAMS))

K = R.NUM_KINDS
F = R.NUM_FRUITS
SALAD = R.SALAD
MULT = R.MAX_MULT
VRAI, MENTEUR, START0, SALADS0 = R.VRAI, R.MENTEUR, R.START0, R.SALADS0
PH_START, PH_BID, PH_SALADS, PH_REWARD = (R.PHASE_START, R.PHASE_BID, R.PHASE_SALADS,
                                          R.PHASE_REWARD)
CALL_MENTEUR = R.CALL_MENTEUR


def deck_counts(rules_rec: np.ndarray) -> np.ndarray:
    """int64[K]: cards of each kind in the deck of a rules record (``kernels.rules_record``)."""
    r = rules_rec[0]
    return np.bincount(r["deck"][:int(r["deck_size"])].astype(np.int64), minlength=K)


@njit(cache=True)
def expected_counts(g, h, r, deck_counts, salad_weight, out, known, unseen_value):
    """``out`` (float64[F]): ``QdvHeuristic.expected_counts`` for the current player;
    ``known`` and ``unseen_value`` (int64[F]) are scratch."""
    p = r.num_players
    me = np.int64(h.current_player)
    seat = max(me, 0)
    hidden = np.int64(0)
    for s in range(p):
        hidden += g.hand_sizes[s]
    hidden -= g.hand_sizes[seat]
    centre = max(np.int64(g.centre), 0)
    total_unseen = np.int64(0)
    salad_unseen = np.int64(0)
    my_salads = np.int64(0)
    for f in range(F):
        known[f] = 0
        unseen_value[f] = 0
    for k in range(K):
        mine = np.int64(g.hands[me, k]) if me >= 0 else np.int64(0)
        rev = np.int64(0)
        dis = np.int64(0)
        for s in range(p):
            rev += g.revealed[s, k]
            dis += g.discarded[s, k]
        rev -= g.revealed[seat, k]  # others' face-up cards
        hidden -= rev
        seen = mine + rev + dis + (1 if k == centre else 0)
        unseen = max(deck_counts[k] - seen, 0)
        total_unseen += unseen
        if k == SALAD:
            salad_unseen = unseen
            my_salads = mine
        else:
            f = k // MULT
            m = k % MULT + 1
            known[f] += (mine + rev) * m
            unseen_value[f] += unseen * m
    hidden = max(hidden, 0)
    c = np.int64(g.centre)  # the centre card's value (a centre salad: 1 on the start fruit)
    if c == SALAD:
        if g.start >= 0:
            known[np.int64(g.start)] += 1
    elif c >= 0:
        known[c // MULT] += c % MULT + 1
    denom = np.float64(max(total_unseen, 1))
    salad_share = salad_weight * np.float64(salad_unseen)
    for f in range(F):
        per_card = (np.float64(unseen_value[f]) + salad_share) / denom
        out[f] = np.float64(known[f] + my_salads) + np.float64(hidden) * per_card


@njit(cache=True)
def argmax(x):
    """First index of the largest entry (``np.argmax``)."""
    best = 0
    for i in range(1, x.shape[0]):
        if x[i] > x[best]:
            best = i
    return best


@njit(cache=True)
def declare_salads(g, h):
    """``heuristic.declare_salads`` for the current player: all salads if I am the accused
    bidder, none if I called menteur, as many as make the count exact if I said vrai."""
    me = np.int64(h.current_player)
    held = np.int64(g.hands[me, SALAD])
    short = min(max(np.int64(g.bid_count) - np.int64(g.showdown_count), 0), held)
    menteur = g.call == CALL_MENTEUR
    k = 0
    if g.caller == me:
        k = 0 if menteur else short
    elif g.bidder == me and menteur:
        k = held
    return SALADS0 + k


@njit(cache=True)
def heuristic_action(g, h, r, deck_counts, params, exp, scratch):
    """``QdvHeuristic.act`` for game (``g``, ``h``); ``exp`` (float64[F]) and ``scratch``
    (int64[2, F]) are scratch."""
    ph = h.phase
    if ph == PH_REWARD:
        return np.int64(r.gain_id)
    if ph == PH_SALADS:
        return declare_salads(g, h)
    expected_counts(g, h, r, deck_counts, params[SALAD_WEIGHT], exp, scratch[0], scratch[1])
    if ph == PH_START:
        return START0 + argmax(exp)
    me = np.int64(h.current_player)
    sub = rn.major_key(rn.agent_key(h.seed, me), np.int64(h.num_decisions))
    u0 = rn.uniform(rn.minor_word(sub, 0))
    u1 = rn.uniform(rn.minor_word(sub, 1))
    count = np.int64(g.bid_count)
    fruit = max(np.int64(g.bid_fruit), 0)
    e_bid = exp[fruit]
    best = argmax(exp)
    target = best if exp[best] - e_bid > params[SWITCH_GAIN] else fruit
    if u0 < params[BLUFF]:
        target = np.int64(u1 * np.float64(F))
    can_raise = h.mask[target] != 0
    menteur = h.mask[MENTEUR] != 0 and (count - e_bid > params[CALL_MARGIN] or not can_raise)
    if menteur:
        return np.int64(MENTEUR)
    vrai = abs(count - e_bid) <= params[EXACT_WINDOW] or not can_raise
    if vrai and h.mask[VRAI] != 0:
        return np.int64(VRAI)
    return target


@njit(cache=True)
def act_kernel(data, hot, rules, deck_counts, params, out):
    """``out[b]``: ``heuristic_action`` of every running game of the batch (-1 once over)."""
    r = rules[0]
    exp = np.empty(F)
    scratch = np.empty((2, F), np.int64)
    for b in range(data.shape[0]):
        h = hot[b]
        if h.terminated or h.truncated:
            out[b] = -1
        else:
            out[b] = heuristic_action(data[b], h, r, deck_counts, params, exp, scratch)
