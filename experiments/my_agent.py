"""An example of your own agent (README "Your own agent"): a qdv player that calls
``menteur`` with probability ``p_call`` whenever it may, and otherwise plays a random
legal action that is not a call.  Run it with ``bluffsim run experiments/custom_agent.toml``
from the repository root (``agent = "experiments.my_agent:Skeptic"``)."""

import numpy as np


class Skeptic:
    name = "skeptic"                       # shown in errors
    games = ("qdv",)                       # optional: the games it plays
    traits = {"stochastic": True, "uses_history": False}

    def __init__(self, game, p_call=0.5):
        if not 0.0 <= p_call <= 1.0:
            raise ValueError(f"p_call = {p_call!r}: give a probability")
        self.p_call, self.menteur = p_call, game.action_id("menteur")

    def act(self, obs, legal_mask, rng):
        """One legal action id per game: int[B]."""
        u = rng.uniform(2)                                   # [B, 2] floats in [0, 1)
        may_call = legal_mask[:, self.menteur]
        call = may_call & (u[:, 0] < self.p_call)
        other = legal_mask.copy()
        other[may_call & (legal_mask.sum(axis=1) > 1), self.menteur] = False
        pick = (u[:, 1] * other.sum(axis=1)).astype(np.int64)  # the pick-th other legal action
        nth = np.argmax(np.cumsum(other, axis=1) > pick[:, None], axis=1)
        return np.where(call, self.menteur, nth).astype(np.int64)
