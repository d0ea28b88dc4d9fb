"""veru ``counting``: card counting, a per-seat behaviour model and expected value with the real stakes.

Card counting.  The cards I cannot place are the unseen pool: the deck minus my
hand, my cards on the table and in the Bank, and the cards out face up.  Per
type, a card I cannot place may not exist (two naturals became Jokers, some
cards left unseen), so the missing ones are spread over the types in
proportion: ``good`` is the expected number of fitting cards (the rank's
naturals plus Jokers) in the pool (``unseen_counts``).  The others' Bank and
the claim on the table are not in anybody's hand, and they are *claims of this
round's rank* (the Bank only ever holds the running round): each of their cards
fits with its owner's observed honesty rate, so ``hand_pool`` removes them and
their expected fitting cards from the pool the hands are drawn from.  Hands are
uniformly random subsets of that pool, so whether a given player holds ``k``
fitting cards is a hypergeometric term (``next_holds_fitting``, ``held_at_least``;
checked against enumeration in the tests).

Per-seat behaviour model (``seat_rates``, ``reckless``).  Every seat's public
tallies give Beta(1, 1)-smoothed rates, updated online as the game goes: its
*honesty* (checked claims found true / checked), its *add rate* (claims added /
answers) and its *doubt rate* (disbelieves / checks); and the posterior that it
claims like ``random`` (claims true ~4% of the time, against ~50% for a
rule-follower; prior 1/5), from its checked claims.  Three models combine them
with the card counting; their weights (``counting_weights.json``) are fitted by
``experiments/fit_veru_counting.py`` on a mixture of lineups (random, heuristic,
every heuristic extreme, counting), 3-6 players and random seatings:
- ``claim_probability``: the claim on the table is true.  A mixture: with the
  reckless posterior ``r``, a reckless claim is true when each card, a uniform
  pick, fits (half the hands' fitting share per card); otherwise a logistic model
  of a rule-follower (``HONESTY_FEATURES``: claim size, the claimant's honesty, add
  rate and cards per claim, the chance it held ``k`` fitting cards at all, and
  their interactions), fitted with rows weighted by ``1 - r``;
- ``fitting_probability``: the next player holds a fitting card — the uniform-hands
  term recalibrated (players shed a rank's cards whenever it comes up, so hands
  are poorer in the running rank than a uniform slice: the uniform term said 0.5
  where the truth was 0.33);
- ``doubt_probability``: the next player disbelieves a claim of ``k`` cards
  (``DOUBT_FEATURES``: its add and doubt rates, reckless posterior, the chance it
  holds a fitting card, a structured term "a rule-follower checks when it holds no
  fitting card, a reckless one at its own rate", claim size, the rank out face up).

Decisions by expected value in cards (my hand's change; a card an opponent
takes is worth ``rival`` of one of mine; opening the next round ``open_value``).
The stakes of a check are the whole pot ``S`` = claim + Bank.
- respond: believe ``p * open - (1 - p) * S``; disbelieve
  ``(1 - p) * (open + rival * S) - p * S``; add my true cards ``j`` (they can never
  come back); add a lie ``1 - d1 * (S + 1)`` with ``d1`` the next player's doubt
  probability — whichever is best (true cards win ties by ``add_margin``);
- putting: true cards first; out of them, pad with a lie (an ace first) when
  ``-1 + d(k+1) * (k + 1 + B)`` (expected cards back after padding) beats
  ``d(k) * (k + B)`` (after stopping, if the claim already holds a lie) by
  ``lie_margin``;
- announcing: the open rank I hold most (as the heuristic).

Defaults: ``open_value`` 1, margins 0, ``rival`` 0.6 — chosen on the robustness
ladder (``experiments/ladders/run.py``, 1,200 games per table) where it mattered
most, against always-bluffing heuristics at 5-6 players (6p 0.27 -> 0.32 win rate),
checked not to break 3-6 player tables of other opponents; ``lie_margin`` 0.5 and
-0.5 were both worse at 6 players.

One compiled policy (``counting_policy``, ``agents.policy``'s contract) on one observation
record, which ``act`` and the fused loop both run: the heuristic's announce and true cards,
``respond`` and ``pad`` with every model piece above written for one record.  Floating point:
``exp`` / ``log`` / ``pow`` are ``bluffsim.fmath``'s (the same bits on every CPU), sums of fewer
than eight floats are added left to right from 0.0 and the models' weighted sums are
``linear_row``, left to right one term at a time (``agents.linear``, never BLAS), so a decision
depends on neither the CPU nor the batch (docs/float_contract.md).  ``model_rows`` gives the
models' inputs and probabilities on a batched observation (the tests and
``experiments/fit_veru_counting.py`` read them there).

Simplifications: pick-ups I saw are not tracked per card (the seat may have
played them since); all unplaced cards of a type are alike; the chain after the
next player (a later player checking) is ignored, and so is the gain when the next
player believes my lie (it takes the pot); rates are per seat, not per situation
(the logistic models add the situation), so a seat is judged as the mixture's
average until it has a record; the doubt model does not see whom the next player
would be answering (calibration by answering type is loose, see
``tests/veru/test_counting_calibration.py``).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
from numba import njit

from agents.base import Traits, real, register_agent
from agents.combinatorics import LOG_CHOOSE
from agents.combinatorics import log_choose_at as log_choose
from agents.policy import CompiledAgent, act_loop, records_of
from agents.veru.heuristic import VeruHeuristic, complete, lie_card, scripted_move
from bluffsim import fmath as fm
from bluffsim.games.records import kernel_records
from bluffsim.games.veru import observe as O
from bluffsim.games.veru import rules as R
from bluffsim.games.veru.kernels import OBS_BOUNDS, rules_record

WEIGHTS_FILE = Path(__file__).with_name("counting_weights.json")

RECKLESS_PRIOR_LOGIT = fm.log_const(0.2 / 0.8)
# log-likelihood ratio, reckless against rule-following, of one checked claim found false / true
# (a reckless claim is true ~4% of the time, a rule-follower's ~50%)
RECKLESS_LLR_FALSE, RECKLESS_LLR_TRUE = fm.log_const(0.96 / 0.5), fm.log_const(0.04 / 0.5)

HONESTY_FEATURES = ("bias", "claims 2", "claims 3", "adds to a round", "hand size / 10",
                    "fitting share of the hands", "P(held k fitting)", "logit honesty",
                    "logit honesty x P(held)", "logit add rate", "cards per claim - 1.5",
                    "P(reckless)", "P(reckless) x P(held)", "P(reckless) x share ** k")
FITTING_FEATURES = ("bias", "logit P(next holds a fitting card), uniform hands",
                    "cards out unseen / 10", "rounds / 10", "cards in the claim")
DOUBT_FEATURES = ("bias", "claims 2", "claims 3", "P(next holds a fitting card)",
                  "logit next's add rate", "logit next's doubt rate", "logit doubt x (k - 1)",
                  "(rank out face up + k) / 4", "Bank / 10", "P(next reckless)",
                  "P(next reckless) x P(holds)", "P(next reckless) x (k - 1)",
                  "P(holds none) x logit doubt", "P(holds none) x (k - 1)",
                  "logit next's disbelieves per answer", "P(next reckless) x that",
                  "P(holds none) x (k - 1) x logit doubt", "P(holds) x logit doubt",
                  "logit structured doubt", "logit structured doubt x (k == 1)")
NH, NF, ND = len(HONESTY_FEATURES), len(FITTING_FEATURES), len(DOUBT_FEATURES)


def _load_weights() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    data = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))
    return tuple(np.asarray(data[k], np.float64) for k in ("honesty", "doubt", "fitting"))


HONESTY_WEIGHTS, DOUBT_WEIGHTS, FITTING_WEIGHTS = _load_weights()

# the policy's ``params`` row: the configuration, then the reckless model's constants
PARAMS = ("open_value", "rival", "add_margin", "lie_margin")
(P_OPEN, P_RIVAL, P_ADD_MARGIN, P_LIE_MARGIN, P_LOG_FALSE, P_LOG_TRUE, P_PRIOR) = range(7)


def params_row(config: dict) -> list[float]:
    """The policy's ``params``: ``config``'s ``PARAMS``, then the reckless model's constants."""
    return ([float(config[n]) for n in PARAMS]
            + [RECKLESS_LLR_FALSE, RECKLESS_LLR_TRUE, RECKLESS_PRIOR_LOGIT])


def _weights(w: np.ndarray, n: int) -> np.ndarray:
    """A model's weights as the contiguous float64[n] the policy reads."""
    w = np.ascontiguousarray(w, dtype=np.float64)
    if w.shape != (n,):
        raise ValueError(f"expected {n} weights, got shape {w.shape}")
    return w


def context(fitting_weights: np.ndarray | None = None) -> tuple:
    """The policy's ``ctx``: the log-binomial table, the three models' weights (claim, doubt,
    fitting: ``FITTING_WEIGHTS`` unless ``fitting_weights``), scratch for a model's inputs and
    for the doubt model's parts that do not depend on the claim size."""
    fit = FITTING_WEIGHTS if fitting_weights is None else fitting_weights
    return (LOG_CHOOSE, _weights(HONESTY_WEIGHTS, NH), _weights(DOUBT_WEIGHTS, ND),
            _weights(fit, NF), np.empty(ND), np.empty(8))


# ------------------------------------------------------------------ floating-point pieces
@njit(cache=True, inline="always")
def linear_row(x, w, m):
    """``x[:m] @ w[:m]`` added left to right, one term at a time (``agents.linear``)."""
    acc = x[0] * w[0]
    for i in range(1, m):
        acc = acc + x[i] * w[i]
    return acc


@njit(cache=True, inline="always")
def hypergeom_pmf(table, pool, good, draws, x):
    """P(X = x), X ~ Hypergeometric(pool, good, draws) (``agents.combinatorics.hypergeom_pmf``)."""
    return fm.exp(log_choose(table, good, x) + log_choose(table, pool - good, draws - x)
                  - log_choose(table, pool, draws))


@njit(cache=True, inline="always")
def smooth_pmf(table, pool, good, draws, x):
    """``hypergeom_pmf`` with a fractional ``good``: linear between its integer neighbours."""
    lo = math.floor(good)
    w = good - lo
    ilo = np.int64(lo)
    return (1 - w) * hypergeom_pmf(table, pool, ilo, draws, x) + w * hypergeom_pmf(
        table, pool, ilo + 1, draws, x)


@njit(cache=True, inline="always")
def logit(x):
    """log(x / (1 - x)), ``x`` clipped to [1e-4, 1 - 1e-4]."""
    x = min(max(x, 1e-4), 1 - 1e-4)
    return fm.log(x / (1 - x))


@njit(cache=True, inline="always")
def sigmoid(z):
    """``1.0 / (1.0 + exp(-z))``."""
    return 1.0 / (1.0 + fm.exp(-z))


# ------------------------------------------------------------------ per-seat behaviour model
@njit(cache=True, inline="always")
def honesty_of(o, p):
    """Seat ``p``'s Beta(1, 1)-smoothed rate of checked claims found true."""
    f = np.float64(o.claims_checked[p, 0])
    t = np.float64(o.claims_checked[p, 1])
    return (t + 1.0) / ((f + t) + 2.0)


@njit(cache=True, inline="always")
def checks_of(o, p):
    """Seat ``p``'s checks (its four check tallies; exact: small integers as floats)."""
    c = o.checks
    return ((np.float64(c[p, 0]) + np.float64(c[p, 1])) + np.float64(c[p, 2])) + np.float64(c[p, 3])


@njit(cache=True, inline="always")
def add_of(o, p):
    """Seat ``p``'s smoothed rate of responses that added to the claim."""
    added = np.float64(o.claims[p, 1])
    return (added + 1.0) / ((added + checks_of(o, p)) + 2.0)


@njit(cache=True, inline="always")
def doubt_of(o, p):
    """Seat ``p``'s smoothed rate of checks that disbelieved."""
    return ((np.float64(o.checks[p, 2]) + np.float64(o.checks[p, 3])) + 1.0) / (
        checks_of(o, p) + 2.0)


@njit(cache=True, inline="always")
def reckless_of(o, p, prm):
    """Posterior that seat ``p`` claims like ``random`` (claims true ~4% of the time) rather
    than like a rule-follower (~50%), from its checked claims; prior 1/5."""
    llr = (np.float64(o.claims_checked[p, 0]) * prm[P_LOG_FALSE]
           + np.float64(o.claims_checked[p, 1]) * prm[P_LOG_TRUE])
    return 1.0 / (1.0 + fm.exp(-min(max(llr + prm[P_PRIOR], -30.0), 30.0)))


@njit(cache=True, inline="always")
def bank_total(o):
    """Cards in the Bank (the record's seats past the table's hold zeros)."""
    bank = 0
    for p in range(o.bank_sizes.shape[0]):
        bank += np.int64(o.bank_sizes[p])
    return bank


@njit(cache=True, inline="always")
def next_seat(o, r):
    """The first seat after me in turn order (the rules record ``r``'s) that has not finished."""
    players, step = np.int64(r.num_players), np.int64(r.step)
    me = max(np.int64(o.seat), 0)
    for j in range(1, players):
        s = (me + step * j) % players
        if not o.out[s]:
            return s
    return (me + step) % players


# ------------------------------------------------------------------ card counting
@njit(cache=True)
def hand_pool_row(o, r):
    """(pool, good): the unseen cards that sit in the others' hands and the expected fitting
    ones among them (module docstring).  The deck minus what I can place, its missing cards
    spread over the types in proportion; then the others' Bank and the claim on the table
    (when not mine), claims of this round's rank each fitting with its owner's honesty, are
    removed."""
    rank = max(np.int64(o.claim_rank), 0)
    jokers = np.int64(r.jokers)
    total = 0
    rank_left = 0
    joker_left = 0
    for t in range(R.NUM_TYPES):
        deck = jokers if t == R.JOKER else 4   # 4 per rank, before the Jokers replace two
        known = (np.int64(o.hand[t]) + np.int64(o.my_table[t]) + np.int64(o.my_bank[t])
                 + np.int64(o.discard_seen[t]))
        left = max(deck - known, 0)
        total += left
        if t == rank:
            rank_left = left
        if t == R.JOKER:
            joker_left = left
    apparent = max(total, 1)
    pool = max(apparent - jokers - np.int64(o.discard_hidden), 1)
    good = np.float64(rank_left + joker_left) * (np.float64(pool) / np.float64(apparent))
    me = max(np.int64(o.seat), 0)
    fit = 0.0
    out_cards = 0
    for p in range(r.num_players):
        bank = 0 if p == me else np.int64(o.bank_sizes[p])
        fit += np.float64(bank) * honesty_of(o, p)
        out_cards += bank
    cl_raw = np.int64(o.claimant)
    table = np.int64(o.claim_count) if (cl_raw >= 0 and cl_raw != me) else 0
    fit = fit + np.float64(table) * honesty_of(o, max(cl_raw, 0))
    out_cards += table
    hp = max(pool - out_cards, 1)
    hg = min(max(good - fit, 0.0), np.float64(hp))
    return hp, hg


@njit(cache=True, inline="always")
def holds_fitting_row(o, hp, hg, r, table):
    """P(the next player in turn holds a card fitting the round's rank), its hand a uniformly
    random subset of the hands' pool (``hand_pool_row``)."""
    hand = min(np.int64(o.hand_sizes[next_seat(o, r)]), hp)
    return 1.0 - smooth_pmf(table, hp, hg, hand, 0)


# ------------------------------------------------------------------ the three models
@njit(cache=True)
def honesty_x(o, hp, hg, table, prm, x):
    """The claim model's inputs (``HONESTY_FEATURES``) into ``x``; returns the claimant's
    reckless posterior and the chance a reckless claim is true (each card a uniform pick,
    fitting with half the hands' share)."""
    k = max(np.int64(o.claim_count), 1)
    cl = max(np.int64(o.claimant), 0)
    share = hg / hp
    before = np.int64(o.hand_sizes[cl]) + k
    hpk = hp + k
    hgk = hg + k * share
    draws = min(before, hpk)
    below = 0.0
    for v in range(3):
        if v < k:
            below += smooth_pmf(table, hpk, hgk, draws, v)
    held = min(max(1.0 - below, 0.0), 1.0)
    h = logit(honesty_of(o, cl))
    n_claims = np.float64(np.int64(o.claims[cl, 0]) + np.int64(o.claims[cl, 1]))
    per_claim = np.float64(o.cards_claimed[cl]) / max(n_claims, 1.0)
    a = logit(add_of(o, cl))
    r = reckless_of(o, cl, prm)
    fk = np.float64(k)
    x[0] = 1.0
    x[1] = 1.0 if k == 2 else 0.0
    x[2] = 1.0 if k == 3 else 0.0
    x[3] = 1.0 if bank_total(o) > 0 else 0.0
    x[4] = np.float64(o.hand_sizes[cl]) / 10.0
    x[5] = share
    x[6] = held
    x[7] = h
    x[8] = h * held
    x[9] = a
    x[10] = per_claim - 1.5
    x[11] = r
    x[12] = r * held
    x[13] = r * fm.pow(share, fk)
    return r, fm.pow(0.5 * hg / hp, fk)


@njit(cache=True, inline="always")
def claim_probability_row(o, hp, hg, table, hon_w, prm, x):
    """P(the claim on the table is true): a reckless claimant's chance mixed with the fitted
    logistic model of a rule-following one."""
    r, truth = honesty_x(o, hp, hg, table, prm, x)
    return r * truth + (1 - r) / (1.0 + fm.exp(-linear_row(x, hon_w, NH)))


@njit(cache=True)
def doubt_base_row(o, hp, hg, r, table, fit_w, prm, base, x):
    """The fitting correction's inputs (``FITTING_FEATURES``) into ``x``, and into ``base`` the
    doubt model's inputs that do not depend on the claim size: P(next holds a fitting card)
    (recalibrated), logit add, logit doubt, rank out face up, Bank / 10, P(reckless),
    logit disbelieves per answer, logit structured doubt."""
    nxt = next_seat(o, r)
    x[0] = 1.0
    x[1] = logit(holds_fitting_row(o, hp, hg, r, table))
    x[2] = np.float64(o.discard_hidden) / 10.0
    x[3] = np.float64(o.num_rounds) / 10.0
    x[4] = np.float64(o.claim_count)
    q = sigmoid(linear_row(x, fit_w, NF))
    add = add_of(o, nxt)
    doubt = doubt_of(o, nxt)
    r = reckless_of(o, nxt, prm)
    # a rule-follower checks when it holds no fitting card, a reckless one at its own rate
    structured = doubt * ((1 - r) * (1 - q) + r * (1 - add))
    answers = (checks_of(o, nxt) + np.float64(o.claims[nxt, 1])) + 2.0
    disbelieved = (np.float64(o.checks[nxt, 2]) + np.float64(o.checks[nxt, 3])) + 1.0
    base[0] = q
    base[1] = logit(add)
    base[2] = logit(doubt)
    base[3] = np.float64(o.discard_seen[max(np.int64(o.claim_rank), 0)])
    base[4] = np.float64(bank_total(o)) / 10.0
    base[5] = r
    base[6] = logit(disbelieved / answers)
    base[7] = logit(structured)


@njit(cache=True)
def doubt_row(base, k, doubt_w, x):
    """P(the next player disbelieves my claim of ``k`` cards) from ``base``
    (``doubt_base_row``); its inputs (``DOUBT_FEATURES``) into ``x``."""
    q, add, dl, seen, bank, r, per_answer, ls = (base[0], base[1], base[2], base[3], base[4],
                                                 base[5], base[6], base[7])
    fk = np.float64(k)
    km1 = np.float64(k - 1)
    x[0] = 1.0
    x[1] = 1.0 if k == 2 else 0.0
    x[2] = 1.0 if k == 3 else 0.0
    x[3] = q
    x[4] = add
    x[5] = dl
    x[6] = dl * km1
    x[7] = (seen + fk) / 4.0
    x[8] = bank
    x[9] = r
    x[10] = r * q
    x[11] = r * km1
    x[12] = (1 - q) * dl
    x[13] = (1 - q) * km1
    x[14] = per_answer
    x[15] = r * per_answer
    x[16] = (1 - q) * km1 * dl
    x[17] = q * dl
    x[18] = ls
    x[19] = ls * (1.0 if k == 1 else 0.0)
    return sigmoid(linear_row(x, doubt_w, ND))


# ------------------------------------------------------------------ decisions
@njit(cache=True, inline="always")
def my_lie(o):
    """The ``put`` action of counting's lie: an ace if I have one, else my most plentiful card."""
    if o.hand[R.ACE] > 0:
        return np.int64(R.PUT0 + R.ACE)
    best = 0
    for t in range(1, R.NUM_TYPES):
        if o.hand[t] > o.hand[best]:
            best = t
    return np.int64(R.PUT0 + best)


@njit(cache=True, inline="always")
def respond_row(o, p, d1, count, bank, prm):
    """Believe, disbelieve, add my true cards or add a lie, by expected value in cards with the
    whole pot (claim + Bank) as the stake."""
    rank = max(np.int64(o.claim_rank), 0)
    pot = count + bank
    fpot = np.float64(pot)
    ov, rv = prm[P_OPEN], prm[P_RIVAL]
    ev_believe = p * ov - (1 - p) * fpot
    ev_doubt = (1 - p) * (ov + rv * fpot) - p * fpot
    check = R.BELIEVE if ev_believe >= ev_doubt else R.DISBELIEVE
    ev_check = max(ev_believe, ev_doubt)
    natural = np.int64(o.hand[rank])
    true_cards = min(natural + np.int64(o.hand[R.JOKER]), 3)
    ev_lie = 1.0 - d1 * np.float64(pot + 1)
    held_cards = 0
    for t in range(R.NUM_TYPES):
        held_cards += np.int64(o.hand[t])
    lie_ok = (ev_lie - prm[P_LIE_MARGIN] > ev_check) and held_cards > 0
    best_other = ev_lie if lie_ok else ev_check
    if true_cards > 0 and np.float64(true_cards) + prm[P_ADD_MARGIN] >= best_other:
        return np.int64(R.PUT0 + rank if natural > 0 else R.PUT0 + R.JOKER)
    if lie_ok:
        return my_lie(o)
    return np.int64(check)


@njit(cache=True, inline="always")
def pad_row(o, d_now, d_pad, count, bank, prm):
    """Out of true cards mid-claim: add one more lie when the card it sheds outweighs the
    larger pot a doubt would hand back, else stop."""
    rank = max(np.int64(o.claim_rank), 0)
    k = count
    lies = k - np.int64(o.my_table[rank]) - np.int64(o.my_table[R.JOKER])
    cost_stop = d_now * np.float64(k + bank) if lies > 0 else 0.0
    cost_pad = -1.0 + d_pad * np.float64(k + 1 + bank)
    if cost_pad + prm[P_LIE_MARGIN] < cost_stop and k < 3:
        return my_lie(o)
    return np.int64(R.DONE)


@njit(cache=True)
def counting_policy(obs, mask, key, r, params, ctx):
    """The ``counting`` policy (``agents.policy``; ``params``: ``params_row``, ``ctx``:
    ``context``): announce and true cards as the heuristic (``bluff=0``: a claim with nothing
    true opens with its lie card), ``respond`` and ``pad`` by expected value (module
    docstring).  It draws no random number."""
    table, hon_w, doubt_w, fit_w, x, base = ctx
    move = scripted_move(obs)
    if move >= 0:
        return move
    ph = obs.phase
    rank = max(np.int64(obs.claim_rank), 0)
    if ph == R.PHASE_PUT:
        if obs.hand[rank] > 0:
            return np.int64(R.PUT0 + rank)
        if obs.hand[R.JOKER] > 0:
            return np.int64(R.PUT0 + R.JOKER)
        if not obs.put_count > 0:
            return R.PUT0 + lie_card(obs, rank)
    bank = bank_total(obs)
    count = np.int64(obs.claim_count)
    hp, hg = hand_pool_row(obs, r)
    pr = 0.0
    if ph == R.PHASE_RESPOND:
        pr = claim_probability_row(obs, hp, hg, table, hon_w, params, x)
    doubt_base_row(obs, hp, hg, r, table, fit_w, params, base, x)
    if ph == R.PHASE_RESPOND:
        return respond_row(obs, pr, doubt_row(base, 1, doubt_w, x), count, bank, params)
    d_now = doubt_row(base, count, doubt_w, x)
    d_pad = doubt_row(base, count + 1, doubt_w, x)
    return pad_row(obs, d_now, d_pad, count, bank, params)


@njit(cache=True)
def act_kernel(records, mask, keys, rules, params, ctx, out):
    """``counting_policy`` on every row (``agents.policy.act_loop``)."""
    act_loop(counting_policy, records, mask, keys, rules, params, ctx, out)


# ------------------------------------------------------------------ the models on a batch
@njit(cache=True)
def models_rows(records, rules, counts, params, ctx, out, hx, fx, dx):
    """Row ``b`` of the observation ``records``: ``out[b]`` = (hands' pool, its expected
    fitting cards, P(next holds a fitting card) for uniform hands, P(claim true), P(the next
    player doubts my claim of ``counts[b]`` cards), the claimant's reckless posterior, the
    chance a reckless claim is true); the claim, fitting and doubt models' inputs into
    ``hx[b]``, ``fx[b]``, ``dx[b]``."""
    r = rules[0]
    table, hon_w, doubt_w, fit_w, _, base = ctx
    for b in range(records.shape[0]):
        o = records[b]
        hp, hg = hand_pool_row(o, r)
        out[b, 0], out[b, 1] = hp, hg
        out[b, 2] = holds_fitting_row(o, hp, hg, r, table)
        out[b, 3] = claim_probability_row(o, hp, hg, table, hon_w, params, hx[b])
        out[b, 5], out[b, 6] = honesty_x(o, hp, hg, table, params, hx[b])
        doubt_base_row(o, hp, hg, r, table, fit_w, params, base, fx[b])
        out[b, 4] = doubt_row(base, counts[b], doubt_w, dx[b])


def model_rows(obs: dict[str, np.ndarray], rules: R.Rules, count: np.ndarray | None = None,
               step: int | None = None,
               fitting_weights: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
    """``models_rows`` on a batched observation (fields it lacks as zeros): (out float64[B, 7],
    claim inputs [B, NH], fitting inputs [B, NF], doubt inputs [B, ND]); the doubt model for a
    claim of ``count`` cards (default: the claim on the table) answered by the next player in
    turn order ``step`` (default the rules')."""
    dtype = O.SPEC.record_dtype(rules, OBS_BOUNDS)
    full = complete(obs, dtype)
    b = len(full["seat"])
    records = records_of(dtype, full)
    rec = rules_record(rules)
    if step is not None:
        rec["step"] = step
    counts = np.broadcast_to(np.asarray(full["claim_count"] if count is None else count,
                                        np.int64), (b,)).copy()
    out, hx, fx, dx = np.empty((b, 7)), np.empty((b, NH)), np.empty((b, NF)), np.empty((b, ND))
    models_rows(records, kernel_records(rec), counts,
                  np.asarray(params_row(VeruCounting.params)), context(fitting_weights), out, hx,
                  fx, dx)
    return out, hx, fx, dx


def hand_pool(obs: dict[str, np.ndarray], rules: R.Rules) -> tuple[np.ndarray, np.ndarray]:
    """(pool int64[B], good float64[B]): the unseen cards in the others' hands and the expected
    fitting ones among them (``hand_pool_row``)."""
    out = model_rows(obs, rules)[0]
    return out[:, 0].astype(np.int64), out[:, 1]


def next_holds_fitting(obs: dict[str, np.ndarray], rules: R.Rules, step: int) -> np.ndarray:
    """float[B]: P(the next player in turn holds a fitting card), uniform hands."""
    return model_rows(obs, rules, step=step)[0][:, 2]


def claim_probability(obs: dict[str, np.ndarray], rules: R.Rules) -> np.ndarray:
    """float[B]: P(the claim on the table is true)."""
    return model_rows(obs, rules)[0][:, 3]


def doubt_probability(obs: dict[str, np.ndarray], rules: R.Rules, count: np.ndarray,
                      step: int) -> np.ndarray:
    """float[B]: P(the next player disbelieves my claim of ``count`` cards)."""
    return model_rows(obs, rules, count, step)[0][:, 4]


@register_agent("veru")
class VeruCounting(CompiledAgent):
    """Expected-value veru player over the claim posterior and a per-seat model (module
    docstring): ``counting_policy``."""

    policy, act_kernel = counting_policy, act_kernel
    observation = VeruHeuristic.observation

    name = "counting"
    traits = Traits(stochastic=True, uses_history=True)
    params = {"open_value": 1.0, "rival": 0.6, "add_margin": 0.0, "lie_margin": 0.0}
    spec = {
        "open_value": real(0, doc="worth of opening the next round, in cards"),
        "rival": real(0, 1, doc="worth of a card an opponent takes, in my cards"),
        "add_margin": real(doc="prefer adding true cards unless checking is better by more"),
        "lie_margin": real(doc="lie (pad or add) only when it saves this many cards more"),
    }

    def params_row(self) -> list[float]:
        """The policy's ``params`` (``params_row``)."""
        return params_row(self.config)

    def context(self) -> tuple:
        """The policy's ``ctx`` (``context``)."""
        return context()
