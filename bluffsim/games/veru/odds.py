"""veru claims and their exact odds (the game's ``CLAIMS``; the contract: ``bluffsim.analysis.odds``).

The cards of a claim (put under the round's announced rank) claim that rank; the claim is true
when every card is that rank or a Joker (``ReferenceGame.claim_is_true``).  A claim is made
when its cards are down (``done``, or the put that ended the turn) and faced by the next player,
who doubts (``disbelieve``), believes (``believe``) or adds cards (the claim goes to the Bank
unchecked).  The deck's make-up is itself hidden: ``jokers`` random non-ace cards became Jokers
at the deal, so the odds mix over which ranks lost a card, and each Joker-gadget swap added a
Joker (its natural left the game unseen).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from math import comb
from typing import Any

import numpy as np

from bluffsim.games.claims import AFFIRM, DOUBT, PASS, ints, ratio
from bluffsim.games.veru import rules as R


class Claims:
    """veru: each finished claim is a claim; ``disbelieve`` doubts, ``believe`` believes."""

    game_id = "veru"

    def responses(self, rules: Any) -> Mapping[int, str]:
        """``disbelieve`` doubts, ``believe`` believes, adding cards passes (a swap is no answer)."""
        out = {a: PASS for a in range(R.PUT0, R.DONE)}
        out.update({R.DISBELIEVE: DOUBT, R.BELIEVE: AFFIRM})
        return out

    def standing(self, ref: Any, s: Any, seat: int) -> tuple[int, bool, bool | None] | None:
        """(claimant, true, None) of the claim on the table while it is answered, if another seat
        made it."""
        if s.phase != R.PHASE_RESPOND or s.claimant in (-1, seat) or not s.table:
            return None
        return s.claimant, ref.claim_is_true(s), None

    def claim_made(self, ref: Any, s: Any, seat: int, action: int) -> bool | None:
        """A claim is made when its cards are down: ``done``, or the put that ended the turn."""
        if not (R.PUT0 <= action <= R.DONE) or s.phase != R.PHASE_RESPOND:
            return None
        if s.claimant != seat or not s.table:
            return None
        return ref.claim_is_true(s)

    def odds(self, rules: Any, obs: Mapping[str, np.ndarray]) -> tuple[Fraction, Fraction | None] | None:
        """``claim_odds``."""
        return claim_odds(rules, obs)


def claim_odds(rules: Any, obs: Mapping[str, np.ndarray]) -> tuple[Fraction, Fraction | None] | None:
    """P(every card of the claim on the table is its rank or a Joker), from one veru observation.

    I can place ``n_t`` cards of each type t (my hand and Bank cards, my cards gone out unseen,
    the cards out face up, the cards I know sit in other hands; with the 4-Aces gadget every
    ace).  The game holds 52 + S cards (S = Joker-gadget swaps, public): per rank 4 − x_r
    naturals, where x_r of its cards became Jokers at the deal (x_A = 0, Σ x_r = J =
    ``jokers``), and J + S Jokers.  Given what I placed, P(x) ∝ Π_r C(4, x_r) ·
    (4 − x_r)! / (4 − x_r − n_r)! ∝ Π_r C(4 − n_r, x_r): the replaced cards are a uniform
    J-draw from the non-ace naturals I cannot place, so x_R (R the claim's rank) is
    hypergeometric.  The claim's k cards are a uniform k-subset of the U cards I cannot place,
    of which g = 4 − n_R − x_R + J + S − n_Joker fit: P = Σ_x P(x_R = x) C(g, k) / C(U, k).
    A table ace shown by the 4-Aces gadget makes the claim false.
    """
    me, claimant, k = int(obs["seat"]), int(obs["claimant"]), int(obs["claim_count"])
    rank, p = int(obs["claim_rank"]), rules.num_players
    if int(obs["phase"]) != R.PHASE_RESPOND or claimant in (-1, me) or k <= 0 or rank < 0:
        return None
    placed = sum(ints(obs[key]) for key in ("hand", "my_bank", "discard_seen", "my_out"))
    known = ints(obs["known_in_hand"])
    placed = placed + known.sum(axis=0) - known[me]
    aces = ints(obs["ace_where"])
    if aces[0] >= 0:  # the 4-Aces gadget places every ace
        if aces[p] > 0:
            return Fraction(0), None
        placed[R.ACE] = 4
    swaps = int(ints(obs["swaps_made"]).sum())
    jokers = rules.jokers + swaps
    unplaced = 4 * len(R.RANKS) + swaps - int(placed.sum())
    naturals = [4 - int(placed[r]) for r in range(R.ANNOUNCEABLE)]
    pool, mine = sum(naturals), naturals[rank]
    num = 0
    for x in range(min(rules.jokers, mine) + 1):
        fit = mine - x + jokers - int(placed[R.JOKER])
        num += comb(mine, x) * comb(pool - mine, rules.jokers - x) * comb(fit, k)
    return ratio(num, comb(pool, rules.jokers) * comb(unplaced, k)), None


CLAIMS = Claims()
