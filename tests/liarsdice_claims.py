"""Claim rules and exact odds for the test suite's fourth game, Liar's Dice, registered from outside
its package (``bluffsim.analysis.odds.register_claims``): how a new game adds its behaviour metrics.

A bid "q × face" claims at least q dice on the table show the face (no face is wild); ``liar``
doubts it.  The other seats' dice are independent fair rolls, so the odds are binomial.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from math import comb
from typing import Any

import numpy as np

from bluffsim.analysis.odds import DOUBT, PASS, Odds, Standing

FACES = 6


class LiarsDiceClaims:
    """Bids are claims, ``liar`` doubts them."""

    game_id = "liarsdice"

    def responses(self, rules: Any) -> Mapping[int, str]:
        """Every higher bid passes, ``liar`` doubts."""
        return {**{a: PASS for a in range(rules.liar)}, rules.liar: DOUBT}

    def standing(self, ref: Any, s: Any, seat: int) -> Standing | None:
        """The current bid, if another seat made it."""
        if s.done or s.bidder < 0 or s.bidder == seat:
            return None
        return Standing(s.bidder, self._true(s))

    def claim_made(self, ref: Any, s: Any, seat: int, action: int) -> bool | None:
        """A bid is a claim."""
        if action == ref.rules.liar or s.bidder != seat:
            return None
        return self._true(s)

    @staticmethod
    def _true(s: Any) -> bool:
        return sum(h[s.bid_face] for h in s.hand_counts) >= s.bid_quantity

    def odds(self, rules: Any, obs: Mapping[str, np.ndarray]) -> Odds | None:
        """P(at least the bid's quantity of its face among my dice and n other fair dice)."""
        me, bidder = int(obs["seat"]), int(obs["bidder"])
        if bidder < 0 or bidder == me:
            return None
        face, quantity = int(obs["bid_face"]), int(obs["bid_quantity"])
        others = int(np.asarray(obs["dice_left"], np.int64).sum()) - int(obs["dice_left"][me])
        need = quantity - int(obs["hand"][face])
        ways = sum(comb(others, j) * (FACES - 1) ** (others - j) for j in range(max(need, 0), others + 1))
        return Odds(Fraction(ways, FACES ** others))
