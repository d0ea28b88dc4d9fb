"""veru ``heuristic``: tell the truth when you can, dump aces and odd cards in claims, doubt the impossible.

- announce: the open rank I hold most naturals of;
- putting: matching cards first (naturals, then Jokers); then, with
  probability ``bluff`` per card, fill the claim (up to three) with a lie: an
  ace if I have one (aces can only ever leave inside a lie), else a card of my
  *thinnest* other rank (a single card costs a whole opening to shed
  truthfully, a pair or triple sheds in one); a claim with nothing true starts
  with the same card;
- responding: ``disbelieve`` when the claim count exceeds the fitting cards
  that can still be out there: four (plus ``joker_slack``) minus those I know
  are elsewhere — in my hand, in my Bank, gone out (face up, or mine unseen),
  or known to sit in a hand (``known_in_hand``); otherwise add true cards if I
  have any; otherwise estimate the chance the claim is true as
  ``t ** claim_count`` (``fmath.pow``: the same bits on every CPU) and believe above one half,
  doubt below.

The chance ``t`` that a claimed card is genuine:
- ``trust`` a priori (before anybody's claim has been checked);
- the table's record: every other seat's checked claims (public: ``claims_checked``)
  update it, ``t0 = (trust * record + true) / (record + checked)`` — a newcomer is
  judged by how the table has played;
- the claimant's own record updates that again,
  ``t = (t0 * record + true) / (record + checked)`` (``record`` = 0 ignores both
  records: ``t = trust`` before the round's cap);
- the round caps it: the running round's claims by the others (their Bank cards
  and the claim on the table, all claiming the rank) cannot all be genuine when
  they outnumber the fitting cards that can still be out there (as above), so
  ``t`` is at most that number over the claimed cards.

Why (the robustness ladder, ``experiments/ladders/veru_ladder.md``, against
random players): a trusting heuristic believed a random claimant's lies until that
claimant had a record of its own — nearly all its wrong believes came in the first
round, on three-card claims into a Bank already full of claimed cards; the table's record and the
round cap fix that (``trust=1``: 4p win rate 0.261 -> 0.511, 6p 0.069 -> 0.271); the
thin lie card sheds a hand's singles first (without it, 1,000 games: 4p 0.49, 6p 0.29
instead of 0.52, 0.33); the default went from 6p 0.243 to 0.288.  ``bluff=0`` still
never puts a lie into a claim that has a true card, so it sheds only true cards (about
1.4 a claim) and cannot shed an ace until its hand is aces only: against reckless
random players that is too slow to finish first (docs/strength.md, robustness ladders).

One compiled policy (``heuristic_policy``, ``agents.policy``'s contract) on one observation
record, which ``act`` and the fused loop both run: the uniform is the decision's first word
(``AgentRNG.uniform(1)``), the genuine chance sums small integers in float64 (exact in any
order) and ``t ** count`` is ``fmath.pow``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.base import Traits, integer, probability, register_agent
from agents.policy import CompiledAgent, act_loop
from bluffsim import fmath as fm
from bluffsim import rng_nb as rn
from bluffsim.games.veru import rules as R

# the agent's parameters in the order of the ``params`` row the policy reads
PARAMS = ("bluff", "trust", "joker_slack", "record")
BLUFF, TRUST, JOKER_SLACK, RECORD = range(len(PARAMS))


@njit(cache=True)
def announce(obs):
    """The ``announce`` action of the open rank I hold most naturals of (first on ties)."""
    best = 0
    best_v = np.int64(-1) if obs.closed[0] else np.int64(obs.hand[0])
    for k in range(1, R.ANNOUNCEABLE):
        v = np.int64(-1) if obs.closed[k] else np.int64(obs.hand[k])
        if v > best_v:
            best, best_v = k, v
    return np.int64(R.ANNOUNCE0 + best)


@njit(cache=True)
def lie_card(obs, rank):
    """The card type to lie with: an ace if held, else a card of my thinnest rank other than
    ``rank`` (lowest type on ties), else my most plentiful card (first on ties)."""
    hand = obs.hand
    if hand[R.ACE] > 0:
        return np.int64(R.ACE)
    thin = -1
    thin_n = 99
    for t in range(R.NUM_TYPES):
        n = np.int64(hand[t])
        if t == R.JOKER or t == rank or n <= 0:
            continue
        if n < thin_n:
            thin, thin_n = t, n
    if thin >= 0:
        return np.int64(thin)
    best = 0
    for t in range(1, R.NUM_TYPES):
        if hand[t] > hand[best]:
            best = t
    return np.int64(best)


@njit(cache=True)
def fitting_left(obs, rank, slack):
    """Fitting cards of ``rank`` the others' claims could hold: four plus ``slack`` minus the
    naturals I know are elsewhere (my hand, my Bank, out face up, mine out unseen, known to
    sit in a hand)."""
    known = (np.int64(obs.hand[rank]) + np.int64(obs.my_bank[rank])
             + np.int64(obs.discard_seen[rank]) + np.int64(obs.my_out[rank]))
    for q in range(obs.known_in_hand.shape[0]):
        known += obs.known_in_hand[q, rank]
    return 4 + slack - known


@njit(cache=True)
def genuine_chance(obs, trust, record):
    """The chance a card of the claim on the table is genuine: ``trust``, updated by the
    others' checked claims, then by the claimant's (module docstring; sums of small integers
    in float64: exact in any order)."""
    if record <= 0:
        return trust
    me = max(np.int64(obs.seat), 0)
    cl = max(np.int64(obs.claimant), 0)
    checked = obs.claims_checked
    false_n = 0.0
    true_n = 0.0
    for q in range(checked.shape[0]):
        if q != me:
            false_n += np.float64(checked[q, 0])
            true_n += np.float64(checked[q, 1])
    own_false = 0.0
    own_true = 0.0
    if cl != me:
        own_false = np.float64(checked[cl, 0])
        own_true = np.float64(checked[cl, 1])
    rec = np.float64(record)
    t0 = (trust * rec + true_n) / (rec + (false_n + true_n))
    return (t0 * rec + own_true) / (rec + (own_false + own_true))


@njit(cache=True, inline="always")
def scripted_move(obs):
    """The move of every veru policy outside putting and responding: ``announce`` when
    announcing, action 0 in a phase of one action; -1 when the policy must choose."""
    if obs.phase == R.PHASE_ANNOUNCE:
        return announce(obs)
    if obs.phase != R.PHASE_PUT and obs.phase != R.PHASE_RESPOND:
        return np.int64(0)
    return np.int64(-1)


@njit(cache=True)
def heuristic_policy(obs, mask, key, r, params, ctx):
    """The ``heuristic`` policy (``agents.policy``; ``params`` in ``PARAMS`` order, no ``ctx``):
    announce, put and respond by the rules of the module docstring."""
    move = scripted_move(obs)
    if move >= 0:
        return move
    ph = obs.phase
    rank = max(np.int64(obs.claim_rank), 0)
    count = np.int64(obs.claim_count)
    left = fitting_left(obs, rank, np.int64(params[JOKER_SLACK]))
    if ph == R.PHASE_RESPOND and count > left:  # impossible: doubt, before adding true cards
        return np.int64(R.DISBELIEVE)
    if obs.hand[rank] > 0:  # true cards first: naturals, then Jokers
        return np.int64(R.PUT0 + rank)
    if obs.hand[R.JOKER] > 0:
        return np.int64(R.PUT0 + R.JOKER)
    if ph == R.PHASE_PUT:
        if obs.put_count > 0 and not rn.uniform(rn.minor_word(key, 0)) < params[BLUFF]:
            return np.int64(R.DONE)
        return R.PUT0 + lie_card(obs, rank)
    # responding without a true card: believe when t ** count > 1/2, t capped by the round
    t = genuine_chance(obs, params[TRUST], np.int64(params[RECORD]))
    others = count
    for q in range(obs.bank_sizes.shape[0]):
        others += obs.bank_sizes[q]
    for k in range(R.NUM_TYPES):
        others -= obs.my_bank[k]
    cap = min(max(np.float64(left) / np.float64(max(others, 1)), 0.0), 1.0)
    if cap < t:
        t = cap
    if fm.pow(t, np.float64(max(count, 1))) > 0.5:
        return np.int64(R.BELIEVE)
    return np.int64(R.DISBELIEVE)


@njit(cache=True)
def act_kernel(records, mask, keys, rules, params, ctx, out):
    """``heuristic_policy`` on every row (``agents.policy.act_loop``)."""
    act_loop(heuristic_policy, records, mask, keys, rules, params, ctx, out)


def complete(obs: dict[str, np.ndarray], dtype: np.dtype) -> dict[str, np.ndarray]:
    """``obs`` with every field of the observation record ``dtype``, those it lacks as zeros:
    an observation without the memory fields or the tallies is one that remembers nothing."""
    b = len(next(iter(obs.values())))
    return {n: obs[n] if n in obs else np.zeros((b, *dtype[n].shape), dtype[n].base)
            for n in dtype.names}


@register_agent("veru")
class VeruHeuristic(CompiledAgent):
    """Rule-of-thumb veru player (see the module docstring): ``heuristic_policy``."""

    policy, act_kernel = heuristic_policy, act_kernel

    # both extremes of every parameter worth varying: the variants ``bluffsim evaluate`` and
    # the robustness ladders seat (``bluffsim.evaluate.heuristic_extremes``)
    EXTREMES = {"bluff": (0.0, 1.0), "trust": (0.0, 1.0), "joker_slack": (0, 2)}
    name = "heuristic"
    traits = Traits(stochastic=True, uses_history=True)
    params = {"bluff": 0.5, "trust": 0.6, "joker_slack": 0, "record": 2}
    spec = {
        "bluff": probability("chance per card of filling a claim with a lie"),
        "trust": probability("chance a claimed card is genuine (a priori)"),
        "joker_slack": integer(0, doc="extra cards a claim may exceed four by before I doubt"),
        "record": integer(0, doc="checked claims after which a record (the table's, then the "
                                 "claimant's) weighs as much as trust (0 = ignore records)"),
    }

    def observation(self, obs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """``obs`` with every field of the record (``complete``)."""
        return complete(obs, self.game.observation_dtype)
