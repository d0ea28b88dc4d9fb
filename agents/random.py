"""``random``: uniform over the legal actions, batched, from its own counter-based stream."""

from __future__ import annotations

import numpy as np

from agents.base import Agent, legal_positions, nth_legal
from bluffsim.rng import AgentRNG


class RandomAgent(Agent):
    """Picks each legal action with equal probability."""

    name = "random"
    games = ("qdv", "legumes", "veru")
    traits = {"stochastic": True, "uses_history": False, "uses_observation": False}

    def act(self, obs: dict[str, np.ndarray], legal_mask: np.ndarray, rng: AgentRNG) -> np.ndarray:
        """Uniform legal action per game (rows without a legal action get 0)."""
        positions = legal_positions(legal_mask)
        n = rng.below(np.maximum(positions[1], 1))
        return nth_legal(legal_mask, n, positions)
