"""The veru ``counting`` decisions compiled with numba: one loop over the rows of the batch.

``decide_kernel`` computes, for every row, exactly what the numpy reference
(``VeruCounting.act_reference``) computes, in the same floating-point operation order, so
the actions are bit-identical: announcing and true cards as the heuristic (``bluff=0``),
``respond`` (``claim_probability`` -> expected values, the lie by ``doubt_probability``)
and ``pad`` (``doubt_probability`` of the claim now and padded), with the model pieces
(``seat_rates``, ``reckless``, ``unseen_counts``, ``hand_pool``, ``smooth_pmf``,
``held_at_least``, ``next_in_turn``, ``fitting_probability``, ``_doubt_base`` / ``_doubt_x``)
written for one row.

Floating point.  ``exp`` / ``log`` / ``pow`` are ``bluffsim.fmath``'s (plain IEEE arithmetic,
the same bits on every CPU; the reference calls the same functions as ufuncs), never libm or
numpy's SIMD math, so a decision depends on neither the CPU nor the batch size.  Row sums of
fewer than eight floats are added left to right from 0.0 (numpy's pairwise sum below its
block of 8).  The logistic models' weighted sums are
``linear_row``, left to right one term at a time, as the reference's ``agents.linear``
(never BLAS, whose order depends on the batch, the thread count and the CPU).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from agents.combinatorics import TABLE_N
from bluffsim import fmath as fm

# veru constants (``bluffsim.games.veru.rules``)
ACE, JOKER, NUM_TYPES, ANNOUNCEABLE = 12, 13, 14, 12
ANNOUNCE0, PUT0, DONE, BELIEVE, DISBELIEVE = 0, 12, 26, 27, 28
PHASE_ANNOUNCE, PHASE_PUT, PHASE_RESPOND = 0, 1, 2

# indices of the float parameters handed to ``decide_kernel`` (``VeruCounting.kernel_params``)
(P_OPEN, P_RIVAL, P_ADD_MARGIN, P_LIE_MARGIN, P_LOG_FALSE, P_LOG_TRUE, P_PRIOR) = range(7)
NUM_PARAMS = 7

@njit(cache=True, inline="always")
def linear_row(x, w, m):
    """``x[:m] @ w[:m]`` added left to right, one term at a time (``agents.linear``)."""
    acc = x[0] * w[0]
    for i in range(1, m):
        acc = acc + x[i] * w[i]
    return acc


@njit(cache=True, inline="always")
def log_choose(table, n, k):
    """log C(n, k) from ``LOG_CHOOSE`` (``agents.combinatorics.log_choose`` for one pair)."""
    if n < 0:
        return table[0, 0]
    return table[n, min(max(k + 1, 0), TABLE_N)]


@njit(cache=True, inline="always")
def hypergeom_pmf(table, pool, good, draws, x):
    """P(X = x), X ~ Hypergeometric(pool, good, draws) (``agents.combinatorics.hypergeom_pmf``)."""
    return fm.exp(log_choose(table, good, x) + log_choose(table, pool - good, draws - x)
                    - log_choose(table, pool, draws))


@njit(cache=True, inline="always")
def smooth_pmf(table, pool, good, draws, x):
    """``counting.smooth_pmf`` for one row: linear between ``good``'s integer neighbours."""
    lo = math.floor(good)
    w = good - lo
    ilo = np.int64(lo)
    return (1 - w) * hypergeom_pmf(table, pool, ilo, draws, x) + w * hypergeom_pmf(
        table, pool, ilo + 1, draws, x)


@njit(cache=True, inline="always")
def logit(x):
    """``counting._logit`` for one value."""
    x = min(max(x, 1e-4), 1 - 1e-4)
    return fm.log(x / (1 - x))


@njit(cache=True, inline="always")
def sigmoid_of(z):
    """``1.0 / (1.0 + exp(-z))`` as the numpy models write it."""
    return 1.0 / (1.0 + fm.exp(-z))


@njit(cache=True, inline="always")
def honesty_of(claims_checked, b, p):
    """``seat_rates`` honesty of seat ``p`` in row ``b``."""
    f = np.float64(claims_checked[b, p, 0])
    t = np.float64(claims_checked[b, p, 1])
    return (t + 1.0) / ((f + t) + 2.0)


@njit(cache=True, inline="always")
def checks_of(checks, b, p):
    """Sum of seat ``p``'s four check tallies (exact: small integers as floats)."""
    return ((np.float64(checks[b, p, 0]) + np.float64(checks[b, p, 1]))
            + np.float64(checks[b, p, 2])) + np.float64(checks[b, p, 3])


@njit(cache=True, inline="always")
def add_of(claims, checks, b, p):
    """``seat_rates`` add rate of seat ``p`` in row ``b``."""
    added = np.float64(claims[b, p, 1])
    return (added + 1.0) / ((added + checks_of(checks, b, p)) + 2.0)


@njit(cache=True, inline="always")
def doubt_of(checks, b, p):
    """``seat_rates`` doubt rate of seat ``p`` in row ``b``."""
    return ((np.float64(checks[b, p, 2]) + np.float64(checks[b, p, 3])) + 1.0) / (
        checks_of(checks, b, p) + 2.0)


@njit(cache=True, inline="always")
def reckless_of(claims_checked, b, p, prm):
    """``reckless`` posterior of seat ``p`` in row ``b``."""
    llr = (np.float64(claims_checked[b, p, 0]) * prm[P_LOG_FALSE]
           + np.float64(claims_checked[b, p, 1]) * prm[P_LOG_TRUE])
    return 1.0 / (1.0 + fm.exp(-min(max(llr + prm[P_PRIOR], -30.0), 30.0)))


@njit(cache=True)
def hand_pool_row(b, hand, my_table, my_bank, discard_seen, discard_hidden, claim_rank,
                  claimant, claim_count, seat, bank_sizes, claims_checked, jokers):
    """(pool, good) of row ``b``: ``unseen_counts`` then ``hand_pool`` (honesty from
    ``seat_rates``), same operation order."""
    rank = max(np.int64(claim_rank[b]), 0)
    total = 0
    rank_left = 0
    joker_left = 0
    for t in range(NUM_TYPES):
        deck = jokers if t == JOKER else 4
        known = (np.int64(hand[b, t]) + np.int64(my_table[b, t]) + np.int64(my_bank[b, t])
                 + np.int64(discard_seen[b, t]))
        left = max(deck - known, 0)
        total += left
        if t == rank:
            rank_left = left
        if t == JOKER:
            joker_left = left
    apparent = max(total, 1)
    pool = max(apparent - jokers - np.int64(discard_hidden[b]), 1)
    good = np.float64(rank_left + joker_left) * (np.float64(pool) / np.float64(apparent))
    players = bank_sizes.shape[1]
    me = max(np.int64(seat[b]), 0)
    fit = 0.0
    out_cards = 0
    for p in range(players):
        bank = 0 if p == me else np.int64(bank_sizes[b, p])
        fit += np.float64(bank) * honesty_of(claims_checked, b, p)
        out_cards += bank
    cl_raw = np.int64(claimant[b])
    table = np.int64(claim_count[b]) if (cl_raw >= 0 and cl_raw != me) else 0
    cl = max(cl_raw, 0)
    fit = fit + np.float64(table) * honesty_of(claims_checked, b, cl)
    out_cards += table
    hp = max(pool - out_cards, 1)
    hg = min(max(good - fit, 0.0), np.float64(hp))
    return hp, hg


@njit(cache=True, inline="always")
def next_seat(b, seat, out, step):
    """``next_in_turn`` for row ``b``: the first seat after me in turn order not finished."""
    players = out.shape[1]
    me = max(np.int64(seat[b]), 0)
    for j in range(1, players):
        s = (me + step * j) % players
        if not out[b, s]:
            return s
    return (me + step) % players


@njit(cache=True)
def doubt_base_row(b, hp, hg, hand_sizes, out, seat, claim_rank, claim_count, discard_seen,
                   discard_hidden, num_rounds, bank_sizes, claims, checks, claims_checked, step,
                   fit_w, table, prm, base, feats):
    """Fill ``base`` with ``_doubt_base`` of row ``b``: q, logit add, logit doubt, seen, bank,
    r, per_answer, logit structured (``fitting_probability`` through ``linear_row``)."""
    nxt = next_seat(b, seat, out, step)
    hand = min(np.int64(hand_sizes[b, nxt]), hp)
    lq = logit(1.0 - smooth_pmf(table, hp, hg, hand, 0))
    feats[0] = 1.0
    feats[1] = lq
    feats[2] = np.float64(discard_hidden[b]) / 10.0
    feats[3] = np.float64(num_rounds[b]) / 10.0
    feats[4] = np.float64(claim_count[b])
    q = sigmoid_of(linear_row(feats, fit_w, 5))
    add = add_of(claims, checks, b, nxt)
    doubt = doubt_of(checks, b, nxt)
    rank = max(np.int64(claim_rank[b]), 0)
    r = reckless_of(claims_checked, b, nxt, prm)
    structured = doubt * ((1 - r) * (1 - q) + r * (1 - add))
    answers = (checks_of(checks, b, nxt) + np.float64(claims[b, nxt, 1])) + 2.0
    disbelieved = (np.float64(checks[b, nxt, 2]) + np.float64(checks[b, nxt, 3])) + 1.0
    bank = 0
    for p in range(bank_sizes.shape[1]):
        bank += np.int64(bank_sizes[b, p])
    base[0] = q
    base[1] = logit(add)
    base[2] = logit(doubt)
    base[3] = np.float64(discard_seen[b, rank])
    base[4] = np.float64(bank) / 10.0
    base[5] = r
    base[6] = logit(disbelieved / answers)
    base[7] = logit(structured)


@njit(cache=True)
def doubt_row(base, k, doubt_w, feats):
    """``doubt_probability`` of a claim of ``k`` cards from the row's ``base`` (``_doubt_x``)."""
    q, add, dl, seen, bank, r, per_answer, ls = (base[0], base[1], base[2], base[3], base[4],
                                                 base[5], base[6], base[7])
    fk = np.float64(k)
    km1 = np.float64(k - 1)
    feats[0] = 1.0
    feats[1] = 1.0 if k == 2 else 0.0
    feats[2] = 1.0 if k == 3 else 0.0
    feats[3] = q
    feats[4] = add
    feats[5] = dl
    feats[6] = dl * km1
    feats[7] = (seen + fk) / 4.0
    feats[8] = bank
    feats[9] = r
    feats[10] = r * q
    feats[11] = r * km1
    feats[12] = (1 - q) * dl
    feats[13] = (1 - q) * km1
    feats[14] = per_answer
    feats[15] = r * per_answer
    feats[16] = (1 - q) * km1 * dl
    feats[17] = q * dl
    feats[18] = ls
    feats[19] = ls * (1.0 if k == 1 else 0.0)
    return sigmoid_of(linear_row(feats, doubt_w, 20))


@njit(cache=True, inline="always")
def first_max(hand, b, n):
    """Index of the first largest of ``hand[b, :n]`` (``argmax``)."""
    best = 0
    for t in range(1, n):
        if hand[b, t] > hand[b, best]:
            best = t
    return best


@njit(cache=True)
def heuristic_lie(hand, b, rank):
    """``heuristic.lie_card`` for row ``b``: an ace, else my thinnest other rank, else my most
    plentiful card."""
    if hand[b, ACE] > 0:
        return ACE
    thin = 0
    best = 99
    for t in range(NUM_TYPES):
        c = np.int64(hand[b, t]) if hand[b, t] > 0 else 99
        if t == JOKER or t == rank:
            c = 99
        if c < best:
            best, thin = c, t
    if best == 99:
        return first_max(hand, b, NUM_TYPES)
    return thin


@njit(cache=True, inline="always")
def heuristic_row(b, phase, hand, closed, claim_rank, put_count):
    """(action, model) of row ``b`` as the heuristic with ``bluff=0`` plays it — announce the
    open rank I hold most; put true cards, else open with a lie — and which expected-value rule
    decides it instead: 1 respond, 2 pad (a putting turn with no true card left), 0 none."""
    ph = phase[b]
    rank = max(np.int64(claim_rank[b]), 0)
    if ph == PHASE_ANNOUNCE:
        best = 0
        best_v = -1 if closed[b, 0] else np.int64(hand[b, 0])
        for t in range(1, ANNOUNCEABLE):
            v = -1 if closed[b, t] else np.int64(hand[b, t])
            if v > best_v:
                best, best_v = t, v
        return ANNOUNCE0 + best, 0
    if ph == PHASE_PUT:
        if hand[b, rank] > 0:
            return PUT0 + rank, 0
        if hand[b, JOKER] > 0:
            return PUT0 + JOKER, 0
        if put_count[b] > 0:
            return DONE, 2
        return PUT0 + heuristic_lie(hand, b, rank), 0
    if ph == PHASE_RESPOND:
        return 0, 1
    return 0, 0


@njit(cache=True, inline="always")
def lie_card_row(hand, b):
    """The card type counting lies with (``VeruCounting.lie_card``): an ace, else my most
    plentiful type."""
    return ACE if hand[b, ACE] > 0 else first_max(hand, b, NUM_TYPES)


@njit(cache=True, inline="always")
def claim_probability_row(b, hp, hg, bank, count, hand_sizes, claimant, claims, checks,
                          claims_checked, cards_claimed, table, hon_w, prm, feats):
    """``claim_probability`` of row ``b``: the reckless claimant's chance mixed with the honesty
    model of ``honesty_features`` (built in ``feats``)."""
    k = max(count, 1)
    cl = max(np.int64(claimant[b]), 0)
    share = hg / hp
    before = np.int64(hand_sizes[b, cl]) + k
    hpk = hp + k
    hgk = hg + k * share
    draws = min(before, hpk)
    below = 0.0
    for x in range(3):
        if x < k:
            below += smooth_pmf(table, hpk, hgk, draws, x)
    held = min(max(1.0 - below, 0.0), 1.0)
    h = logit(honesty_of(claims_checked, b, cl))
    n_claims = np.float64(np.int64(claims[b, cl, 0]) + np.int64(claims[b, cl, 1]))
    per_claim = np.float64(cards_claimed[b, cl]) / max(n_claims, 1.0)
    a = logit(add_of(claims, checks, b, cl))
    r = reckless_of(claims_checked, b, cl, prm)
    fk = np.float64(k)
    feats[0] = 1.0
    feats[1] = 1.0 if k == 2 else 0.0
    feats[2] = 1.0 if k == 3 else 0.0
    feats[3] = 1.0 if bank > 0 else 0.0
    feats[4] = np.float64(hand_sizes[b, cl]) / 10.0
    feats[5] = share
    feats[6] = held
    feats[7] = h
    feats[8] = h * held
    feats[9] = a
    feats[10] = per_claim - 1.5
    feats[11] = r
    feats[12] = r * held
    feats[13] = r * fm.pow(share, fk)
    truth = fm.pow(0.5 * hg / hp, fk)
    return r * truth + (1 - r) / (1.0 + fm.exp(-linear_row(feats, hon_w, 14)))


@njit(cache=True, inline="always")
def respond_row(b, p, d1, count, bank, hand, claim_rank, prm):
    """``VeruCounting.respond`` for row ``b``: believe, disbelieve, add my true cards or add a
    lie, by expected value in cards with the whole pot (claim + Bank) as the stake."""
    rank = max(np.int64(claim_rank[b]), 0)
    pot = count + bank
    fpot = np.float64(pot)
    o, rv = prm[P_OPEN], prm[P_RIVAL]
    ev_believe = p * o - (1 - p) * fpot
    ev_doubt = (1 - p) * (o + rv * fpot) - p * fpot
    check = BELIEVE if ev_believe >= ev_doubt else DISBELIEVE
    ev_check = max(ev_believe, ev_doubt)
    natural = np.int64(hand[b, rank])
    true_cards = min(natural + np.int64(hand[b, JOKER]), 3)
    ev_lie = 1.0 - d1 * np.float64(pot + 1)
    held_cards = 0
    for t in range(NUM_TYPES):
        held_cards += np.int64(hand[b, t])
    lie_ok = (ev_lie - prm[P_LIE_MARGIN] > ev_check) and held_cards > 0
    best_other = ev_lie if lie_ok else ev_check
    if true_cards > 0 and np.float64(true_cards) + prm[P_ADD_MARGIN] >= best_other:
        return PUT0 + rank if natural > 0 else PUT0 + JOKER
    if lie_ok:
        return PUT0 + lie_card_row(hand, b)
    return check


@njit(cache=True, inline="always")
def pad_row(b, d_now, d_pad, count, bank, my_table, hand, claim_rank, prm):
    """``VeruCounting.pad`` for row ``b``: add one more lie (an ace first) when the cards it
    sheds outweigh the larger pot a doubt would hand back, else stop."""
    rank = max(np.int64(claim_rank[b]), 0)
    k = count
    lies = k - np.int64(my_table[b, rank]) - np.int64(my_table[b, JOKER])
    cost_stop = d_now * np.float64(k + bank) if lies > 0 else 0.0
    cost_pad = -1.0 + d_pad * np.float64(k + 1 + bank)
    if cost_pad + prm[P_LIE_MARGIN] < cost_stop and k < 3:
        return PUT0 + lie_card_row(hand, b)
    return DONE


@njit(cache=True)
def decide_kernel(seat, phase, hand, hand_sizes, out, closed, claimant, claim_rank, claim_count,
                  put_count, my_table, bank_sizes, my_bank, discard_seen, discard_hidden,
                  num_rounds, claims, cards_claimed, claims_checked, checks, jokers, step, table,
                  hon_w, doubt_w, fit_w, prm, result, probs):
    """Write every row's action into ``result``: ``VeruCounting.act_reference`` for one row
    at a time (module docstring).  When ``probs`` (float64[B, 3]) has a row per game it also
    gets the model's probabilities: respond rows (``claim_probability``, ``doubt_probability``
    of one card, NaN), pad rows (NaN, ``doubt_probability`` of the claim now and padded);
    other rows are left as they are."""
    n = phase.shape[0]
    keep = probs.shape[0] == n
    model_of = np.zeros(n, np.int8)   # 1: respond, 2: pad (heuristic_row)
    for b in range(n):
        result[b], model_of[b] = heuristic_row(b, phase, hand, closed, claim_rank, put_count)
    feats = np.empty(20)
    base = np.empty(8)
    for b in range(n):
        model = model_of[b]
        if model == 0:
            continue
        bank = 0
        for p in range(bank_sizes.shape[1]):
            bank += np.int64(bank_sizes[b, p])
        count = np.int64(claim_count[b])
        hp, hg = hand_pool_row(b, hand, my_table, my_bank, discard_seen, discard_hidden,
                               claim_rank, claimant, claim_count, seat, bank_sizes,
                               claims_checked, jokers)
        pr = 0.0
        if model == 1:
            pr = claim_probability_row(b, hp, hg, bank, count, hand_sizes, claimant, claims,
                                       checks, claims_checked, cards_claimed, table, hon_w, prm,
                                       feats)
        doubt_base_row(b, hp, hg, hand_sizes, out, seat, claim_rank, claim_count, discard_seen,
                       discard_hidden, num_rounds, bank_sizes, claims, checks, claims_checked,
                       step, fit_w, table, prm, base, feats)
        if model == 1:
            d1 = doubt_row(base, 1, doubt_w, feats)
            if keep:
                probs[b, 0], probs[b, 1], probs[b, 2] = pr, d1, np.nan
            result[b] = respond_row(b, pr, d1, count, bank, hand, claim_rank, prm)
        else:
            d_now = doubt_row(base, count, doubt_w, feats)
            d_pad = doubt_row(base, count + 1, doubt_w, feats)
            if keep:
                probs[b, 0], probs[b, 1], probs[b, 2] = np.nan, d_now, d_pad
            result[b] = pad_row(b, d_now, d_pad, count, bank, my_table, hand, claim_rank, prm)
