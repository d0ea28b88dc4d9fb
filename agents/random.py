"""``random``: uniform over the legal actions, batched, from its own counter-based stream."""

from __future__ import annotations

import numpy as np

from agents.base import Agent, legal_count, nth_legal
from bluffsim.rng import AgentRNG


class RandomAgent(Agent):
    """Picks each legal action with equal probability."""

    name = "random"
    games = ("qdv", "legumes", "veru")
    traits = {"stochastic": True, "uses_history": False}

    def act(self, obs: dict[str, np.ndarray], legal_mask: np.ndarray, rng: AgentRNG) -> np.ndarray:
        """Uniform legal action per game (rows without a legal action get 0)."""
        n = legal_count(legal_mask)
        return nth_legal(legal_mask, rng.below(np.maximum(n, 1)))
