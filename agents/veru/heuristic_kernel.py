"""The veru ``heuristic`` compiled: one game's decision read from the engine's records.

``heuristic_action(g, h, r, params)`` returns, for the current player of the game held in
the records ``g`` (``kernels.STATE_DTYPE``) and ``h`` (``kernels.HOT_DTYPE``), exactly the
action ``VeruHeuristic.act`` (``agents/veru/heuristic.py``, the readable specification)
returns from the structured observation: the same announce, putting and responding rules,
the same uniform of the agent's stream (``AgentRNG.uniform(1)``: word 0 of (game seed,
``Stream.AGENT + seat``, decision)), the genuine chance by the same ``+ * /`` in the same
order and ``t ** count`` by ``fmath.pow`` (as ``fmath.pow_u`` in the agent).  ``params`` is
float64[4] in ``PARAMS`` order.  ``tests/test_fused_veru.py`` checks the two agree action
for action.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bluffsim import fmath as fm
from bluffsim import rng_nb as rn
from bluffsim.games import drivers as DR
from bluffsim.games.veru import rules as R

# the agent's parameters in the order of the ``params`` row handed to the kernel
PARAMS = ("bluff", "trust", "joker_slack", "record")
BLUFF, TRUST, JOKER_SLACK, RECORD = range(len(PARAMS))

T = R.NUM_TYPES
N = R.ANNOUNCEABLE
ACE, JOKER = R.ACE, R.JOKER
ANNOUNCE0, PUT0, DONE, BELIEVE, DISBELIEVE = (R.ANNOUNCE0, R.PUT0, R.DONE, R.BELIEVE,
                                              R.DISBELIEVE)
PH_ANNOUNCE, PH_PUT, PH_RESPOND = R.PHASE_ANNOUNCE, R.PHASE_PUT, R.PHASE_RESPOND


@njit(cache=True)
def lie_card(g, me, rank):
    """``heuristic.lie_card`` for seat ``me``: an ace if held, else a card of my thinnest rank
    other than ``rank`` (lowest type on ties), else my most plentiful card (first on ties)."""
    if g.hands[me, ACE] > 0:
        return np.int64(ACE)
    thin = -1
    thin_n = 99
    for t in range(T):
        n = np.int64(g.hands[me, t])
        if t == JOKER or t == rank or n <= 0:
            continue
        if n < thin_n:
            thin, thin_n = t, n
    if thin >= 0:
        return np.int64(thin)
    best = 0
    for t in range(1, T):
        if g.hands[me, t] > g.hands[me, best]:
            best = t
    return np.int64(best)


@njit(cache=True)
def fitting_left(g, r, me, rank, slack):
    """``heuristic.fitting_left``: four plus ``slack`` minus the naturals of ``rank`` I know are
    elsewhere (hand, my Bank, out face up, mine out unseen, known to sit in a hand)."""
    known = (np.int64(g.hands[me, rank]) + np.int64(g.bank[me, rank])
             + np.int64(g.discard_seen[rank]) + np.int64(g.hidden_out[me, rank]))
    for q in range(r.num_players):
        known += g.known[me, q, rank]
    return 4 + slack - known


@njit(cache=True)
def genuine_chance(g, r, me, trust, record):
    """``heuristic.genuine_chance``: ``trust`` updated by the others' checked claims, then by
    the claimant's (sums of small integers in float64: exact in any order)."""
    if record <= 0:
        return trust
    cl = max(np.int64(g.claimant), 0)
    false_n = 0.0
    true_n = 0.0
    for q in range(r.num_players):
        if q == me:
            continue
        false_n += np.float64(g.claim_checks[q, 0])
        true_n += np.float64(g.claim_checks[q, 1])
    own_false = 0.0
    own_true = 0.0
    if cl != me:
        own_false = np.float64(g.claim_checks[cl, 0])
        own_true = np.float64(g.claim_checks[cl, 1])
    rec = np.float64(record)
    t0 = (trust * rec + true_n) / (rec + (false_n + true_n))
    return (t0 * rec + own_true) / (rec + (own_false + own_true))


@njit(cache=True)
def heuristic_action(g, h, r, params):
    """``VeruHeuristic.act`` for game (``g``, ``h``)."""
    ph = h.phase
    me = max(np.int64(h.current_player), 0)
    if ph == PH_ANNOUNCE:
        best = 0
        best_v = np.int64(-1) if g.closed[0] else np.int64(g.hands[me, 0])
        for k in range(1, N):
            v = np.int64(-1) if g.closed[k] else np.int64(g.hands[me, k])
            if v > best_v:
                best, best_v = k, v
        return np.int64(ANNOUNCE0 + best)
    if ph != PH_PUT and ph != PH_RESPOND:
        return np.int64(0)
    rank = max(np.int64(g.claim_rank), 0)
    count = np.int64(g.table_n)
    left = fitting_left(g, r, me, rank, np.int64(params[JOKER_SLACK]))
    if ph == PH_RESPOND and count > left:  # impossible: doubt, before adding true cards
        return np.int64(DISBELIEVE)
    if g.hands[me, rank] > 0:  # true cards first: naturals, then Jokers
        return np.int64(PUT0 + rank)
    if g.hands[me, JOKER] > 0:
        return np.int64(PUT0 + JOKER)
    if ph == PH_PUT:
        if g.put_count > 0:
            sub = rn.major_key(rn.agent_key(h.seed, np.int64(h.current_player)),
                               np.int64(h.num_decisions))
            if not rn.uniform(rn.minor_word(sub, 0)) < params[BLUFF]:
                return np.int64(DONE)
        return PUT0 + lie_card(g, me, rank)
    # responding without a true card
    t = genuine_chance(g, r, me, params[TRUST], np.int64(params[RECORD]))
    others = count
    for q in range(r.num_players):
        for k in range(T):
            others += g.bank[q, k]
    for k in range(T):
        others -= g.bank[me, k]
    cap = np.float64(left) / np.float64(max(others, 1))
    cap = min(max(cap, 0.0), 1.0)
    if cap < t:
        t = cap
    if fm.pow(t, np.float64(max(count, 1))) > 0.5:
        return np.int64(BELIEVE)
    return np.int64(DISBELIEVE)


@njit(cache=True)
def act_kernel(data, hot, rules, params, out):
    """``out[b]``: ``heuristic_action`` of every running game of the batch (-1 once over)."""
    DR.act_loop(heuristic_action, data, hot, rules, params, out)
