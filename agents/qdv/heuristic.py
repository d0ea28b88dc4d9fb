"""qdv ``heuristic``: a rule-of-thumb bidder that counts only what it sees plus a fair share.

Model: the expected count of fruit ``f`` is what I see (my cards, face-up cards,
the centre) plus, for each hidden card in the other hands, the average value of
an unseen card for ``f`` (unseen salads count ``salad_weight`` each).

- bidding: call ``menteur`` when the standing bid exceeds the expected count by
  more than ``call_margin``; say ``vrai`` when it is within ``exact_window``;
  otherwise raise by 1 on the fruit with the highest expected count (staying on
  the current fruit unless another is better by ``switch_gain``), and with
  probability ``bluff`` raise on a random fruit instead;
- start choice: the fruit I hold the most of;
- salads: declare to help my own side of the call (all if I am the accused
  bidder, none if I called menteur, as many as make an exact count if I said vrai);
- exact-call reward: take the token.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent, Traits, probability, real, register_agent
from agents.qdv.common import VALUE, visible
from bluffsim.games.qdv import rules as R
from bluffsim.rng import AgentRNG


@register_agent("qdv")
class QdvHeuristic(Agent):
    """Rule-of-thumb qdv player (see the module docstring)."""

    # both extremes of every parameter worth varying: the variants ``bluffsim evaluate`` and
    # the robustness ladders seat (``bluffsim.evaluate.heuristic_extremes``)
    EXTREMES = {"call_margin": (0.0, 3.0), "exact_window": (0.0, 1.0), "bluff": (0.0, 0.5),
                "switch_gain": (0.0, 3.0), "salad_weight": (0.0, 1.0)}
    name = "heuristic"
    traits = Traits(stochastic=True)
    params = {"call_margin": 1.0, "exact_window": 0.3, "bluff": 0.1, "switch_gain": 1.0,
              "salad_weight": 0.5}
    spec = {
        "call_margin": real(doc="call menteur when the bid exceeds the expected count by more"),
        "exact_window": real(0, doc="say vrai when the bid is within this of the expected count"),
        "bluff": probability("chance of raising on a random fruit"),
        "switch_gain": real(doc="switch fruit when another's expected count is higher by more"),
        "salad_weight": probability("what an unseen salad is expected to add to a count"),
    }

    def expected_counts(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        """float[B, F]: visible value plus the hidden cards' expected share."""
        rules = self.game.rules
        v = visible(obs, rules)
        unseen = v["unseen_kinds"].astype(float)
        total_unseen = np.maximum(unseen.sum(axis=1), 1.0)
        per_card = (unseen @ VALUE + self.config["salad_weight"] * unseen[:, [R.SALAD]])
        per_card = per_card / total_unseen[:, None]
        return v["known"] + v["my_salads"][:, None] + v["hidden_cards"][:, None] * per_card

    def act(self, obs: dict[str, np.ndarray], legal_mask: np.ndarray, rng: AgentRNG) -> np.ndarray:
        """One action per game, by phase."""
        c = self.config
        b = legal_mask.shape[0]
        rows = np.arange(b)
        phase = obs["phase"]
        exp = self.expected_counts(obs)
        u = rng.uniform(2)
        out = np.zeros(b, np.int64)
        # --- bidding
        count = obs["bid_count"].astype(np.int64)
        fruit = np.maximum(obs["bid_fruit"].astype(np.int64), 0)
        e_bid = exp[rows, fruit]
        best = exp.argmax(axis=1)
        target = np.where(exp[rows, best] - e_bid > c["switch_gain"], best, fruit)
        bluff = u[:, 0] < c["bluff"]
        target = np.where(bluff, (u[:, 1] * R.NUM_FRUITS).astype(np.int64), target)
        raise_one = target  # "+1 <target>"
        can_raise = legal_mask[rows, raise_one]
        menteur = legal_mask[:, R.MENTEUR] & ((count - e_bid > c["call_margin"]) | ~can_raise)
        vrai = ~menteur & (np.abs(count - e_bid) <= c["exact_window"])
        vrai |= ~menteur & ~can_raise
        vrai &= legal_mask[:, R.VRAI]  # never on my own bid (I must bid again after a skip)
        bid_action = np.where(menteur, R.MENTEUR, np.where(vrai, R.VRAI, raise_one))
        out = np.where(phase == R.PHASE_BID, bid_action, out)
        # --- start choice
        out = np.where(phase == R.PHASE_START, R.START0 + exp.argmax(axis=1), out)
        # --- salad declarations
        out = np.where(phase == R.PHASE_SALADS, declare_salads(obs), out)
        # --- exact-call reward
        out = np.where(phase == R.PHASE_REWARD, self.game.rules.gain_id, out)
        return out


def declare_salads(obs: dict[str, np.ndarray]) -> np.ndarray:
    """int64[B]: salad-declaration action helping my side of the call: all if I am the
    accused bidder, none if I called menteur, as many as make the count exact if I said vrai."""
    held = obs["hand"][:, R.SALAD].astype(np.int64)
    seat = obs["seat"].astype(np.int64)
    short = np.clip(obs["bid_count"].astype(np.int64) - obs["showdown_count"], 0, held)
    i_called = obs["caller"] == seat
    i_bid = obs["bidder"] == seat
    menteur = obs["call"] == R.CALL_MENTEUR
    k = np.where(i_called & menteur, 0,
                 np.where(i_called, short, np.where(i_bid & menteur, held, 0)))
    return R.SALADS0 + k
