"""qdv claims and their exact odds (the game's ``CLAIMS``; the contract: ``bluffsim.analysis.odds``).

A bid "c of fruit f" by seat b claims the count of f reaches c.  The count is the fruit's cards
with their multipliers in every hand (face up or down; discarded cards do not count) plus the
centre card, and **the claimant's own salads**: a bidder declares all of theirs when called,
nobody else's count (a caller declares none, the others have no stake), and a bidder
eliminated at once by a `token` challenge counts none, as the rules say.  ``vrai`` is a claim
of the caller's own: the count is exactly c, its own salads declared as it likes (right when
fruit count <= c <= fruit count + its salads).  The first bid of a round, the centre card, is
nobody's claim.  A bid's truth is judged once it stands, after any challenge card it turned.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from functools import lru_cache
from math import comb
from types import SimpleNamespace
from typing import Any

import numpy as np

from bluffsim.games.claims import DOUBT, EXACT, PASS, ints, ratio
from bluffsim.games.qdv import rules as R
from bluffsim.games.qdv.reference import ReferenceGame


class Claims:
    """qdv: bids are claims, ``menteur`` doubts, ``vrai`` is an exact call."""

    game_id = "qdv"

    def responses(self, rules: Any) -> Mapping[int, str]:
        """Bids pass (raise over the claim), ``menteur`` doubts, ``vrai`` calls it exact."""
        out = {a: PASS for a in range(2 * R.NUM_FRUITS)}
        out.update({R.MENTEUR: DOUBT, R.VRAI: EXACT})
        return out

    def standing(self, ref: Any, s: Any, seat: int) -> tuple[int, bool, bool | None] | None:
        """(bidder, bid true, ``vrai`` by ``seat`` right) of the standing bid, if another seat made
        it and bidding is on."""
        if s.phase != R.PHASE_BID or s.bidder < 0 or s.bidder == seat:
            return None
        cards = ref.count_called_fruit(s)
        mine = s.hand_counts[seat][R.SALAD]
        return s.bidder, self._bid_true(s, cards), cards <= s.bid_count <= cards + mine

    def claim_made(self, ref: Any, s: Any, seat: int, action: int) -> bool | None:
        """A bid stands once made (after any challenge card it turned)."""
        if action >= 2 * R.NUM_FRUITS or s.bidder != seat:
            return None
        return self._bid_true(s, ref.count_called_fruit(s))

    @staticmethod
    def _bid_true(s: Any, cards: int) -> bool:
        """The bid's fruit cards plus the bidder's own salads (none once it is out) reach it."""
        salads = s.hand_counts[s.bidder][R.SALAD] if s.in_round[s.bidder] else 0
        return cards + salads >= s.bid_count

    def odds(self, rules: Any, obs: Mapping[str, np.ndarray]) -> tuple[Fraction, Fraction | None] | None:
        """``bid_odds``."""
        return bid_odds(rules, obs)


def bid_odds(rules: Any, obs: Mapping[str, np.ndarray]) -> tuple[Fraction, Fraction | None] | None:
    """P(the standing bid is true) and P(``vrai`` now is right), from one qdv observation row.

    The ``H`` face-down cards of the other hands are a uniform ``H``-subset of the ``U`` cards I
    cannot see (deck minus my hand, the others' face-up cards, every discard and the centre),
    and the bidder's ``h_b`` of them a uniform subset of those.  Summing over the draw's
    fruit cards by multiplier (k1, k2, k3) and salads (σ), with weight
    C(a1,k1) C(a2,k2) C(a3,k3) C(as,σ) C(ao, H−k−σ) / C(U,H), the bidder holds s of the σ
    salads with weight C(σ,s) C(H−σ, h_b−s) / C(H,h_b); the bid is true when the visible value,
    k1 + 2 k2 + 3 k3, the bidder's face-up salads and s reach its count.
    """
    me, bidder = int(obs["seat"]), int(obs["bidder"])
    fruit, count = int(obs["bid_fruit"]), int(obs["bid_count"])
    if int(obs["phase"]) != R.PHASE_BID or bidder < 0 or bidder == me or fruit < 0:
        return None
    hand, revealed, p = ints(obs["hand"]), ints(obs["revealed"]), len(obs["hand_sizes"])
    others = [q for q in range(p) if q != me]
    shown = hand + revealed[others].sum(axis=0)          # cards in hands I can see
    unseen = np.bincount(np.asarray(rules.deck, np.int64), minlength=R.NUM_KINDS) - shown
    unseen -= ints(obs["discarded"]).sum(axis=0)
    unseen[int(obs["centre"])] -= 1
    hidden = int(ints(obs["hand_sizes"])[others].sum() - revealed[others].sum())
    centre = SimpleNamespace(centre=int(obs["centre"]), start=int(obs["start"]))
    known = sum(int(shown[fruit * R.MAX_MULT + m]) * (m + 1) for m in range(R.MAX_MULT))
    # the centre card's value is the reference engine's rule (it reads only centre and start)
    need = count - known - ReferenceGame.centre_value_of(None, centre, fruit)
    fruit_cards = [int(unseen[fruit * R.MAX_MULT + m]) for m in range(R.MAX_MULT)]
    salads = int(unseen[R.SALAD])
    total = int(unseen.sum())
    other = total - sum(fruit_cards) - salads
    h_b = int(obs["hand_sizes"][bidder]) - int(revealed[bidder].sum())
    counts = bool(obs["in_round"][bidder])  # an eliminated bidder's salads count 0
    shown_salads = int(revealed[bidder][R.SALAD]) if counts else 0
    num, den, right, den_exact = _bid_counts(tuple(fruit_cards), salads, other, hidden, h_b,
                                             need - shown_salads if counts else None, need,
                                             int(obs["hand"][R.SALAD]))
    return ratio(num, den), ratio(right, den_exact)


@lru_cache(maxsize=1 << 16)
def _bid_counts(fruit_cards: tuple[int, ...], salads: int, other: int, hidden: int, h_b: int,
                short: int | None, need: int, my_salads: int) -> tuple[int, int, int, int]:
    """The counts behind ``bid_odds`` (numerator and denominator of the bid's truth, then of
    ``vrai``): ``short`` is the value the bidder's hidden salads must reach beyond the hidden
    fruit value (None: its salads count 0), ``need`` the value the hidden cards must add."""
    ways = comb(hidden, h_b)
    # suffix[σ][j]: ways the bidder's h_b of the hidden cards hold at least j of their σ salads
    suffix = []
    for sigma in range(min(salads, hidden) + 1):
        terms = [comb(sigma, s) * comb(hidden - sigma, h_b - s) for s in range(min(sigma, h_b) + 1)]
        suffix.append([sum(terms[j:]) for j in range(len(terms))] + [0])

    def tail(sigma: int, value: int) -> int:
        """Ways the bidder's hidden salads make up the value the fruit cards leave short."""
        if short is None:
            return ways if value >= need else 0
        row = suffix[sigma]
        return row[min(max(short - value, 0), len(row) - 1)]

    draws = _fruit_draws(list(fruit_cards), hidden)
    num = sum(weight * comb(salads, sigma) * comb(other, hidden - k - sigma) * tail(sigma, value)
              for k, value, weight in draws for sigma in range(min(salads, hidden - k) + 1))
    right = sum(weight * comb(other + salads, hidden - k) for k, value, weight in draws
                if need - my_salads <= value <= need)
    total = sum(fruit_cards) + salads + other
    return num, comb(total, hidden) * ways, right, comb(total, hidden)


def _fruit_draws(fruit_cards: list[int], hidden: int) -> list[tuple[int, int, int]]:
    """(cards k, value, ways) for every way to draw k of the fruit's unseen cards (by multiplier
    class) into the hidden hands: ways = product of C(class size, drawn)."""
    draws = {(0, 0): 1}
    for m, n in enumerate(fruit_cards, start=1):
        merged: dict[tuple[int, int], int] = {}
        for (k, v), w in draws.items():
            for j in range(min(n, hidden - k) + 1):
                merged[k + j, v + m * j] = merged.get((k + j, v + m * j), 0) + w * comb(n, j)
        draws = merged
    return [(k, v, w) for (k, v), w in draws.items()]


CLAIMS = Claims()
