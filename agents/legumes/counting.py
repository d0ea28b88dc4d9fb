"""legumes ``counting``: is the last face-down card the called vegetable?

Model.  The unseen pool is every card (the vegetable deck and each player's
four action cards) minus my hand, my face-down cards (on the table or
unrevealed in the discard pile), the face-up cards and the discard cards
known to all.  The accused player's hand before the card was
played (their hand now plus one) is a uniformly random subset of the pool, and
a player who holds the called vegetable plays it: the card is true iff that
hand held at least one card of the vegetable called when it was played, a
hypergeometric probability computed exactly (``p_true``).

Accusing costs me, in expectation, ``p_true`` times the average number printed
on the pool's cards of that vegetable (doubled with the Double accusation), and
makes the accused draw, with probability ``1 - p_true``, the average penalty of
the pool's other cards.  I accuse when ``spite`` times the second exceeds the
first by ``margin``, and double when ``p_true < double_below``.  Opening,
playing (``reverse <card>`` included) and, when this rule does not accuse,
the choice between accusing and accepting a player's last face-down card
follow the heuristic (accept when sure of second place at a table of 3+).

Simplifications: earlier accusations and plays are not used as evidence about
hands; all unplaced cards are treated alike (the draw pile included).
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent, probability, real, register_agent
from agents.combinatorics import log_choose
from agents.legumes.heuristic import LegumesHeuristic
from bluffsim.games.legumes import rules as R
from bluffsim.rng import AgentRNG

NUMBER = np.tile(np.arange(1, 4), R.NUM_VEG)


def unseen_pool(obs: dict[str, np.ndarray], rules: R.Rules) -> np.ndarray:
    """int64[B, T]: cards of each type I cannot place."""
    total = np.bincount(np.asarray(rules.deck), minlength=R.NUM_TYPES).astype(np.int64)
    total[list(R.ACTION_CARDS)] = rules.num_players
    known = (obs["hand"].astype(np.int64) + obs["my_face_down"] + obs["face_up"]
             + obs["discard_revealed"] + obs["my_discard"])
    return np.maximum(total[None, :] - known, 0)


def truth_probability(obs: dict[str, np.ndarray], rules: R.Rules) -> np.ndarray:
    """float[B]: probability the last face-down card is the vegetable called for it."""
    pool = unseen_pool(obs, rules)
    b = pool.shape[0]
    rows = np.arange(b)
    veg = np.maximum(obs["last_called"].astype(np.int64), 0)
    n_v = pool[:, :R.BOMB].reshape(b, R.NUM_VEG, 3).sum(axis=2)[rows, veg]
    u = pool.sum(axis=1)
    owner = np.maximum(obs["last_owner"].astype(np.int64), 0)
    h = np.minimum(obs["hand_sizes"][rows, owner].astype(np.int64) + 1, u)
    p_none = np.exp(log_choose(u - n_v, h) - log_choose(u, h))
    return np.clip(1.0 - p_none, 0.0, 1.0)


@register_agent("legumes")
class LegumesCounting(Agent):
    """Expected-cards legumes player (see the module docstring)."""

    name = "counting"
    traits = {"stochastic": True, "uses_history": True, "uses_observation": True}
    params = {"spite": 0.6, "margin": 0.0, "double_below": 0.25}
    spec = {
        "spite": real(0, doc="weight of the cards the accused would draw"),
        "margin": real(doc="accuse when the expected gain exceeds this"),
        "double_below": probability("double accusation when the play is true below this chance"),
    }

    def act(self, obs: dict[str, np.ndarray], legal_mask: np.ndarray, rng: AgentRNG) -> np.ndarray:
        """Accusations by expected cards drawn; opening and playing as the heuristic."""
        out = LegumesHeuristic(self.game, accuse_rate=0.0, accuse_at=99).act(obs, legal_mask, rng)
        # facing a player's last face-down card the heuristic's accept-or-accuse rule decides
        can = np.flatnonzero(legal_mask[:, R.ACCUSE] & ~legal_mask[:, R.ACCEPT])
        if can.size == 0:
            return out
        c = self.config
        sub = {k: v[can] for k, v in obs.items()}
        p = truth_probability(sub, self.game.rules)
        pool = unseen_pool(sub, self.game.rules).astype(float)
        rows = np.arange(can.size)
        veg = np.maximum(sub["last_called"].astype(np.int64), 0)
        veg_pool = pool[:, :R.BOMB].reshape(can.size, R.NUM_VEG, 3)
        mine = veg_pool[rows, veg]                                       # [n, 3]
        e_true = (mine * np.arange(1, 4)).sum(axis=1) / np.maximum(mine.sum(axis=1), 1)
        lie = self.game.rules.action_lie_penalty
        penalty = np.concatenate([NUMBER, [0, lie, lie, lie]])  # a Bomb makes nobody draw
        others = pool.copy()
        others[rows[:, None], veg[:, None] * 3 + np.arange(3)] = 0
        e_false = (others * penalty[None, :]).sum(axis=1) / np.maximum(others.sum(axis=1), 1)
        gain = c["spite"] * (1 - p) * e_false - p * e_true
        accuse = gain > c["margin"]
        double = accuse & legal_mask[can, R.ACCUSE_DOUBLE] & (p < c["double_below"])
        out[can] = np.where(double, R.ACCUSE_DOUBLE, np.where(accuse, R.ACCUSE, out[can]))
        return out
