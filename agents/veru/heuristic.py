"""veru ``heuristic``: tell the truth when you can, dump aces inside claims, doubt the impossible.

- announce: the open rank I hold most naturals of;
- putting: matching cards first (naturals, then Jokers); then, with
  probability ``bluff`` per card, fill the claim (up to three) with an ace or
  my most plentiful other card; a claim with nothing true starts with an ace if
  I have one, else with my most plentiful card;
- responding: ``disbelieve`` when the claim count plus my own cards of that rank
  plus those known out exceed the four that exist (plus ``joker_slack``);
  otherwise add true cards if I have any; otherwise estimate the chance the
  claim is true as ``t ** claim_count`` (a claimed card is genuine with
  probability ``t`` when the rank is still possible) and believe above
  one half, doubt below.  ``t`` is ``trust`` for a claimant without a record;
  once its claims have been checked, its record counts too:
  ``t = (trust * record + true) / (record + checked)`` (``record`` = 0 ignores it,
  ``t = trust`` always).
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent, Traits, integer, probability, register_agent
from bluffsim.games.veru import rules as R
from bluffsim.rng import AgentRNG


@register_agent("veru")
class VeruHeuristic(Agent):
    """Rule-of-thumb veru player (see the module docstring)."""

    name = "heuristic"
    traits = Traits(stochastic=True, uses_history=True)
    params = {"bluff": 0.5, "trust": 0.6, "joker_slack": 0, "record": 2}
    spec = {
        "bluff": probability("chance per card of filling a claim with a lie"),
        "trust": probability("chance a claimed card is genuine"),
        "joker_slack": integer(0, doc="extra cards a claim may exceed four by before I doubt"),
        "record": integer(0, doc="checked claims after which a claimant's record weighs as "
                                 "much as trust (0 = ignore the record)"),
    }

    def act(self, obs: dict[str, np.ndarray], legal_mask: np.ndarray, rng: AgentRNG) -> np.ndarray:
        """One action per game, by phase."""
        c = self.config
        b = legal_mask.shape[0]
        rows = np.arange(b)
        u = rng.uniform(1)
        hand = obs["hand"].astype(np.int64)
        phase = obs["phase"]
        rank = np.maximum(obs["claim_rank"].astype(np.int64), 0)
        # announce: open rank held most
        held = np.where(obs["closed"], -1, hand[:, :R.ANNOUNCEABLE])
        announce = R.ANNOUNCE0 + held.argmax(axis=1)
        # putting: truth first, then maybe an ace, else done
        match = hand[rows, rank] > 0
        joker = hand[:, R.JOKER] > 0
        ace = hand[:, R.ACE] > 0
        started = obs["put_count"] > 0
        put_true = np.where(match, R.PUT0 + rank, R.PUT0 + R.JOKER)
        most = R.PUT0 + hand.argmax(axis=1)
        first_lie = np.where(ace, R.PUT0 + R.ACE, most)
        slip = started & (u[:, 0] < c["bluff"])
        putting = np.where(match | joker, put_true,
                           np.where(started, np.where(slip, first_lie, R.DONE), first_lie))
        # responding
        mine = hand[rows, rank]
        seen_out = obs["discard_seen"][rows, rank].astype(np.int64)
        count = obs["claim_count"].astype(np.int64)
        impossible = count + mine + seen_out > 4 + c["joker_slack"]
        trust = np.full(b, c["trust"])
        if c["record"] > 0 and "claims_checked" in obs:
            cc = obs["claims_checked"][rows, np.maximum(obs["claimant"].astype(np.int64), 0)]
            trust = (c["trust"] * c["record"] + cc[:, 1]) / (c["record"] + cc.sum(axis=1))
        p_true = trust ** np.maximum(count, 1)
        check = np.where(p_true > 0.5, R.BELIEVE, R.DISBELIEVE)
        respond = np.where(impossible, R.DISBELIEVE,
                           np.where(match | joker, put_true, check))
        out = np.select([phase == R.PHASE_ANNOUNCE, phase == R.PHASE_PUT,
                         phase == R.PHASE_RESPOND], [announce, putting, respond], 0)
        return out
