"""veru ``counting``: is the last claim true, given every card I can place?

Model.  The cards I cannot place are the unseen pool: the deck (52, Jokers
included) minus my hand, my cards on the table and in the Bank, and the cards
out of the game face up.  Cards out unseen (the Bank after a believed true
claim, swapped cards) stay in the pool by count, as do the cards I saw going to
other hands (they may have been played on since).  Of the pool, ``a`` cards
match the claimed rank (the naturals not seen plus the unseen Jokers).  The
claimant's hand before the claim (``h + k`` cards) is a uniformly random subset
of the pool, and the claimant tells the truth whenever it can: the claim of
``k`` cards is true iff that hand held at least ``k`` matching cards, a
hypergeometric tail computed exactly (``p_true``).

Decisions, by expected cards taken: believing costs ``(1 - p) * pot``,
disbelieving ``p * pot`` (``pot`` = claim + Bank); adding is preferred when I
hold matching cards and the cheaper check still costs more than ``add_margin``
cards.  Announcing and putting follow the heuristic.

Simplifications: the claimant's own previous claims and pick-ups are not used
as evidence about its hand; all unplaced cards are treated alike.
"""

from __future__ import annotations

from math import lgamma

import numpy as np

from agents.base import Agent
from agents.veru.heuristic import VeruHeuristic
from bluffsim.games.veru import rules as R
from bluffsim.rng import AgentRNG

LOG_FACT = np.array([lgamma(n + 1) for n in range(128)])


def _log_choose(n: np.ndarray, k: np.ndarray) -> np.ndarray:
    ok = (k >= 0) & (k <= n)
    n_, k_ = np.clip(n, 0, 127), np.clip(k, 0, 127)
    return np.where(ok, LOG_FACT[n_] - LOG_FACT[k_] - LOG_FACT[np.clip(n_ - k_, 0, 127)], -np.inf)


def hypergeom_tail(pool: np.ndarray, good: np.ndarray, draws: np.ndarray,
                   at_least: np.ndarray) -> np.ndarray:
    """P(X >= at_least) for X ~ Hypergeometric(pool, good, draws), vectorised and exact."""
    pool, good, draws, at_least = (np.asarray(x, dtype=np.int64) for x in
                                   (pool, good, draws, at_least))
    total = np.zeros(np.broadcast(pool, good, draws, at_least).shape)
    for x in range(0, 4):  # at_least <= 3 in veru
        lp = (_log_choose(good, x) + _log_choose(pool - good, draws - x)
              - _log_choose(pool, draws))
        total += np.where(x < at_least, np.exp(lp), 0.0)
    return np.clip(1.0 - total, 0.0, 1.0)


def claim_probability(obs: dict[str, np.ndarray], rules: R.Rules) -> np.ndarray:
    """float[B]: probability the claim on the table is true (module model)."""
    b = obs["hand"].shape[0]
    rows = np.arange(b)
    rank = np.maximum(obs["claim_rank"].astype(np.int64), 0)
    known = (obs["hand"].astype(np.int64) + obs["my_table"] + obs["my_bank"]
             + obs["discard_seen"])
    deck = np.full(R.NUM_TYPES, 4, np.int64)  # 4 per rank (an upper bound after Jokers)
    deck[R.JOKER] = rules.jokers
    pool_counts = np.maximum(deck[None, :] - known, 0)
    # Joker-replaced naturals do not exist; cards out unseen are in no hand
    pool = pool_counts.sum(axis=1) - rules.jokers - obs["discard_hidden"].astype(np.int64)
    pool = np.maximum(pool, 1)
    good = pool_counts[rows, rank] + pool_counts[:, R.JOKER]
    good = np.minimum(good, pool)
    k = obs["claim_count"].astype(np.int64)
    claimant = np.maximum(obs["claimant"].astype(np.int64), 0)
    h = obs["hand_sizes"][rows, claimant].astype(np.int64) + k
    return hypergeom_tail(pool, good, np.minimum(h, pool), k)


class VeruCounting(Agent):
    """Expected-cards-taken veru player (see the module docstring)."""

    name = "counting"
    games = ("veru",)
    traits = {"stochastic": True, "uses_history": True, "uses_observation": True}
    params = {"add_margin": 1.0, "bluff": 0.5}

    def act(self, obs: dict[str, np.ndarray], legal_mask: np.ndarray, rng: AgentRNG) -> np.ndarray:
        """Checks by expected cards taken; announcing and putting as the heuristic."""
        out = VeruHeuristic(self.game, bluff=self.config["bluff"]).act(obs, legal_mask, rng)
        resp = np.flatnonzero(obs["phase"] == R.PHASE_RESPOND)
        if resp.size == 0:
            return out
        sub = {k: v[resp] for k, v in obs.items()}
        lm = legal_mask[resp]
        p = claim_probability(sub, self.game.rules)
        pot = sub["claim_count"].astype(np.int64) + sub["bank_sizes"].astype(np.int64).sum(axis=1)
        cost_believe = (1 - p) * pot
        cost_doubt = p * pot
        check = np.where(cost_believe <= cost_doubt, R.BELIEVE, R.DISBELIEVE)
        rank = np.maximum(sub["claim_rank"].astype(np.int64), 0)
        hand = sub["hand"].astype(np.int64)
        rows = np.arange(resp.size)
        can_add = (hand[rows, rank] > 0) | (hand[:, R.JOKER] > 0)
        add = np.where(hand[rows, rank] > 0, R.PUT0 + rank, R.PUT0 + R.JOKER)
        prefer_add = can_add & (np.minimum(cost_believe, cost_doubt) > self.config["add_margin"])
        choice = np.where(prefer_add, add, check)
        ok = lm[rows, choice]
        out[resp] = np.where(ok, choice, out[resp])
        return out
