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

Compiled.  ``act`` runs ``counting_kernel.decide_kernel`` (numba): one loop over the rows
doing, per row, what the numpy path does for the batch — the heuristic's announce and true
cards, ``respond`` and ``pad`` with every model piece above — in the same floating-point
operation order (numpy's row sums; the models' weighted sums are ``agents.linear``, left to
right, never BLAS; ``exp``/``log``/``pow`` from ``bluffsim.fmath``, never libm or numpy's SIMD math,
on both paths), so the actions are bit-identical on any CPU and at any batch size
(docs/float_contract.md).  The numpy path stays as ``act_reference``,
the readable reference, and the public helpers (``claim_probability``,
``doubt_probability``, ``next_holds_fitting`` ...) are the numpy ones;
``tests/veru/test_counting_kernel.py`` checks compiled == reference (actions, and
probabilities bit for bit) on played games and random observations.

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
from pathlib import Path

import numpy as np

from agents.base import Agent, Traits, real, register_agent
from agents.combinatorics import LOG_CHOOSE, hypergeom_pmf
from agents.linear import linear
from agents.veru import counting_kernel as K
from agents.veru.heuristic import VeruHeuristic
from bluffsim import fmath as fm
from bluffsim.games.veru import observe as O
from bluffsim.games.veru import rules as R
from bluffsim.rng import AgentRNG

WEIGHTS_FILE = Path(__file__).with_name("counting_weights.json")


UNUSED = ("seen_taken", "known_in_hand", "last_check_cards", "ace_where", "my_out", "taken",
          "pickups", "timeouts", "swaps_made", "place", "opener", "endgame_left", "last_check",
          "swaps_left", "closed")


def _memo(obs: dict[str, np.ndarray], key: object, fn):  # noqa: ANN001, ANN202
    """``fn()``, computed once per observation dict that carries a ``"_memo"`` dict (the
    agent's own per-call subsets; other callers' dicts are never written to)."""
    memo = obs.get("_memo")
    if memo is None:
        return fn()
    if key not in memo:
        memo[key] = fn()
    return memo[key]


def _logit(x: np.ndarray) -> np.ndarray:
    x = np.clip(x, 1e-4, 1 - 1e-4)
    return fm.log_u(x / (1 - x))


def seat_rates(obs: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(honesty, add, doubt) float64[B, P]: each seat's Beta(1, 1)-smoothed rate of checked
    claims found true, of responses that added, and of checks that disbelieved."""
    return _memo(obs, "rates", lambda: _seat_rates(obs))


def _seat_rates(obs: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    cc = obs["claims_checked"].astype(np.float64)
    honesty = (cc[..., 1] + 1.0) / (cc.sum(axis=-1) + 2.0)
    chk = obs["checks"].astype(np.float64)
    n_chk = chk.sum(axis=-1)
    added = obs["claims"][..., 1].astype(np.float64)
    add = (added + 1.0) / (added + n_chk + 2.0)
    doubt = (chk[..., 2] + chk[..., 3] + 1.0) / (n_chk + 2.0)
    return honesty, add, doubt


RECKLESS_PRIOR_LOGIT = fm.log_const(0.2 / 0.8)
# log-likelihood ratio, reckless against rule-following, of one checked claim found false / true
# (a reckless claim is true ~4% of the time, a rule-follower's ~50%)
RECKLESS_LLR_FALSE, RECKLESS_LLR_TRUE = fm.log_const(0.96 / 0.5), fm.log_const(0.04 / 0.5)


def reckless(obs: dict[str, np.ndarray]) -> np.ndarray:
    """float64[B, P]: posterior that each seat claims like ``random`` (its claims true ~4% of
    the time) rather than like a rule-following player (~50%), from its checked claims;
    prior 1/5."""
    return _memo(obs, "reckless", lambda: _reckless(obs))


def _reckless(obs: dict[str, np.ndarray]) -> np.ndarray:
    cc = obs["claims_checked"].astype(np.float64)
    llr = cc[..., 0] * RECKLESS_LLR_FALSE + cc[..., 1] * RECKLESS_LLR_TRUE
    return 1.0 / (1.0 + fm.exp_u(-np.clip(llr + RECKLESS_PRIOR_LOGIT, -30, 30)))


def unseen_counts(obs: dict[str, np.ndarray], rules: R.Rules) -> tuple[np.ndarray, ...]:
    """(pool, good, hand): cards I cannot place (int64[B]), how many of them fit the
    claim (float64[B], the rank's naturals plus Jokers) and the claimant's hand before
    the claim (int64[B]).

    Per type, a card I cannot place may not exist at all: two naturals were replaced
    by Jokers and some cards left the game unseen, and I do not know which.  Those
    missing cards are spread over the types in proportion, so ``good`` is the
    expected number of fitting cards among the ``pool`` that do exist.
    """
    b = obs["hand"].shape[0]
    rows = np.arange(b)
    rank = np.maximum(obs["claim_rank"].astype(np.int64), 0)
    known = (obs["hand"].astype(np.int64) + obs["my_table"] + obs["my_bank"]
             + obs["discard_seen"])
    deck = np.full(R.NUM_TYPES, 4, np.int64)  # 4 per rank, before the Jokers replace two
    deck[R.JOKER] = rules.jokers
    pool_counts = np.maximum(deck[None, :] - known, 0)
    apparent = np.maximum(pool_counts.sum(axis=1), 1)
    pool = np.clip(apparent - rules.jokers - obs["discard_hidden"].astype(np.int64), 1, None)
    good = (pool_counts[rows, rank] + pool_counts[:, R.JOKER]) * (pool / apparent)
    claimant = np.maximum(obs["claimant"].astype(np.int64), 0)
    hand = np.minimum(obs["hand_sizes"][rows, claimant].astype(np.int64)
                      + obs["claim_count"].astype(np.int64), pool)
    return pool, good, hand


def hand_pool(obs: dict[str, np.ndarray], rules: R.Rules,
              honesty: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(pool int64[B], good float64[B]): the unseen cards that sit in the others' hands and
    the expected fitting ones among them.  The others' Bank and the claim on the table
    (when not mine) are claims of this round's rank: each card fits with its owner's
    honesty (``seat_rates``), so they and their expected fitting cards are removed."""
    pool, good, _ = unseen_counts(obs, rules)
    if "bank_sizes" not in obs:
        return pool, good
    if honesty is None:
        honesty = seat_rates(obs)[0] if "claims_checked" in obs else np.full(
            obs["bank_sizes"].shape, 0.5)
    b, p = obs["bank_sizes"].shape
    rows = np.arange(b)
    me = np.maximum(obs["seat"].astype(np.int64), 0)
    bank = obs["bank_sizes"].astype(np.int64).copy()
    bank[rows, me] = 0
    claimant = obs["claimant"].astype(np.int64)
    table = np.where((claimant >= 0) & (claimant != me), obs["claim_count"].astype(np.int64), 0)
    cl = np.maximum(claimant, 0)
    fit = (bank * honesty).sum(axis=1) + table * honesty[rows, cl]
    out_cards = bank.sum(axis=1) + table
    hp = np.maximum(pool - out_cards, 1)
    hg = np.clip(good - fit, 0.0, hp.astype(np.float64))
    return hp, hg


def smooth_pmf(pool: np.ndarray, good: np.ndarray, draws: np.ndarray, x: int) -> np.ndarray:
    """``hypergeom_pmf`` with a fractional ``good``: linear between its two integer neighbours."""
    lo = np.floor(good)
    w = good - lo
    lo = lo.astype(np.int64)
    return (1 - w) * hypergeom_pmf(pool, lo, draws, x) + w * hypergeom_pmf(pool, lo + 1, draws, x)


def held_at_least(pool: np.ndarray, good: np.ndarray, draws: np.ndarray, k: np.ndarray) -> np.ndarray:
    """float[B]: P(X >= k) for X ~ Hypergeometric(pool, good, draws) (``good`` fractional)."""
    draws = np.minimum(draws, pool)
    below = np.zeros(pool.shape, np.float64)
    for x in range(3):
        below += np.where(x < k, smooth_pmf(pool, good, draws, x), 0.0)
    return np.clip(1.0 - below, 0.0, 1.0)


def honesty_features(obs: dict[str, np.ndarray], rules: R.Rules) -> np.ndarray:
    """float64[B, F]: the claim model's inputs, in ``HONESTY_FEATURES`` order."""
    b = obs["hand"].shape[0]
    rows = np.arange(b)
    honesty, add, _ = seat_rates(obs)
    hp, hg = hand_pool(obs, rules)
    k = np.maximum(obs["claim_count"].astype(np.int64), 1)
    claimant = np.maximum(obs["claimant"].astype(np.int64), 0)
    share = hg / hp
    before = obs["hand_sizes"][rows, claimant].astype(np.int64) + k
    held = held_at_least(hp + k, hg + k * share, before, k)
    h = _logit(honesty[rows, claimant])
    claims = obs["claims"][rows, claimant].sum(axis=1).astype(np.float64)
    per_claim = obs["cards_claimed"][rows, claimant] / np.maximum(claims, 1.0)
    a = _logit(add[rows, claimant])
    r = reckless(obs)[rows, claimant]
    return np.stack([np.ones(b), k == 2, k == 3,
                     obs["bank_sizes"].astype(np.int64).sum(axis=1) > 0,
                     obs["hand_sizes"][rows, claimant] / 10.0, share, held, h, h * held,
                     a, per_claim - 1.5, r, r * held, r * fm.pow_u(share, k)], axis=1).astype(np.float64)


HONESTY_FEATURES = ("bias", "claims 2", "claims 3", "adds to a round", "hand size / 10",
                    "fitting share of the hands", "P(held k fitting)", "logit honesty",
                    "logit honesty x P(held)", "logit add rate", "cards per claim - 1.5",
                    "P(reckless)", "P(reckless) x P(held)", "P(reckless) x share ** k")


def fitting_features(obs: dict[str, np.ndarray], rules: R.Rules, step: int) -> np.ndarray:
    """float64[B, F]: inputs of the correction of ``next_holds_fitting`` (``FITTING_FEATURES``)."""
    b = obs["hand"].shape[0]
    lq = _logit(next_holds_fitting(obs, rules, step))
    return np.stack([np.ones(b), lq, obs["discard_hidden"].astype(np.float64) / 10.0,
                     obs["num_rounds"].astype(np.float64) / 10.0,
                     obs["claim_count"].astype(np.float64)], axis=1)


FITTING_FEATURES = ("bias", "logit P(next holds a fitting card), uniform hands",
                    "cards out unseen / 10", "rounds / 10", "cards in the claim")


def fitting_probability(obs: dict[str, np.ndarray], rules: R.Rules, step: int,
                        weights: np.ndarray | None = None) -> np.ndarray:
    """float[B]: P(the next player holds a fitting card), the uniform-hands estimate
    recalibrated by a fitted logistic: players shed fitting cards whenever a rank comes
    up, so hands are poorer in the running rank than a uniform slice of the pool."""
    if weights is None:
        return _memo(obs, ("fitting", step), lambda: 1.0 / (1.0 + fm.exp_u(
            -linear(fitting_features(obs, rules, step), FITTING_WEIGHTS))))
    return 1.0 / (1.0 + fm.exp_u(-linear(fitting_features(obs, rules, step), weights)))


def doubt_features(obs: dict[str, np.ndarray], rules: R.Rules, count: np.ndarray,
                   step: int) -> np.ndarray:
    """float64[B, F]: the doubt model's inputs (``DOUBT_FEATURES``) for a claim of ``count``
    cards by me, answered by the next player in turn."""
    return _doubt_x(_memo(obs, ("doubt", step), lambda: _doubt_base(obs, rules, step)), count)


def _doubt_base(obs: dict[str, np.ndarray], rules: R.Rules, step: int) -> dict[str, np.ndarray]:
    """The doubt model's inputs that do not depend on the claim size."""
    b = obs["hand"].shape[0]
    rows = np.arange(b)
    _, add, doubt = seat_rates(obs)
    nxt = next_in_turn(obs, step)
    q = fitting_probability(obs, rules, step)
    rank = np.maximum(obs["claim_rank"].astype(np.int64), 0)
    dl = _logit(doubt[rows, nxt])
    seen = obs["discard_seen"][rows, rank].astype(np.float64)
    r = reckless(obs)[rows, nxt]
    # a rule-follower checks when it holds no fitting card, a reckless one at its own rate
    structured = doubt[rows, nxt] * ((1 - r) * (1 - q) + r * (1 - add[rows, nxt]))
    chk = obs["checks"][rows, nxt].astype(np.float64)
    per_answer = _logit((chk[:, 2] + chk[:, 3] + 1.0)
                        / (chk.sum(axis=1) + obs["claims"][rows, nxt, 1] + 2.0))
    return {"b": b, "q": q, "dl": dl, "seen": seen, "r": r, "structured": structured,
            "per_answer": per_answer, "add": _logit(add[rows, nxt]),
            "bank": obs["bank_sizes"].astype(np.int64).sum(axis=1) / 10.0}


def _doubt_x(base: dict[str, np.ndarray], count: np.ndarray) -> np.ndarray:
    k = np.asarray(count, np.int64)
    q, dl, r, per_answer = base["q"], base["dl"], base["r"], base["per_answer"]
    ls = _logit(base["structured"])
    return np.stack([np.ones(base["b"]), k == 2, k == 3, q, base["add"], dl, dl * (k - 1),
                     (base["seen"] + k) / 4.0, base["bank"],
                     r, r * q, r * (k - 1), (1 - q) * dl, (1 - q) * (k - 1), per_answer,
                     r * per_answer, (1 - q) * (k - 1) * dl, q * dl, ls,
                     ls * (k == 1)], axis=1).astype(np.float64)


DOUBT_FEATURES = ("bias", "claims 2", "claims 3", "P(next holds a fitting card)",
                  "logit next's add rate", "logit next's doubt rate", "logit doubt x (k - 1)",
                  "(rank out face up + k) / 4", "Bank / 10", "P(next reckless)",
                  "P(next reckless) x P(holds)", "P(next reckless) x (k - 1)",
                  "P(holds none) x logit doubt", "P(holds none) x (k - 1)",
                  "logit next's disbelieves per answer", "P(next reckless) x that",
                  "P(holds none) x (k - 1) x logit doubt", "P(holds) x logit doubt",
                  "logit structured doubt", "logit structured doubt x (k == 1)")


def _load_weights() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    data = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))
    return tuple(np.asarray(data[k], np.float64) for k in ("honesty", "doubt", "fitting"))


HONESTY_WEIGHTS, DOUBT_WEIGHTS, FITTING_WEIGHTS = _load_weights()


def reckless_truth(obs: dict[str, np.ndarray], rules: R.Rules) -> tuple[np.ndarray, np.ndarray]:
    """(r, t) float[B]: the claimant's ``reckless`` posterior and the chance a reckless claim
    of ``k`` cards is true (each card a uniform pick, fitting with half the hands' share)."""
    rows = np.arange(obs["hand"].shape[0])
    claimant = np.maximum(obs["claimant"].astype(np.int64), 0)
    hp, hg = hand_pool(obs, rules)
    k = np.maximum(obs["claim_count"].astype(np.int64), 1)
    return reckless(obs)[rows, claimant], fm.pow_u(0.5 * hg / hp, k)


def claim_probability(obs: dict[str, np.ndarray], rules: R.Rules,
                      weights: np.ndarray | None = None) -> np.ndarray:
    """float[B]: probability that the claim on the table is true: a mixture of a reckless
    claimant (``reckless_truth``) and the fitted logistic model of a rule-following one."""
    w = HONESTY_WEIGHTS if weights is None else np.asarray(weights, dtype=np.float64)
    r, t = reckless_truth(obs, rules)
    return r * t + (1 - r) / (1.0 + fm.exp_u(-linear(honesty_features(obs, rules), w)))


def doubt_probability(obs: dict[str, np.ndarray], rules: R.Rules, count: np.ndarray, step: int,
                      weights: np.ndarray | None = None) -> np.ndarray:
    """float[B]: probability that the next player disbelieves my claim of ``count`` cards."""
    w = DOUBT_WEIGHTS if weights is None else np.asarray(weights, dtype=np.float64)
    return 1.0 / (1.0 + fm.exp_u(-linear(doubt_features(obs, rules, count, step), w)))


def next_in_turn(obs: dict[str, np.ndarray], step: int) -> np.ndarray:
    """int64[B]: the first seat after me in turn order that has not finished."""
    return _memo(obs, ("next", step), lambda: _next_in_turn(obs, step))


def _next_in_turn(obs: dict[str, np.ndarray], step: int) -> np.ndarray:
    p = obs["out"].shape[1]
    seat = np.maximum(obs["seat"].astype(np.int64), 0)
    ahead = (seat[:, None] + step * np.arange(1, p)[None, :]) % p
    playing = ~np.take_along_axis(obs["out"], ahead, axis=1)
    return ahead[np.arange(seat.size), playing.argmax(axis=1)]


def next_holds_fitting(obs: dict[str, np.ndarray], rules: R.Rules, step: int) -> np.ndarray:
    """float[B]: probability that the next player in turn holds at least one card fitting
    the round's rank (its hand a uniformly random subset of the hands' pool, ``hand_pool``)."""
    rows = np.arange(obs["hand"].shape[0])
    pool, good = hand_pool(obs, rules)
    hand = np.minimum(obs["hand_sizes"][rows, next_in_turn(obs, step)].astype(np.int64), pool)
    return 1.0 - smooth_pmf(pool, good, hand, 0)


# the observation fields the compiled kernel reads, in its argument order; their dtypes are the
# observation's (``O.SPEC``: other callers' arrays are converted, the engine's passed as they are)
KERNEL_FIELDS = (
    "seat", "phase", "hand", "hand_sizes", "out", "closed", "claimant", "claim_rank", "claim_count",
    "put_count", "my_table", "bank_sizes", "my_bank", "discard_seen", "discard_hidden", "num_rounds",
    "claims", "cards_claimed", "claims_checked", "checks",
)


def _weights(w: np.ndarray, n: int) -> np.ndarray:
    """A model's weights as the contiguous float64[n] the kernel reads."""
    w = np.ascontiguousarray(w, dtype=np.float64)
    if w.shape != (n,):
        raise ValueError(f"expected {n} weights, got shape {w.shape}")
    return w


@register_agent("veru")
class VeruCounting(Agent):
    """Expected-value veru player over the claim posterior and a per-seat model (module docstring)."""

    name = "counting"
    traits = Traits(stochastic=True, uses_history=True)
    params = {"open_value": 1.0, "rival": 0.6, "add_margin": 0.0, "lie_margin": 0.0}
    spec = {
        "open_value": real(0, doc="worth of opening the next round, in cards"),
        "rival": real(0, 1, doc="worth of a card an opponent takes, in my cards"),
        "add_margin": real(doc="prefer adding true cards unless checking is better by more"),
        "lie_margin": real(doc="lie (pad or add) only when it saves this many cards more"),
    }

    def act(self, obs: dict[str, np.ndarray], legal_mask: np.ndarray, rng: AgentRNG) -> np.ndarray:
        """Responds and pads by expected value; announcing and true cards as the heuristic: all
        in the compiled ``counting_kernel.decide_kernel``, the same actions as the numpy
        ``act_reference``."""
        return self.decide_rows(obs)

    def decide_rows(self, obs: dict[str, np.ndarray], probs: np.ndarray | None = None) -> np.ndarray:
        """int64[B]: every row's action from the compiled ``counting_kernel.decide_kernel``;
        with ``probs`` (float64[B, 3]) also its model probabilities (kernel docstring)."""
        rules = self.game.rules
        o = {k: np.asarray(obs[k], dtype=O.SPEC.dtypes[k]) for k in KERNEL_FIELDS}
        out = np.zeros(o["phase"].shape[0], np.int64)
        K.decide_kernel(
            o["seat"], o["phase"], o["hand"], o["hand_sizes"], o["out"], o["closed"], o["claimant"],
            o["claim_rank"], o["claim_count"], o["put_count"], o["my_table"], o["bank_sizes"],
            o["my_bank"], o["discard_seen"], o["discard_hidden"], o["num_rounds"], o["claims"],
            o["cards_claimed"], o["claims_checked"], o["checks"], int(rules.jokers), int(rules.step),
            LOG_CHOOSE, _weights(HONESTY_WEIGHTS, len(HONESTY_FEATURES)),
            _weights(DOUBT_WEIGHTS, len(DOUBT_FEATURES)),
            _weights(FITTING_WEIGHTS, len(FITTING_FEATURES)), self.kernel_params(), out,
            np.empty((0, 3)) if probs is None else probs)
        return out

    def kernel_params(self) -> np.ndarray:
        """float64[NUM_PARAMS]: the configuration and model constants ``decide_kernel`` reads."""
        c = self.config
        prm = np.zeros(K.NUM_PARAMS)
        prm[K.P_OPEN], prm[K.P_RIVAL] = c["open_value"], c["rival"]
        prm[K.P_ADD_MARGIN], prm[K.P_LIE_MARGIN] = c["add_margin"], c["lie_margin"]
        prm[K.P_LOG_FALSE], prm[K.P_LOG_TRUE] = RECKLESS_LLR_FALSE, RECKLESS_LLR_TRUE
        prm[K.P_PRIOR] = RECKLESS_PRIOR_LOGIT
        return prm

    def act_reference(self, obs: dict[str, np.ndarray], legal_mask: np.ndarray,
                      rng: AgentRNG | None = None) -> np.ndarray:
        """``act`` in numpy (the heuristic's ``act`` with ``bluff=0``, then ``respond`` and
        ``pad`` on the rows they decide): the readable reference of the compiled kernel;
        same actions."""
        if rng is None:  # the heuristic draws its (unused: bluff=0) uniforms from it
            b = obs["phase"].shape[0]
            rng = AgentRNG(np.zeros(b, np.uint64), np.zeros(b, np.int64), np.zeros(b, np.uint64))
        out = VeruHeuristic(self.game, bluff=0.0).act(obs, legal_mask, rng)
        resp = np.flatnonzero(obs["phase"] == R.PHASE_RESPOND)
        if resp.size:
            out[resp] = self.respond(self.subset(obs, resp))
        stop = np.flatnonzero((obs["phase"] == R.PHASE_PUT) & (out == R.DONE))
        if stop.size:
            out[stop] = self.pad(self.subset(obs, stop))
        return out

    @staticmethod
    def subset(obs: dict[str, np.ndarray], rows: np.ndarray) -> dict[str, np.ndarray]:
        """The rows of the fields the models read, with a fresh per-call memo."""
        out: dict = {k: v[rows] for k, v in obs.items() if k not in UNUSED}
        out["_memo"] = {}
        return out

    def lie_card(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        """int64[B]: the ``put`` action of my lie: an ace if I have one, else my most plentiful card."""
        hand = obs["hand"].astype(np.int64)
        return np.where(hand[:, R.ACE] > 0, R.PUT0 + R.ACE, R.PUT0 + hand.argmax(axis=1))

    def pad(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        """Out of true cards mid-claim: add a lie when the expected cards it brings back
        (if the next player doubts) cost less than the card it sheds."""
        rules = self.game.rules
        rows = np.arange(obs["hand"].shape[0])
        k = obs["claim_count"].astype(np.int64)
        rank = np.maximum(obs["claim_rank"].astype(np.int64), 0)
        mine = obs["my_table"].astype(np.int64)
        lies = k - mine[rows, rank] - mine[:, R.JOKER]
        bank = obs["bank_sizes"].astype(np.int64).sum(axis=1)
        d_now = doubt_probability(obs, rules, k, rules.step)
        d_pad = doubt_probability(obs, rules, k + 1, rules.step)
        cost_stop = np.where(lies > 0, d_now * (k + bank), 0.0)
        cost_pad = -1.0 + d_pad * (k + 1 + bank)
        lie = (cost_pad + self.config["lie_margin"] < cost_stop) & (k < 3)
        return np.where(lie, self.lie_card(obs), R.DONE)

    def respond(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        """Believe, disbelieve, add true cards or add a lie: the best expected value."""
        c = self.config
        rules = self.game.rules
        p = claim_probability(obs, rules)
        pot = obs["claim_count"].astype(np.int64) + obs["bank_sizes"].astype(np.int64).sum(axis=1)
        o, rv = c["open_value"], c["rival"]
        ev_believe = p * o - (1 - p) * pot
        ev_doubt = (1 - p) * (o + rv * pot) - p * pot
        check = np.where(ev_believe >= ev_doubt, R.BELIEVE, R.DISBELIEVE)
        ev_check = np.maximum(ev_believe, ev_doubt)
        rows = np.arange(p.size)
        rank = np.maximum(obs["claim_rank"].astype(np.int64), 0)
        hand = obs["hand"].astype(np.int64)
        natural = hand[rows, rank]
        true_cards = np.minimum(natural + hand[:, R.JOKER], 3)
        add = np.where(natural > 0, R.PUT0 + rank, R.PUT0 + R.JOKER)
        d1 = doubt_probability(obs, rules, np.ones_like(pot), rules.step)
        ev_lie = 1.0 - d1 * (pot + 1)
        lie_ok = (ev_lie - c["lie_margin"] > ev_check) & (hand.sum(axis=1) > 0)
        best_other = np.where(lie_ok, ev_lie, ev_check)
        prefer_add = (true_cards > 0) & (true_cards + c["add_margin"] >= best_other)
        return np.where(prefer_add, add, np.where(lie_ok, self.lie_card(obs), check))
