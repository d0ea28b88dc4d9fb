"""``random``: uniform over the legal actions, batched, from its own counter-based stream.

One compiled policy (``random_policy``, ``agents.policy``'s contract): the ``n``-th legal
action in id order with ``n = below(word, number of legal actions)`` and ``word`` the first
word of the agent's stream for this decision (``AgentRNG``).  ``act`` and the fused loop both
call it.  Works for every game.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.base import Agent, Traits, register_agent
from agents.policy import decision_keys
from bluffsim import rng_nb as rn
from bluffsim.rng import AgentRNG


@njit(cache=True)
def random_policy(obs, mask, key, r, params, ctx):
    """The ``random`` policy (``agents.policy``): the ``n``-th legal action in id order, ``n``
    uniform below the number of legal actions from the decision's first word (0 if none)."""
    count = 0
    for a in range(mask.shape[0]):
        if mask[a]:
            count += 1
    if count == 0:
        return np.int64(0)
    k = rn.below(rn.minor_word(key, 0), count)
    for a in range(mask.shape[0]):
        if mask[a]:
            if k == 0:
                return np.int64(a)
            k -= 1
    return np.int64(0)


@njit(cache=True)
def random_kernel(mask, keys, out) -> None:
    """``out[b]``: ``random_policy`` of row ``b`` (it reads no observation)."""
    for b in range(mask.shape[0]):
        out[b] = random_policy(None, mask[b], keys[b], None, None, None)


@register_agent()
class RandomAgent(Agent):
    """Picks each legal action with equal probability."""

    name = "random"
    traits = Traits(stochastic=True, uses_observation=False)

    def act(self, obs: dict[str, np.ndarray], legal_mask: np.ndarray, rng: AgentRNG) -> np.ndarray:
        """Uniform legal action per game (rows without a legal action get 0)."""
        mask = np.asarray(legal_mask, dtype=bool)
        out = np.empty(mask.shape[0], np.int64)
        random_kernel(mask, decision_keys(rng), out)
        return out
