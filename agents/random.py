"""``random``: uniform over the legal actions, batched, from its own counter-based stream.

The choice is compiled (``random_kernel``): per game, the ``n``-th legal action in id
order with ``n = below(word, number of legal actions)`` and ``word`` the first word of
the agent's stream for this decision (``AgentRNG``), exactly what the numpy
``AgentRNG.below`` + ``nth_legal`` gave.  Works for every game.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.base import Agent, Traits, register_agent
from bluffsim import rng_nb as rn
from bluffsim.rng import AgentRNG


@njit(cache=True)
def random_kernel(mask, seeds, streams, decisions, out) -> None:
    """``out[b]``: the uniform legal action of row ``b`` (0 for a row without one)."""
    n_actions = mask.shape[1]
    for b in range(mask.shape[0]):
        count = 0
        for a in range(n_actions):
            if mask[b, a]:
                count += 1
        out[b] = 0
        if count == 0:
            continue
        k = rn.below(rn.word(seeds[b], streams[b], decisions[b], 0), count)
        for a in range(n_actions):
            if mask[b, a]:
                if k == 0:
                    out[b] = a
                    break
                k -= 1


@register_agent()
class RandomAgent(Agent):
    """Picks each legal action with equal probability."""

    name = "random"
    traits = Traits(stochastic=True, uses_observation=False)

    def act(self, obs: dict[str, np.ndarray], legal_mask: np.ndarray, rng: AgentRNG) -> np.ndarray:
        """Uniform legal action per game (rows without a legal action get 0)."""
        mask = np.asarray(legal_mask, dtype=bool)
        out = np.empty(mask.shape[0], np.int64)
        random_kernel(mask, rng.seeds, rng.streams.astype(np.int64, copy=False), rng.decisions, out)
        return out
