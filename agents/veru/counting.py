"""veru ``counting``: how likely is the last claim true, given every card I can place?

Card counting.  The cards I cannot place are the unseen pool: the deck minus my
hand, my cards on the table and in the Bank, and the cards out face up.  Per
type, a card I cannot place may not exist (two naturals became Jokers, some
cards left unseen), so the missing ones are spread over the types in
proportion: ``good`` is the expected number of fitting cards (the rank's
naturals plus Jokers) in the pool (``unseen_counts``).  Hands are uniformly
random subsets of the pool, so whether a given player holds a fitting card is
an exact hypergeometric term (``next_holds_fitting``; checked against
enumeration in the tests).

Opponent model.  Whether a claimant lies when it could tell the truth is
behaviour, not cards, so the posterior that the claim is true is a logistic
model over card-counting features (``HONESTY_FEATURES``: the fitting share of
the pool, the claim size, whether the claim adds to a running round, the
claimant's share of all pick-ups and its hand size).  ``HONESTY_WEIGHTS`` were
fitted once by ``experiments/fit_veru_counting.py`` on about 43,000 answered
claims of a 4-player lineup (log-loss about 0.52 against 0.68 for a constant);
the ladder that ranks the agents is a different, 3-player lineup.  (The exact
"claimant held at least k fitting cards" tail added nothing next to the pool
share — fitted weight -0.01 — and was dropped.)

Decisions.
- respond: add a true card when I hold one (shedding a card that can never
  come back); else believe when ``p * open_value - (1 - p) * pot`` beats
  disbelieve's ``(1 - p) * open_value - p * pot`` (``pot`` = claim + Bank,
  ``open_value`` = the worth of opening the next round), i.e. believe iff
  ``p >= 1/2``;
- putting: true cards first (as the heuristic); out of true cards mid-claim,
  pad with a lie (an ace first) when the next player holds a fitting card with
  probability at least ``pad_above`` — that player will probably add, which
  sends my lie to the Bank unchecked;
- announcing: the open rank I hold most (as the heuristic).

Simplifications: pick-ups I saw are not tracked per card (the seat may have
played them since); all unplaced cards of a type are alike.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent, probability, real, register_agent
from agents.combinatorics import hypergeom_pmf
from agents.veru.heuristic import VeruHeuristic
from bluffsim.games.veru import rules as R
from bluffsim.rng import AgentRNG


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


def smooth_pmf(pool: np.ndarray, good: np.ndarray, draws: np.ndarray, x: int) -> np.ndarray:
    """``hypergeom_pmf`` with a fractional ``good``: linear between its two integer neighbours."""
    lo = np.floor(good)
    w = good - lo
    lo = lo.astype(np.int64)
    return (1 - w) * hypergeom_pmf(pool, lo, draws, x) + w * hypergeom_pmf(pool, lo + 1, draws, x)


def honesty_features(obs: dict[str, np.ndarray], rules: R.Rules) -> np.ndarray:
    """float64[B, F]: the opponent model's inputs, in ``HONESTY_FEATURES`` order."""
    b = obs["hand"].shape[0]
    rows = np.arange(b)
    pool, good, _ = unseen_counts(obs, rules)
    k = obs["claim_count"].astype(np.int64)
    claimant = np.maximum(obs["claimant"].astype(np.int64), 0)
    taken = obs["taken"].astype(np.float64)
    return np.stack([np.ones(b), k == 2, k == 3,
                     obs["bank_sizes"].astype(np.int64).sum(axis=1) > 0,
                     taken[rows, claimant] / (1.0 + taken.sum(axis=1)),
                     obs["hand_sizes"][rows, claimant] / 10.0, good / pool], axis=1).astype(np.float64)


HONESTY_FEATURES = ("bias", "claims 2", "claims 3", "adds to a round",
                    "share of all pick-ups", "hand size / 10", "fitting share of the pool")
# fitted by experiments/fit_veru_counting.py (logistic regression on logged checks)
HONESTY_WEIGHTS = np.array([-0.462, -1.261, -2.664, -1.734, -1.136, 2.212, 8.545])


def claim_probability(obs: dict[str, np.ndarray], rules: R.Rules,
                      weights: np.ndarray | None = None) -> np.ndarray:
    """float[B]: probability that the claim on the table is true (module model)."""
    w = HONESTY_WEIGHTS if weights is None else np.asarray(weights, dtype=np.float64)
    return 1.0 / (1.0 + np.exp(-(honesty_features(obs, rules) @ w)))


def next_in_turn(obs: dict[str, np.ndarray], step: int) -> np.ndarray:
    """int64[B]: the first seat after me in turn order that has not finished."""
    p = obs["out"].shape[1]
    seat = np.maximum(obs["seat"].astype(np.int64), 0)
    ahead = (seat[:, None] + step * np.arange(1, p)[None, :]) % p
    playing = ~np.take_along_axis(obs["out"], ahead, axis=1)
    return ahead[np.arange(seat.size), playing.argmax(axis=1)]


def next_holds_fitting(obs: dict[str, np.ndarray], rules: R.Rules, step: int) -> np.ndarray:
    """float[B]: probability that the next player in turn holds at least one card fitting
    the round's rank (its hand a uniformly random subset of the unseen pool)."""
    rows = np.arange(obs["hand"].shape[0])
    pool, good, _ = unseen_counts(obs, rules)
    hand = np.minimum(obs["hand_sizes"][rows, next_in_turn(obs, step)].astype(np.int64), pool)
    return 1.0 - smooth_pmf(pool, good, hand, 0)


@register_agent("veru")
class VeruCounting(Agent):
    """Expected-value veru responder over the posterior of the claim (module docstring)."""

    name = "counting"
    traits = {"stochastic": True, "uses_history": True, "uses_observation": True}
    params = {"pad_above": 0.5, "open_value": 1.0, "add_margin": 0.0}
    spec = {
        "pad_above": probability("pad a claim with a lie when the next player fits this likely"),
        "open_value": real(0, doc="worth of opening the next round, in cards"),
        "add_margin": real(doc="prefer adding true cards unless checking is better by more"),
    }

    def act(self, obs: dict[str, np.ndarray], legal_mask: np.ndarray, rng: AgentRNG) -> np.ndarray:
        """Responds and pads by expected value; announcing and true cards as the heuristic."""
        out = VeruHeuristic(self.game, bluff=0.0).act(obs, legal_mask, rng)
        resp = np.flatnonzero(obs["phase"] == R.PHASE_RESPOND)
        if resp.size:
            choice = self.respond({k: v[resp] for k, v in obs.items()})
            out[resp] = np.where(legal_mask[resp, choice], choice, out[resp])
        stop = np.flatnonzero((obs["phase"] == R.PHASE_PUT) & (out == R.DONE))
        if stop.size:
            choice = self.pad({k: v[stop] for k, v in obs.items()})
            out[stop] = np.where(legal_mask[stop, choice], choice, out[stop])
        return out

    def pad(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        """Out of true cards mid-claim: add a lie (an ace if I have one) when the next
        player probably holds a fitting card, so would add rather than check."""
        q = next_holds_fitting(obs, self.game.rules, self.game.rules.step)
        hand = obs["hand"].astype(np.int64)
        lie = np.where(hand[:, R.ACE] > 0, R.PUT0 + R.ACE, R.PUT0 + hand.argmax(axis=1))
        return np.where(q >= self.config["pad_above"], lie, R.DONE)

    def respond(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        """Believe, disbelieve or add a true card, whichever has the best expected value."""
        c = self.config
        p = claim_probability(obs, self.game.rules)
        pot = obs["claim_count"].astype(np.int64) + obs["bank_sizes"].astype(np.int64).sum(axis=1)
        ev_believe = p * c["open_value"] - (1 - p) * pot
        ev_doubt = -p * pot + (1 - p) * c["open_value"]
        check = np.where(ev_believe >= ev_doubt, R.BELIEVE, R.DISBELIEVE)
        rows = np.arange(p.size)
        rank = np.maximum(obs["claim_rank"].astype(np.int64), 0)
        hand = obs["hand"].astype(np.int64)
        natural = hand[rows, rank]
        true_cards = np.minimum(natural + hand[:, R.JOKER], 3)
        add = np.where(natural > 0, R.PUT0 + rank, R.PUT0 + R.JOKER)
        prefer_add = (true_cards > 0) & (true_cards + c["add_margin"] >= np.maximum(ev_believe, ev_doubt))
        return np.where(prefer_add, add, check)
