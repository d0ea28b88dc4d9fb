"""qdv ``heuristic``: a rule-of-thumb bidder that counts only what it sees plus a fair share.

Model: the expected count of fruit ``f`` is what I see (my cards, face-up cards,
the centre) plus, for each hidden card in the other hands, the average value of
an unseen card for ``f`` (unseen salads count ``salad_weight`` each).

- bidding: call ``menteur`` when the standing bid exceeds the expected count by
  more than ``call_margin``; say ``vrai`` when it is within ``exact_window``;
  otherwise raise by 1 on the fruit with the highest expected count (staying on
  the current fruit unless another is better by ``switch_gain``), and with
  probability ``bluff`` raise on a random fruit instead (the decision's first two
  uniforms: bluff or not, which fruit);
- start choice: the fruit I hold the most of;
- salads: declare to help my own side of the call (all if I am the accused
  bidder, none if I called menteur, as many as make an exact count if I said vrai);
- exact-call reward: take the token.

One compiled policy (``heuristic_policy``, ``agents.policy``'s contract) that ``act`` and the
fused loop both run; the expected counts are integers until the one division per fruit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.base import Traits, probability, real, register_agent
from agents.policy import CompiledAgent, act_loop
from bluffsim import rng_nb as rn
from bluffsim.games.qdv import rules as R

# the agent's parameters in the order of the ``params`` row the policy reads
PARAMS = ("call_margin", "exact_window", "bluff", "switch_gain", "salad_weight")
CALL_MARGIN, EXACT_WINDOW, BLUFF, SWITCH_GAIN, SALAD_WEIGHT = range(len(PARAMS))
K, F, SALAD, MULT = R.NUM_KINDS, R.NUM_FRUITS, R.SALAD, R.MAX_MULT


def deck_counts(rules: R.Rules) -> np.ndarray:
    """int64[K]: cards of each kind in the rules' deck."""
    return np.bincount(np.asarray(rules.deck), minlength=K)


@njit(cache=True)
def expected_counts(obs, deck, salad_weight, out, known, unseen_value):
    """``out`` (float64[F]): the expected count of each fruit (module docstring); ``known`` and
    ``unseen_value`` (int64[F]) are scratch."""
    p = obs.hand_sizes.shape[0]
    seat = max(np.int64(obs.seat), 0)
    hidden = np.int64(0)
    for s in range(p):
        hidden += obs.hand_sizes[s]
    hidden -= obs.hand_sizes[seat]
    centre = max(np.int64(obs.centre), 0)
    total_unseen = np.int64(0)
    salad_unseen = np.int64(0)
    my_salads = np.int64(0)
    for f in range(F):
        known[f] = 0
        unseen_value[f] = 0
    for k in range(K):
        mine = np.int64(obs.hand[k])
        rev = np.int64(0)
        dis = np.int64(0)
        for s in range(p):
            rev += obs.revealed[s, k]
            dis += obs.discarded[s, k]
        rev -= obs.revealed[seat, k]  # others' face-up cards
        hidden -= rev
        seen = mine + rev + dis + (1 if k == centre else 0)
        unseen = max(deck[k] - seen, 0)
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
    c = np.int64(obs.centre)  # the centre card's value (a centre salad: 1 on the start fruit)
    if c == SALAD:
        if obs.start >= 0:
            known[np.int64(obs.start)] += 1
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
def declare_salads(obs):
    """The salad declaration helping my side of the call: all my salads if I am the accused
    bidder, none if I called menteur, as many as make the count exact if I said vrai."""
    me = np.int64(obs.seat)
    held = np.int64(obs.hand[SALAD])
    short = min(max(np.int64(obs.bid_count) - np.int64(obs.showdown_count), 0), held)
    menteur = obs.call == R.CALL_MENTEUR
    k = 0
    if obs.caller == me:
        k = 0 if menteur else short
    elif obs.bidder == me and menteur:
        k = held
    return R.SALADS0 + k


@njit(cache=True)
def heuristic_policy(obs, mask, key, r, params, ctx):
    """``QdvHeuristic``'s choice (``agents.policy``'s contract); ``ctx`` is ``contexts``'."""
    deck, exp, scratch = ctx
    ph = obs.phase
    if ph == R.PHASE_REWARD:
        return np.int64(r.gain_id)
    if ph == R.PHASE_SALADS:
        return np.int64(declare_salads(obs))
    expected_counts(obs, deck, params[SALAD_WEIGHT], exp, scratch[0], scratch[1])
    if ph == R.PHASE_START:
        return np.int64(R.START0 + argmax(exp))
    u0 = rn.uniform(rn.minor_word(key, 0))
    u1 = rn.uniform(rn.minor_word(key, 1))
    count = np.int64(obs.bid_count)
    fruit = max(np.int64(obs.bid_fruit), 0)
    e_bid = exp[fruit]
    best = argmax(exp)
    target = best if exp[best] - e_bid > params[SWITCH_GAIN] else fruit
    if u0 < params[BLUFF]:
        target = np.int64(u1 * np.float64(F))
    can_raise = mask[target] != 0  # "+1 <target>"
    if mask[R.MENTEUR] != 0 and (count - e_bid > params[CALL_MARGIN] or not can_raise):
        return np.int64(R.MENTEUR)
    vrai = abs(count - e_bid) <= params[EXACT_WINDOW] or not can_raise
    if vrai and mask[R.VRAI] != 0:  # never on my own bid (I must bid again after a skip)
        return np.int64(R.VRAI)
    return np.int64(target)


@njit(cache=True)
def act_kernel(records, mask, keys, rules, params, ctx, out):
    """``heuristic_policy`` on every row (``agents.policy.act_loop``)."""
    act_loop(heuristic_policy, records, mask, keys, rules, params, ctx, out)


def contexts(rules: R.Rules) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The policy's ``ctx``: the deck's kinds, then scratch for the expected counts."""
    return deck_counts(rules), np.empty(F), np.empty((2, F), np.int64)


@register_agent("qdv")
class QdvHeuristic(CompiledAgent):
    """Rule-of-thumb qdv player (see the module docstring): ``heuristic_policy``."""

    policy, act_kernel = heuristic_policy, act_kernel

    # both extremes of every parameter worth varying: the variants ``bluffsim evaluate`` and
    # the robustness ladders seat (``bluffsim.evaluate.heuristic_extremes``)
    EXTREMES = {"call_margin": (0.0, 3.0), "exact_window": (0.0, 1.0), "bluff": (0.0, 0.5),
                "switch_gain": (0.0, 3.0), "salad_weight": (0.0, 1.0)}
    name = "heuristic"
    traits = Traits(stochastic=True)
    params = {"call_margin": 1.0, "exact_window": 0.3, "bluff": 0.1, "switch_gain": 1.0,
              "salad_weight": 0.5}
    spec = {
        "call_margin": real(doc="call menteur when the bid exceeds the expected count by more"),
        "exact_window": real(0, doc="say vrai when the bid is within this of the expected count"),
        "bluff": probability("chance of raising on a random fruit"),
        "switch_gain": real(doc="switch fruit when another's expected count is higher by more"),
        "salad_weight": probability("what an unseen salad is expected to add to a count"),
    }

    def context(self) -> tuple:
        """The policy's ``ctx`` (``contexts``)."""
        return contexts(self.game.rules)
