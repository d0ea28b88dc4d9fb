"""legumes claims and their exact odds (the game's ``CLAIMS``; the contract: ``bluffsim.analysis.odds``).

Every card put face down (an opening, a play, a Reverse with a card) claims to be the
vegetable called when it was played; it is true when it is that vegetable's card.  An action
card, the Bomb included, is a false claim (the Bomb is a trap: accusing it is a right doubt
that costs the accuser the pile).  The claim a player faces is the round's last face-down card,
also after a Vegetable choice.  ``accept`` (facing a last card) believes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import numpy as np

from bluffsim.games.claims import AFFIRM, DOUBT, PASS, ints, ratio
from bluffsim.games.legumes import rules as R


class Claims:
    """legumes: every face-down card is a claim; ``accuse`` (double) doubts, ``accept`` believes."""

    game_id = "legumes"

    def responses(self, rules: Any) -> Mapping[int, str]:
        """Accusations doubt, ``accept`` believes; a play, a Vegetable choice or a Reverse passes."""
        out = {a: PASS for a in range(R.PLAY0, R.NUM_ACTIONS)}
        out.update({R.ACCUSE: DOUBT, R.ACCUSE_DOUBLE: DOUBT, R.ACCEPT: AFFIRM})
        return out

    def standing(self, ref: Any, s: Any, seat: int) -> tuple[int, bool, bool | None] | None:
        """(owner, true, None) of the round's last face-down card, if another seat played it."""
        if s.phase != R.PHASE_PLAY or not s.face_down or s.face_down[-1][0] == seat:
            return None
        return s.face_down[-1][0], self._card_true(s.face_down[-1]), None

    def claim_made(self, ref: Any, s: Any, seat: int, action: int) -> bool | None:
        """An opening, a play or a Reverse with a card puts a claimed card face down."""
        puts = action < R.ACCUSE or action >= R.REVERSE_PLAY0
        if not puts or not s.face_down or s.face_down[-1][0] != seat:
            return None
        return self._card_true(s.face_down[-1])

    @staticmethod
    def _card_true(face_down: tuple[int, int, int]) -> bool:
        """(owner, card, called): the card is a vegetable card of the called vegetable."""
        _, card, called = face_down
        return card < R.BOMB and card // 3 == called

    def odds(self, rules: Any, obs: Mapping[str, np.ndarray]) -> tuple[Fraction, Fraction | None] | None:
        """``card_odds``."""
        return card_odds(rules, obs)


def card_odds(rules: Any, obs: Mapping[str, np.ndarray]) -> tuple[Fraction, Fraction | None] | None:
    """P(the last face-down card is the vegetable called when it was played), from one legumes
    observation row: the share of that vegetable's cards among the cards I cannot see.

    Unseen = every card of the game (the deck and each player's four action cards) minus my
    hand, my face-down cards of the round, the round's face-up cards, the discard cards known
    to all and my own face-down cards in the discard pile; the accused card is one of them,
    each equally likely.
    """
    me, owner, called = int(obs["seat"]), int(obs["last_owner"]), int(obs["last_called"])
    if int(obs["phase"]) != R.PHASE_PLAY or owner < 0 or owner == me or called < 0:
        return None
    total = np.bincount(np.asarray(rules.deck, dtype=np.int64), minlength=R.NUM_TYPES)
    total[list(R.ACTION_CARDS)] += rules.num_players
    known = sum(ints(obs[k]) for k in ("hand", "my_face_down", "face_up", "discard_revealed",
                                        "my_discard"))
    unseen = total - known
    return ratio(int(unseen[called * 3:called * 3 + 3].sum()), int(unseen.sum())), None


CLAIMS = Claims()
