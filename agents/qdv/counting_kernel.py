"""The qdv ``counting`` policy compiled with numba: the agent's one implementation.

``counting_policy`` (``agents.policy``'s contract) decides on the observation record with a
scratch record of its own (``decide_row``): salads and the exact-call reward by
rule; in the start-choice and bidding phases, from the beliefs (``beliefs_row``: the visible
pool and class tuples, the bid-evidence tilts, each fruit's tilted count posterior), the called
posterior of the bid fruit (``called_row``) and the expected value of every legal action
(``action_values``), the first best action.  ``model_rows_batch`` runs those same functions on a
batch of observations and hands back what they computed (``counting.model_rows``: the fitting
script and the tests).

Floating-point order: every sum adds its terms first to last (``ordered_sum``; the call model's
four terms likewise), the order ``bluffsim.fmath``'s contract fixes per row.

The memo tables (``counting.CountTable``) are filled here: a class tuple met for the first time
is computed by ``hidden_value_row`` (exact, checked against enumeration in
``tests/qdv/test_counting.py``) and stored in the next free row.  When a table is full the
policy returns ``MEMO_FULL`` (``model_rows_batch`` the row it stopped at); the caller grows the
tables and asks again.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.combinatorics import log_choose_at as log_choose
from agents.policy import MEMO_FULL, act_loop
from bluffsim import fmath as fm
from bluffsim.games.qdv import rules as R
from bluffsim.games.records import kernel_records

NUM_FRUITS, MAX_MULT, SALAD = 6, 3, 18
VRAI, MENTEUR, START0 = 12, 13, 14
PHASE_START, PHASE_BID, PHASE_SALADS, PHASE_REWARD = 0, 1, 2, 3
CALL_MENTEUR, SALADS0 = 1, 20
MENTEUR_RIGHT, MENTEUR_WRONG = 2, 3
BID_TALLY, CALL_TALLY = R.BID_TALLY, R.CALL_TALLY

# indices of the float parameters of the policy (``QdvCounting.params_row``)
(P_SPITE, P_ELIM, P_RISK, P_M1, P_V1, P_FIRST, P_BETA_SCALE, P_BETA_PRIOR_MASS, P_BETA_BIDS,
 P_W0, P_W1, P_W2, P_W3, P_RATE_MASS, P_RATE_WEIGHT, P_EVIDENCE, P_SALAD_STEPS) = range(17)
NUM_PARAMS = 17


@njit(cache=True, inline="always")
def ordered_sum(a, n):
    """Sum of ``a[:n]``, first to last (the fixed order of ``bluffsim.fmath``'s contract)."""
    acc = 0.0
    for i in range(n):
        acc += a[i]
    return acc


@njit(cache=True)
def hidden_value_row(lc, n1, n2, n3, ns, n_total, h, face_up, salad_p, out, comp_p, comp_base,
                     comp_s, partial, w):
    """Fill ``out[:w]`` (``w`` = W, the memo's width) with the value distribution of one class tuple: the
    multivariate hypergeometric probability of each composition (k1, k2, k3, ks) of the
    ``h`` cards drawn from the pool (fruit cards ×1, ×2, ×3, salads, the rest), each drawn or
    face-up salad of the others counted with probability ``salad_p``; values ``>= W - 1`` fold
    into the last bin.  Order of operations (kept for the bits): compositions in lexicographic
    (k1, k2, k3, ks) order, one partial sum per declared-salad count j; exact-zero terms
    (impossible compositions, zero salad weights) are skipped, which leaves a sum of
    non-negative terms unchanged."""
    n_other = n_total - n1 - n2 - n3 - ns
    top = log_choose(lc, n_total, h)
    c = 0
    for k1 in range(n1 + 1):
        for k2 in range(n2 + 1):
            for k3 in range(n3 + 1):
                for ks in range(ns + 1):
                    rest = h - k1 - k2 - k3 - ks
                    if rest < 0 or rest > n_other:
                        continue  # log C = -inf: probability exactly 0
                    comp_p[c] = fm.exp(log_choose(lc, n1, k1) + log_choose(lc, n2, k2)
                                         + log_choose(lc, n3, k3) + log_choose(lc, ns, ks)
                                         + log_choose(lc, n_other, rest) - top)
                    comp_base[c] = k1 + 2 * k2 + 3 * k3
                    comp_s[c] = ks + face_up
                    c += 1
    smax = ns + face_up
    # salad weights C(s, j) q^j (1 - q)^(s - j)
    weight = np.zeros((smax + 1, smax + 1))
    for sal in range(smax + 1):
        for j in range(sal + 1):
            weight[sal, j] = (fm.exp(log_choose(lc, sal, j)) * fm.pow(salad_p, j)
                              * fm.pow(1 - salad_p, sal - j))
    for v in range(w):
        out[v] = 0.0
    for j in range(smax + 1):
        for v in range(w):
            partial[v] = 0.0
        for i in range(c):
            sal = comp_s[i]
            if j <= sal and weight[sal, j] != 0.0:
                partial[min(comp_base[i] + j, w - 1)] += comp_p[i] * weight[sal, j]
        for v in range(w):
            out[v] += partial[v]


@njit(cache=True, inline="always")
def group_slot(gkeys, g):
    """Slot of key group ``g`` in the open-addressing table ``gkeys`` (int64[G], -1 = empty,
    ``G`` a power of two, linear probing); ``-slot - 1`` of the empty slot where it would go
    when absent."""
    mask = gkeys.size - 1
    i = np.int64((np.uint64(g) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)) & mask
    while True:
        k = gkeys[i]
        if k == g:
            return i
        if k < 0:
            return -i - 1
        i = (i + 1) & mask


@njit(cache=True, inline="always")
def memo_probe(gkeys, buckets, key, inner):
    """The memo row of ``key`` (``memo_row``'s first step, inlined: no call on a hit), or -1
    when the table does not hold it yet."""
    s = group_slot(gkeys, key // inner)
    return np.int64(buckets[s, key % inner]) if s >= 0 else np.int64(-1)


@njit(cache=True)
def memo_rehash(gkeys, buckets, new_gkeys, new_buckets):
    """Move every group of (``gkeys``, ``buckets``) into the larger empty table ``new_*``."""
    for i in range(gkeys.size):
        if gkeys[i] >= 0:
            s = -group_slot(new_gkeys, gkeys[i]) - 1
            new_gkeys[s] = gkeys[i]
            new_buckets[s, :] = buckets[i]


@njit(cache=True)
def memo_row(gkeys, buckets, cdf, below, fill, key, cls, f, salad_p, lc, comp_p, comp_int, pmf,
             partial):
    """The memo row of class tuple ``cls[f]`` (``cls`` int64[F, 7]) under ``key``, computing and storing it
    when new; -1 when the table is full (the caller grows it).  Keys
    are grouped by all but the fruit's own classes (``CountTable``): one hash probe finds
    the group, ``buckets[slot, key % inner]`` the row.  ``comp_p`` (float64[C]),
    ``comp_int`` (int64[2, C]), ``pmf`` and ``partial`` (float64, at least W) are scratch.
    ``beliefs_row`` probes for a stored row itself (the same hash and probing) and calls
    this only when the row is missing: a call's array arguments cost atomic reference counts."""
    inner = buckets.shape[1]
    g = key // inner
    s = group_slot(gkeys, g)
    if s >= 0:
        r = buckets[s, key % inner]
        if r >= 0:
            return np.int64(r)
    r = fill[0]
    if r >= cdf.shape[0] or (s < 0 and 2 * (fill[1] + 1) > gkeys.size):
        return np.int64(-1)
    if s < 0:
        s = -s - 1
        gkeys[s] = g
        fill[1] += 1
    w = cdf.shape[1] - 1
    hidden_value_row(lc, cls[f, 0], cls[f, 1], cls[f, 2], cls[f, 3], cls[f, 4], cls[f, 5],
                     cls[f, 6], salad_p, pmf, comp_p, comp_int[0], comp_int[1], partial, w)
    cdf[r, 0] = 0.0
    below[r, 0] = 0.0
    acc = pmf[0]
    acc_below = pmf[0] * 0
    cdf[r, 1] = acc
    below[r, 1] = acc_below
    for u in range(1, w):
        acc += pmf[u]
        acc_below += pmf[u] * u
        cdf[r, u + 1] = acc
        below[r, u + 1] = acc_below
    buckets[s, key % inner] = r
    fill[0] = r + 1
    return np.int64(r)


@njit(cache=True, inline="always")
def tilt_max(tilt, w):
    """``max_u tilt · u`` over ``u < w``, each product as the weights use it."""
    tmax = -np.inf
    for u in range(w):
        t = tilt * np.float64(u)
        if t > tmax:
            tmax = t
    return tmax


@njit(cache=True, inline="always")
def tilt_exps(tilt, w, expw):
    """``expw[u] = exp(tilt · u − max_u tilt · u)`` for ``u < w``: the tilt's weights as
    ``tilt_row`` uses them."""
    tmax = tilt_max(tilt, w)
    for u in range(w):
        expw[u] = fm.exp(tilt * np.float64(u) - tmax)


@njit(cache=True, inline="always")
def tilt_row(src, srow, tilt, want_below, cdf_out, crow, below_out, brow, expw, have_exps, pmf):
    """Tilt one memo row (``src[srow]``, its cdf, float64[W+1]) by ``exp(tilt · u)``, normalise,
    and write its cdf to ``cdf_out[crow]`` (and ``below`` to ``below_out[brow]`` if
    ``want_below``): a tilted fruit's posterior.  ``expw`` holds the weights
    (``tilt_exps``) when ``have_exps``; otherwise each is computed where the untilted mass is
    not zero (a zero mass stays 0.0 whatever its weight).  Rows are passed as (2-D array, row)
    rather than as views: a view costs two atomic reference-count updates."""
    w = src.shape[1] - 1
    if have_exps:
        for u in range(w):
            pmf[u] = (src[srow, u + 1] - src[srow, u]) * expw[u]
    else:
        tmax = tilt_max(tilt, w)
        for u in range(w):
            d = src[srow, u + 1] - src[srow, u]
            pmf[u] = d * fm.exp(tilt * np.float64(u) - tmax) if d != 0.0 else d
    mass = max(ordered_sum(pmf, w), 1e-300)
    for u in range(w):
        pmf[u] /= mass
    cdf_out[crow, 0] = 0.0
    acc = pmf[0]
    cdf_out[crow, 1] = acc
    for u in range(1, w):
        acc += pmf[u]
        cdf_out[crow, u + 1] = acc
    if want_below:
        below_out[brow, 0] = 0.0
        acc = pmf[0] * 0.0
        below_out[brow, 1] = acc
        for u in range(1, w):
            acc += pmf[u] * np.float64(u)
            below_out[brow, u + 1] = acc


@njit(cache=True, inline="always")
def gather(arr, row, known, t, w):
    """``arr[row, clip(t − known, 0, w)]``: a cumulative table at count ``t`` (int or float)."""
    u = min(max(t - known, 0), w)
    return arr[row, np.int64(u)]


@njit(cache=True, inline="always")
def shortfall(cdf, below, row, known, t, w):
    """E[(t − T + 1) · 1(T < t)]: the loss when ``T`` falls short of ``t``."""
    return (t + 1 - known) * gather(cdf, row, known, t, w) - gather(below, row, known, t, w)


@njit(cache=True, inline="always")
def short_cost(cdf, below, row, known, t, tokens, elim_cost, w):
    """E[stake(t − T + 1, tokens) · 1(T < t)]: the cost of falling short of ``t`` (exact, by
    gathers: the part above ``tokens`` is cut, elimination added)."""
    x = t + 1 - tokens
    return (shortfall(cdf, below, row, known, t, w) - shortfall(cdf, below, row, known, x, w)
            + gather(cdf, row, known, x, w) + elim_cost * gather(cdf, row, known, min(x + 1, t), w))


@njit(cache=True, inline="always")
def stake(loss, tokens, elim_cost):
    """Cost of losing ``loss`` tokens (>= 0) with ``tokens`` left: ``min(loss, tokens)`` plus
    ``elim_cost`` if it eliminates."""
    elim = 1.0 if (loss >= tokens and loss > 0) else 0.0
    return min(np.float64(loss), tokens) + elim_cost * elim


@njit(cache=True, inline="always")
def logit(p):
    """log(p / (1 − p)), clipped away from 0 and 1."""
    p = min(max(p, 1e-4), 1 - 1e-4)
    return fm.log(p / (1 - p))


@njit(cache=True, inline="always")
def visible_row(o, seat, sc):
    """Fill ``sc.others_revealed`` and ``sc.unseen`` (int64[K]) and ``sc.known`` (int64[F]) from
    the observation ``o`` and return the number of hidden cards in the other hands: the cards I
    see (my hand, the others' face-up cards, the discards, the centre) leave ``unseen`` of the
    deck; ``known`` is the value of each fruit I see (a centre salad counts for the start
    fruit)."""
    deck, value, others_revealed, unseen, known = (sc.deck, sc.value, sc.others_revealed,
                                                   sc.unseen, sc.known)
    hand, hand_sizes, revealed = o.hand, o.hand_sizes, o.revealed
    nk = deck.size
    nf = known.size
    players = sc.players
    for k in range(nk):
        rev = 0
        disc = 0
        for p in range(players):
            rev += np.int64(revealed[p, k])
            disc += np.int64(o.discarded[p, k])
        others_revealed[k] = rev - np.int64(revealed[seat, k])
        unseen[k] = np.int64(hand[k]) + others_revealed[k] + disc
    c = np.int64(o.centre)
    unseen[max(c, 0)] += 1
    for k in range(nk):
        unseen[k] = max(deck[k] - unseen[k], 0)
    sizes = 0
    rev_total = 0
    for p in range(players):
        sizes += np.int64(hand_sizes[p])
    for k in range(nk):
        rev_total += others_revealed[k]
    hidden_cards = max(sizes - np.int64(hand_sizes[seat]) - rev_total, 0)
    for f in range(nf):
        v = 0
        for k in range(nk):
            v += (np.int64(hand[k]) + others_revealed[k]) * value[k, f]
        known[f] = v
    # the centre card (a centre salad is the start fruit)
    cc = min(max(c, 0), nk - 1)
    if c == SALAD:
        s = np.int64(o.start)
        if s >= 0:
            known[s] += 1
    else:
        for f in range(nf):
            known[f] += value[cc, f]
    return hidden_cards


@njit(cache=True, inline="always")
def seat_hidden(o, seat, sc):
    """Fill ``sc.hidden[:players]``: each other seat's cards hidden from me (0 for me); return
    their sum."""
    hand_sizes, revealed, hidden = o.hand_sizes, o.revealed, sc.hidden
    players = sc.players
    for p in range(players):
        rev = 0.0
        for k in range(revealed.shape[1]):
            rev += np.float64(revealed[p, k])
        hidden[p] = max(np.float64(hand_sizes[p]) - rev, 0.0)
    hidden[seat] = 0.0
    total = 0.0
    for p in range(players):
        total += hidden[p]
    return total


@njit(cache=True, inline="always")
def fruit_tilts_row(o, seat, prm, sc):
    """Fill ``sc.tilt`` (float64[F]) from the observation ``o``: each seat's ``beta_j`` from its
    bid tally (moment matching, shrunk to the prior), then ``Σ_j log(1 − q_j + q_j e^{beta_j})``
    over the seats other than me that bid the fruit this round (``counting``'s docstring); and
    ``sc.hidden`` as ``seat_hidden``; return their sum."""
    hidden, bid_on, tilt = sc.hidden, sc.bid_on, sc.tilt
    bid_history, bid_tally, hand_sizes = o.bid_history, o.bid_tally, o.hand_sizes
    players = sc.players
    nf = tilt.size
    total = seat_hidden(o, seat, sc)
    denom = max(total, 1.0)
    for p in range(players):
        for f in range(nf):
            bid_on[p, f] = 0
    for i in range(sc.history):
        who = np.int64(bid_history[i, 0])
        if who >= 0 and who != np.int64(o.seat):
            bid_on[who, np.int64(bid_history[i, 2])] = 1
    for f in range(nf):
        tilt[f] = 0.0
    for p in range(players):
        any_bid = False
        for f in range(nf):
            any_bid |= bid_on[p, f] != 0
        if not any_bid:
            continue  # its term would be 0.0 · (a finite term) = ±0.0: no change
        bids = np.float64(bid_tally[p, 0])
        support = np.float64(bid_tally[p, 4])
        h = max((np.float64(hand_sizes[p]) + prm[P_FIRST]) / 2, 1.0)
        excess = support - bids * h * prm[P_M1]
        beta_hat_bids = prm[P_BETA_SCALE] * excess / (h * prm[P_V1])
        beta = (beta_hat_bids + prm[P_BETA_PRIOR_MASS]) / (bids + prm[P_BETA_BIDS])
        beta = min(max(beta, -1.0), 3.0)
        q = hidden[p] / denom
        per_seat = fm.log1p(q * fm.expm1(beta))
        for f in range(nf):
            if bid_on[p, f] != 0:
                tilt[f] += 1.0 * per_seat
    return total


@njit(cache=True, inline="always")
def next_seat_row(o, seat, players):
    """The seat that answers my bid (next in turn order still in the round)."""
    d = np.int64(o.direction)
    for k in range(1, players):
        cand = (seat + d * k) % players
        if o.in_round[cand]:
            return cand
    return seat


@njit(cache=True, inline="always")
def declare_salads_row(o):
    """Salad declaration helping my side of the call (``heuristic.declare_salads``): all if I
    am the accused bidder, none if I called menteur, as many as make the count exact if I
    said vrai."""
    seat = np.int64(o.seat)
    held = np.int64(o.hand[SALAD])
    short = min(max(np.int64(o.bid_count) - np.int64(o.showdown_count), 0), held)
    i_called = np.int64(o.caller) == seat
    menteur = np.int64(o.call) == CALL_MENTEUR
    if i_called:
        k = 0 if menteur else short
    else:
        k = held if (np.int64(o.bidder) == seat and menteur) else 0
    return SALADS0 + k


@njit(cache=True, inline="always")
def reward_row(o, mask, seat, players, gain_id, punish0):
    """The exact-call reward: punish the nearest opponent (in seat
    order after me) left with 1 token, else gain 1."""
    for k in range(1, players):
        act = punish0 + k - 1
        if o.tokens[(seat + k) % players] == 1 and mask[act]:
            return act
    return gain_id


def scratch_dtype(kinds: int, width: int, players: int, actions: int, max_comp: int
                  ) -> np.dtype:
    """The record ``decide_row`` writes beside the observation it reads: the deck's constants
    and its per-row scratch, its arrays sized to bounds (``width``, ``players``, ``actions``,
    ``max_comp``; the table's own sizes are fields).  A record is passed by pointer and its
    array fields carry no reference count: numba increfs and decrefs (two atomic operations)
    every array it passes to a function or binds to a new name, and with arrays allocated per
    call those and the allocations took more than half the time of a decision."""
    f, w, p = NUM_FRUITS, width, players
    return np.dtype([
        # constants: the deck's kinds, their values, the memo key strides and ``logit`` of the
        # probabilities it clips (``logit(0.0)``, ``logit(1.0)``: same function, same bits)
        ("deck", np.int64, (kinds,)), ("value", np.int64, (kinds, f)), ("strides", np.int64, (7,)),
        ("logit_lo", np.float64), ("logit_hi", np.float64),
        # the table's seats, bid history length, actions and memo width (the arrays below, like
        # the observation record, are sized to bounds: one compiled policy for every table)
        ("players", np.int64), ("history", np.int64), ("actions", np.int64), ("width", np.int64),
        # scratch
        ("others_revealed", np.int64, (kinds,)), ("unseen", np.int64, (kinds,)),
        ("known", np.int64, (f,)), ("cls", np.int64, (f, 7)), ("keys", np.int64, (f,)),
        ("pcdf", np.float64, (f, w + 1)), ("pbelow", np.float64, (f, w + 1)),
        ("tilt", np.float64, (f,)), ("hidden", np.float64, (p,)), ("bid_on", np.uint8, (p, f)),
        ("expw", np.float64, (w,)), ("tmp", np.float64, (w,)), ("pmf_b", np.float64, (w,)),
        ("pm", np.float64, (w,)), ("cdf_k", np.float64, (1, w + 1)), ("mean", np.float64, (f,)),
        ("values", np.float64, (actions,)), ("feats", np.float64, (2 * f, 4)),
        ("comp_p", np.float64, (max_comp,)),
        ("comp_int", np.int64, (2, max_comp)), ("partial", np.float64, (w,)),
        ("fresh", np.float64, (w,)),
        # ``model_rows_batch``: whether ``decide_row`` models the row instead of deciding, and
        # what ``beliefs_row`` returned there besides its status
        ("model", np.uint8), ("hidden_total", np.float64), ("shared", np.uint8)], align=True)


def new_scratch(deck: np.ndarray, value: np.ndarray, strides: np.ndarray,
                sizes: tuple[int, int, int, int], bounds: tuple[int, int, int, int]
                ) -> np.ndarray:
    """A 1-element array of ``scratch_dtype`` with the deck's constants filled in: ``sizes``
    the table's (players, bid history length, actions, memo width), ``bounds`` the (players,
    actions, memo width, compositions) its arrays are sized to, so that the tables of a game
    share one record type (one compiled policy)."""
    players, actions, width, max_comp = bounds
    out = np.zeros(1, scratch_dtype(deck.size, width, players, actions, max_comp))
    out[0]["players"], out[0]["history"], out[0]["actions"], out[0]["width"] = sizes
    out[0]["deck"] = deck
    out[0]["value"] = value
    out[0]["strides"] = strides
    out[0]["logit_lo"] = logit(0.0)
    out[0]["logit_hi"] = logit(1.0)
    return kernel_records(out)


@njit(cache=True)
def counting_policy(obs, mask, key, r, params, ctx):
    """``QdvCounting``'s choice (``agents.policy``'s contract): ``decide_row`` on the
    observation; ``MEMO_FULL`` when a memo table ran full (nothing decided: grow the tables
    and ask again).  ``ctx``: the scratch record (``new_scratch``), the log-binomial table and
    the memo tables' five tuples of arrays (``counting.memo_arrays``)."""
    scratch, lc, gkeys_l, buckets_l, cdfs_l, belows_l, fills_l = ctx
    a = decide_row(obs, mask, scratch[0], lc, params, gkeys_l, buckets_l, cdfs_l, belows_l,
                   fills_l, r.gain_id, r.punish0)
    if a == -1:
        return np.int64(MEMO_FULL)
    return a if a >= 0 else np.int64(0)


@njit(cache=True)
def act_kernel(records, mask, keys, rules, params, ctx, out):
    """``counting_policy`` on every row (``agents.policy.act_loop``)."""
    act_loop(counting_policy, records, mask, keys, rules, params, ctx, out)


@njit(cache=True, inline="always")
def beliefs_row(o, mask, sc, lc, prm, gkeys_t, buckets_t, cdfs, belows, fills):
    """The beliefs of the observation ``o`` (legal ``mask``) into the scratch record ``sc``: the
    visible pool, each fruit's class tuple and memo key (``cls``, ``keys``, ``known``), the
    bid-evidence tilts (``tilt``, ``hidden``) and the posterior of every fruit's count (``pcdf``,
    ``pbelow``, ``mean``; no salad of the others counted: table 0).  Returns (-1 when a memo
    table ran full, else 0; the hidden cards of the other seats; whether the bid fruit's tilt
    weights are shared with its called posterior, ``called_row``)."""
    nk = sc.deck.size
    nf = NUM_FRUITS
    evidence = prm[P_EVIDENCE] != 0.0
    strides = sc.strides
    others_revealed, unseen, known, cls, keys = (sc.others_revealed, sc.unseen, sc.known, sc.cls,
                                                 sc.keys)
    pcdf, pbelow, tilt = sc.pcdf, sc.pbelow, sc.tilt
    expw, tmp, mean = sc.expw, sc.tmp, sc.mean
    # memo-fill scratch: composition probabilities, bases and salads, the pmf and a partial
    comp_p, comp_int, partial, fresh = sc.comp_p, sc.comp_int, sc.partial, sc.fresh
    for f in range(nf):
        tilt[f] = 0.0
    # table 0's arrays (the fill counter only on a miss: each array taken costs reference counts)
    gkeys0, buckets0, cdf0, below0 = gkeys_t[0], buckets_t[0], cdfs[0], belows[0]
    w = cdf0.shape[1] - 1
    inner = buckets0.shape[1]
    ph = np.int64(o.phase)
    seat = max(np.int64(o.seat), 0)
    hidden_cards = visible_row(o, seat, sc)
    pool_total = 0
    for k in range(nk):
        pool_total += unseen[k]
    for f in range(nf):
        cls[f, 0] = unseen[f * MAX_MULT]
        cls[f, 1] = unseen[f * MAX_MULT + 1]
        cls[f, 2] = unseen[f * MAX_MULT + 2]
        cls[f, 3] = unseen[SALAD]
        cls[f, 4] = pool_total
        cls[f, 5] = hidden_cards
        cls[f, 6] = others_revealed[SALAD]
        key = 0
        for i in range(7):
            key += cls[f, i] * strides[i]
        keys[f] = key
    if evidence:
        hidden_total = fruit_tilts_row(o, seat, prm, sc)
    else:
        hidden_total = seat_hidden(o, seat, sc)
    # the bid fruit's tilt weights serve its posterior and its called posterior
    fruit = max(np.int64(o.bid_fruit), 0)
    shared = ph == PHASE_BID and evidence and tilt[fruit] != 0.0 and mask[MENTEUR]
    if shared:
        tilt_exps(tilt[fruit], w, expw)
    # the posterior of every fruit: memo rows, tilted where the bids are evidence
    for f in range(nf):
        key = keys[f]
        r = memo_probe(gkeys0, buckets0, key, inner)
        if r < 0:
            r = memo_row(gkeys0, buckets0, cdf0, below0, fills[0], key, cls, f, 0.0, lc,
                         comp_p, comp_int, fresh, partial)
        if r < 0:
            return np.int64(-1), hidden_total, shared
        if evidence and tilt[f] != 0.0:
            tilt_row(cdf0, r, tilt[f], True, pcdf, f, pbelow, f, expw,
                     shared and f == fruit, tmp)
        else:
            for u in range(w + 1):
                pcdf[f, u] = cdf0[r, u]
                pbelow[f, u] = below0[r, u]
        mean[f] = pbelow[f, w] + known[f]
    return np.int64(0), hidden_total, shared


@njit(cache=True, inline="always")
def called_row(o, sc, lc, prm, gkeys_t, buckets_t, cdfs, belows, fills, hidden_total, shared):
    """The called posterior of the bid fruit into ``pm`` (its pmf over ``T = known + u``): the
    bidder declares their salads, each salad hidden from me is theirs with probability = their
    share of the hidden cards (rounded to 1/steps: memo table ``k``), tilted as the posterior.
    -1 when a memo table ran full, else 0."""
    evidence = prm[P_EVIDENCE] != 0.0
    steps = prm[P_SALAD_STEPS]
    inner = buckets_t[0].shape[1]
    keys, cls, tilt, hidden, expw, tmp, pm, cdf_k = (sc.keys, sc.cls, sc.tilt, sc.hidden, sc.expw,
                                                     sc.tmp, sc.pm, sc.cdf_k)
    comp_p, comp_int, partial, fresh = sc.comp_p, sc.comp_int, sc.partial, sc.fresh
    fruit = max(np.int64(o.bid_fruit), 0)
    who = np.int64(o.bidder)
    share = hidden[max(who, 0)] / max(hidden_total, 1.0) if who >= 0 else 0.0
    k = np.int64(np.rint(min(max(share, 0.0), 1.0) * steps))
    cdf_called = cdfs[k]
    w = cdf_called.shape[1] - 1
    gk = gkeys_t[k]
    bk = buckets_t[k]
    key = keys[fruit]
    r = memo_probe(gk, bk, key, inner)
    if r < 0:
        r = memo_row(gk, bk, cdf_called, belows[k], fills[k], key, cls, fruit,
                     np.float64(k) / steps, lc, comp_p, comp_int, fresh, partial)
    if r < 0:
        return np.int64(-1)
    if evidence and tilt[fruit] != 0.0:
        tilt_row(cdf_called, r, tilt[fruit], False, cdf_k, 0, cdf_k, 0, expw, shared, tmp)
        for u in range(w):
            pm[u] = cdf_k[0, u + 1] - cdf_k[0, u]
    else:
        for u in range(w):
            pm[u] = cdf_called[r, u + 1] - cdf_called[r, u]
    return np.int64(0)


@njit(cache=True, inline="always")
def p_call(x0, x1, x2, x3, w0, w1, w2, w3):
    """Probability the next seat calls ``menteur`` on my bid: the logistic call model of the
    features (1, logit P(bid false), logit of its call rate, the bid's surprise)."""
    z = x0 * w0 + x1 * w1 + x2 * w2 + x3 * w3
    return 1.0 / (1.0 + fm.exp(-z))


@njit(cache=True, inline="always")
def action_values(o, mask, sc, lc, prm, gkeys_t, buckets_t, cdfs, belows, fills, hidden_total,
                  shared, want_features):
    """The expected value of every legal bidding action into ``values`` (-inf elsewhere), from
    the observation ``o`` (legal ``mask``) and the beliefs ``beliefs_row`` left in ``sc``; with
    ``want_features`` the call model's features of every bid (legal or not) into ``feats`` (the
    fit, the tests).  -1 when a memo table ran full, else 0."""
    nk = sc.deck.size
    nf = NUM_FRUITS
    na = sc.actions
    seat = max(np.int64(o.seat), 0)
    hand, tokens, bid_tally, call_tally = o.hand, o.tokens, o.bid_tally, o.call_tally
    players = sc.players
    value = sc.value
    logit_lo, logit_hi = sc.logit_lo, sc.logit_hi
    known, pcdf, pbelow, tmp, pmf_b, pm, mean, values, feats = (
        sc.known, sc.pcdf, sc.pbelow, sc.tmp, sc.pmf_b, sc.pm, sc.mean, sc.values, sc.feats)
    w = sc.width
    mine = np.float64(tokens[seat])
    m = np.int64(hand[SALAD])
    n_in = 0
    for p in range(players):
        n_in += 1 if o.in_round[p] else 0
    spite = prm[P_SPITE] / max(n_in - 1, 1)
    ec = prm[P_ELIM]
    bid = np.int64(o.bid_count)
    fruit = max(np.int64(o.bid_fruit), 0)
    who = np.int64(o.bidder)
    theirs = np.float64(tokens[max(who, 0)])
    kf = known[fruit]
    for u in range(w):
        pmf_b[u] = pcdf[fruit, u + 1] - pcdf[fruit, u]
    for a in range(na):
        values[a] = -np.inf
    if mask[MENTEUR]:
        # menteur: I declare no salads, the bidder all of theirs (the called posterior); I lose
        # T-b+1 if T >= b, else the bidder loses b-T+1
        if called_row(o, sc, lc, prm, gkeys_t, buckets_t, cdfs, belows, fills, hidden_total,
                      shared) < 0:
            return np.int64(-1)
        for u in range(w):
            t = kf + u
            if t >= bid:
                v = -stake(t - bid + 1, mine, ec)
            else:
                v = spite * stake(bid - t + 1, theirs, ec)
            tmp[u] = pm[u] * v
        values[MENTEUR] = ordered_sum(tmp, w)
    if mask[VRAI]:
        # vrai: exact when b-m <= T <= b (my salads close the gap), else I lose the distance + 1
        for u in range(w):
            t = kf + u
            if t <= bid and t >= bid - m:
                v = 1.0
            else:
                miss = (t - bid if t > bid else bid - m - t) + 1
                v = -stake(miss, mine, ec)
            tmp[u] = pmf_b[u] * v
        values[VRAI] = ordered_sum(tmp, w)
    # bids: called with probability p_call; then I lose b'-T-m+1 when T + m falls short
    nxt = next_seat_row(o, seat, sc.players)
    calls = 0.0
    for c in range(call_tally.shape[1]):
        calls += np.float64(call_tally[nxt, c])
    menteur = np.float64(call_tally[nxt, MENTEUR_RIGHT]) + np.float64(call_tally[nxt,
                                                                             MENTEUR_WRONG])
    rate = ((menteur + prm[P_RATE_MASS])
            / (calls + np.float64(bid_tally[nxt, 0]) + prm[P_RATE_WEIGHT]))
    lrate = logit(rate)
    size_m1 = np.float64(o.hand_sizes[seat]) * prm[P_M1]
    one_stake = stake(1.0, mine, ec)
    st = np.int64(o.start)
    to_start = (st - fruit) % nf
    for f in range(nf):
        # the next seat's view of the fruit: my posterior mean with my own cards replaced by
        # their fair share (it cannot see them)
        mine_f = 0.0
        for k in range(nk):
            mine_f += np.float64(np.int64(hand[k]) * value[k, f])
        seen_next = mean[f] - mine_f + size_m1
        steps_f = (f - fruit) % nf
        crosses = 1.0 if (f != fruit and to_start >= 1 and to_start <= steps_f) else 0.0
        risk = prm[P_RISK] * crosses * one_stake
        for raise_by in range(1, 3):
            a = (raise_by - 1) * nf + f
            if not want_features and not mask[a]:
                continue
            target = bid + raise_by - m
            loss = short_cost(pcdf, pbelow, f, known[f], target, mine, ec, w)
            if loss == 0.0 and not want_features:
                # -p_call · loss is then a zero of sign -sign(loss) for any p_call in [0, 1]
                # (finite inputs): the same bits without the call model's log and exp
                values[a] = -1.0 * loss - risk
                continue
            p_false = gather(pcdf, f, known[f], target, w)
            if p_false <= 1e-4:  # logit clips it to 1e-4: its value, computed once
                lp = logit_lo
            elif p_false >= 1 - 1e-4:  # clipped to 1 - 1e-4
                lp = logit_hi
            else:
                lp = logit(p_false)
            surprise = np.float64(bid + raise_by) - seen_next
            if want_features:
                feats[a, 0], feats[a, 1], feats[a, 2], feats[a, 3] = 1.0, lp, lrate, surprise
                if not mask[a]:
                    continue
                if loss == 0.0:
                    values[a] = -1.0 * loss - risk
                    continue
            pc = p_call(1.0, lp, lrate, surprise, prm[P_W0], prm[P_W1], prm[P_W2], prm[P_W3])
            values[a] = -pc * loss - risk
    return np.int64(0)


@njit(cache=True)
def decide_row(o, mask, sc, lc, prm, gkeys_t, buckets_t, cdfs, belows, fills, gain_id, punish0):
    """The action on the observation ``o`` (legal ``mask``), with the scratch record ``sc``
    (``scratch_dtype``): -1 when a memo table ran full (nothing decided; the caller grows the
    tables and asks again), -2 in a phase this agent does not decide.  The memo tables' arrays
    come in tuples (index = salad step, ``counting.memo_arrays``).  With ``sc.model`` set
    (``model_rows_batch``), whatever the phase: the beliefs, every action's value and the call
    model's features into ``sc``, no decision (0, or -1 when a memo table ran full).  The flag
    is a field, not an argument, so that both callers run one compiled kernel."""
    nf = NUM_FRUITS
    na = sc.actions
    ph = np.int64(o.phase)
    model = sc.model != 0
    if not model:
        if ph == PHASE_SALADS:
            return np.int64(declare_salads_row(o))
        if ph == PHASE_REWARD:
            return np.int64(reward_row(o, mask, max(np.int64(o.seat), 0), sc.players, gain_id,
                                        punish0))
        if ph != PHASE_BID and ph != PHASE_START:
            return np.int64(-2)
    status, hidden_total, shared = beliefs_row(o, mask, sc, lc, prm, gkeys_t, buckets_t, cdfs,
                                               belows, fills)
    if status < 0:
        return np.int64(-1)
    mean = sc.mean
    if ph == PHASE_START and not model:
        # the start: the fruit with the largest expected count
        best = 0
        for f in range(1, nf):
            if mean[f] > mean[best]:
                best = f
        return np.int64(START0 + best)
    # one call site (numba inlines it): a second would compile it into this kernel twice
    if action_values(o, mask, sc, lc, prm, gkeys_t, buckets_t, cdfs, belows, fills, hidden_total,
                     shared, model) < 0:
        return np.int64(-1)
    if model:
        sc.hidden_total = hidden_total
        sc.shared = shared
        return np.int64(0)
    values = sc.values
    best = 0
    for a in range(1, na):
        if values[a] > values[best]:
            best = a
    return np.int64(best)


@njit(cache=True)
def model_rows_batch(records, masks, rules, params, ctx, step, first, known, tilt, cdf, below, prior,
                 called, feats, values):
    """The model of ``counting_policy`` on rows ``first, first + 1, …`` of the observation
    ``records`` (legal masks ``masks``, uint8): the very functions the policy runs
    (``decide_row`` with ``model``: ``beliefs_row`` and ``action_values``, then ``called_row``),
    whatever the phase, for the fitting script and the tests.  Row ``b``: ``known[b]`` and
    ``tilt[b]`` (int64/float64[F]), the posterior's ``cdf[b]`` and ``below[b]`` (float64[F, W+1]:
    ``P(H < u)``, ``E[H · 1(H < u)]`` of ``T = known + H``),
    ``prior[b]`` (the untilted cdf of memo table ``step``: salads of the others counted with
    probability ``step / SALAD_STEPS``), ``called[b]`` (float64[W]: the bid fruit's called
    posterior), ``feats[b]`` (float64[12, 4]: the call model's features of each bid) and
    ``values[b]`` (float64[A]: each legal action's expected value, -inf elsewhere).  Returns
    the row where a memo table ran full (grow the tables, call again from there), else -1."""
    scratch, lc, gkeys_t, buckets_t, cdfs, belows, fills = ctx
    sc = scratch[0]
    nf = NUM_FRUITS
    w = cdfs[0].shape[1] - 1
    r0 = rules[0]
    for b in range(first, records.shape[0]):
        o, mask = records[b], masks[b]
        sc.model = 1
        status = decide_row(o, mask, sc, lc, params, gkeys_t, buckets_t, cdfs, belows, fills,
                            r0.gain_id, r0.punish0)
        sc.model = 0
        if status < 0:
            return b
        hidden_total, shared = sc.hidden_total, sc.shared != 0
        for f in range(nf):
            r = memo_row(gkeys_t[step], buckets_t[step], cdfs[step], belows[step], fills[step],
                         sc.keys[f], sc.cls, f, np.float64(step) / params[P_SALAD_STEPS], lc,
                         sc.comp_p, sc.comp_int, sc.fresh, sc.partial)
            if r < 0:
                return b
            for u in range(w + 1):
                prior[b, f, u] = cdfs[step][r, u]
        if called_row(o, sc, lc, params, gkeys_t, buckets_t, cdfs, belows, fills, hidden_total,
                      shared) < 0:
            return b
        for f in range(nf):
            known[b, f] = sc.known[f]
            tilt[b, f] = sc.tilt[f]
            for u in range(w + 1):
                cdf[b, f, u] = sc.pcdf[f, u]
                below[b, f, u] = sc.pbelow[f, u]
        for u in range(w):
            called[b, u] = sc.pm[u]
        for a in range(feats.shape[1]):
            for c in range(4):
                feats[b, a, c] = sc.feats[a, c]
        for a in range(values.shape[1]):
            values[b, a] = sc.values[a]
    return np.int64(-1)


@njit(cache=True)
def p_call_rows(features, weights, out):
    """``out[i]``: ``p_call`` of the features ``features[i]`` (float64[N, 4]) with the call model
    ``weights`` (the fitting script's calibration table of the fitted weights)."""
    w0, w1, w2, w3 = weights[0], weights[1], weights[2], weights[3]
    for i in range(features.shape[0]):
        x = features[i]
        out[i] = p_call(x[0], x[1], x[2], x[3], w0, w1, w2, w3)
