"""legumes ``heuristic``: play the called vegetable if you hold it, else shed cheaply; accuse
when you hold many of the called vegetable.

- open: call the vegetable I hold most of and open with its highest card;
- play: the called vegetable's highest card if I hold one; else, when I hold
  two or more of another vegetable and have the Vegetable choice card, call
  that vegetable; else my cheapest vegetable card (action cards last);
- accuse when I hold at least ``accuse_at`` cards of the vegetable the last
  card was played as (with the Double accusation at ``double_at``), and
  otherwise with probability ``accuse_rate``.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent, integer, probability
from bluffsim.games.legumes import rules as R
from bluffsim.rng import AgentRNG

VEG_OF = np.repeat(np.arange(R.NUM_VEG), 3)
NUMBER = np.tile(np.arange(1, 4), R.NUM_VEG)


class LegumesHeuristic(Agent):
    """Rule-of-thumb legumes player (see the module docstring)."""

    name = "heuristic"
    games = ("legumes",)
    traits = {"stochastic": True, "uses_history": False, "uses_observation": True}
    params = {"accuse_at": 3, "double_at": 5, "accuse_rate": 0.15}
    spec = {
        "accuse_at": integer(0, doc="accuse when holding this many of the called vegetable"),
        "double_at": integer(0, doc="double accusation when holding this many"),
        "accuse_rate": probability("chance of accusing anyway"),
    }

    def act(self, obs: dict[str, np.ndarray], legal_mask: np.ndarray, rng: AgentRNG) -> np.ndarray:
        """One action per game, by phase."""
        c = self.config
        b = legal_mask.shape[0]
        rows = np.arange(b)
        u = rng.uniform(1)[:, 0]
        hand = obs["hand"].astype(np.int64)
        veg_cards = hand[:, :R.BOMB].reshape(b, R.NUM_VEG, 3)
        per_veg = veg_cards.sum(axis=2)
        # highest held card of each vegetable (type index), -1 if none
        top = np.where(veg_cards[:, :, 2] > 0, 2, np.where(veg_cards[:, :, 1] > 0, 1,
                                                             np.where(veg_cards[:, :, 0] > 0, 0, -1)))
        best = per_veg.argmax(axis=1)
        open_card = np.where(top[rows, best] >= 0, best * 3 + top[rows, best],
                             hand.argmax(axis=1))
        opening = R.OPEN0 + open_card * R.NUM_VEG + best
        called = np.maximum(obs["called"].astype(np.int64), 0)
        have_called = top[rows, called] >= 0
        play_called = R.PLAY0 + called * 3 + np.maximum(top[rows, called], 0)
        cheap_score = np.where(hand[:, :R.BOMB] > 0, NUMBER[None, :], 99)
        cheapest = np.where(cheap_score.min(axis=1) < 99, cheap_score.argmax(axis=1) * 0
                            + cheap_score.argmin(axis=1), hand.argmax(axis=1))
        switch = (~have_called & (hand[:, R.CHOICE] > 0) & (per_veg.max(axis=1) >= 2))
        play = np.where(have_called, play_called,
                        np.where(switch, R.CHOICE0 + best, R.PLAY0 + cheapest))
        last_veg = np.maximum(obs["last_called"].astype(np.int64), 0)
        many = per_veg[rows, last_veg]
        accuse = legal_mask[:, R.ACCUSE] & ((many >= c["accuse_at"]) | (u < c["accuse_rate"]))
        double = accuse & legal_mask[:, R.ACCUSE_DOUBLE] & (many >= c["double_at"])
        act_play = np.where(double, R.ACCUSE_DOUBLE, np.where(accuse, R.ACCUSE, play))
        out = np.where(obs["phase"] == R.PHASE_OPEN, opening, act_play)
        ok = legal_mask[rows, np.clip(out, 0, legal_mask.shape[1] - 1)]
        return np.where(ok, out, legal_mask.argmax(axis=1))
