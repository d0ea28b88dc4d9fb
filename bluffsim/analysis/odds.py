"""Exact odds of a standing claim from the deciding player's observation, and each game's claims.

At a decision where the player may doubt the standing claim (qdv ``menteur``, legumes
``accuse`` / ``accuse double``, veru ``disbelieve``), ``ClaimRules.odds(rules, obs)`` is the
exact probability that the claim is true given only that player's observation row (its own
cards, the public table and history, the cards it knows have moved).  No behaviour model:
every deal of the cards the player cannot see that is consistent with what it saw is equally
likely.  The consistent deals are those the game's ``reference.redeal_hidden`` draws (the
game's own statement of what a seat cannot see: the hidden cards re-dealt over the hidden
places, sizes kept), so the probability is hypergeometric over the unseen cards; the tests
check it against a brute-force enumeration of those deals (``tests/test_odds.py``).

What "the claim" and "true" mean (``docs/behaviour.md`` says the same at more length):

- **qdv.** A bid "c of fruit f" by seat b claims the count of f reaches c.  The count is the
  fruit's cards with their multipliers in every hand (face up or down; discarded cards do
  not count) plus the centre card, and **the claimant's own salads** (a bidder declares all
  of theirs when called; nobody else's salads count: a caller declares none, the others have
  no stake; a bidder eliminated at once by a `token` challenge counts none, as the rules say).
  ``vrai`` is a claim of the caller's own: the count is exactly c, with the caller's salads
  declared as it likes (true when fruit count <= c <= fruit count + its salads).  ``odds``
  gives both: ``true`` for the bid, ``exact`` for a ``vrai`` now.  The first bid of a round
  (the centre card) is nobody's claim: a ``vrai`` on it is not a claim decision.
- **legumes.** The last face-down card claims to be the vegetable called when it was played;
  it is true when it is that vegetable (an action card, the Bomb included, is a false claim:
  the Bomb is a trap, and ``docs/behaviour.md`` says how it shows in the metrics).
  ``accept`` (facing a last card) is a belief in the claim.
- **veru.** The cards of the claim on the table claim the announced rank; true when every
  card is that rank or a Joker (``ReferenceGame.claim_is_true``).  ``believe`` is a belief.
  The deck's make-up is itself hidden: ``jokers`` random non-ace cards became Jokers at the
  deal, so the odds mix over which ranks lost a card (the posterior of those ranks given the
  cards I can place is a draw from the unplaced naturals, derivation in ``veru_odds``), and
  each Joker-gadget swap added a Joker (its natural left the game unseen).

Knowledge the consistent deals leave out (as ``redeal_hidden`` does, so the odds never use
more than the observation and stay exact for that definition): in legumes which seat still
holds which of its four action cards, and the cards a Bomb put into a hand; in veru that a
hidden hand never holds four naturals of an open rank (they would have closed), and
which of a seat's known cards it played when its lower bound dropped.

``ClaimRules`` per game (``CLAIMS``, keyed by game id; ``register_claims`` adds a game's)
also reads the true reference state: the claim a decision faces (``standing``), the truth of
the claim an action just made (``claim_made``) and what kind of response an action is
(``responses``: ``doubt``, ``affirm``, ``exact`` or ``pass``; actions absent from it, such as
a veru Joker swap, are not answers to the claim).  A game without an entry gets no behaviour
metrics, and a game whose ``odds`` returns ``None`` gets them without the calibration.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import Any, Protocol

import numpy as np

DOUBT, AFFIRM, EXACT, PASS = "doubt", "affirm", "exact", "pass"


@dataclass(frozen=True)
class Standing:
    """The claim a decision faces, judged on the true state: its claimant seat, whether it is
    true, and (qdv) whether an exact call by the decider would be right."""

    claimant: int
    true: bool
    exact: bool | None = None


@dataclass(frozen=True)
class Odds:
    """From the decider's observation: P(the standing claim is true) and, where the game has an
    exact call (qdv ``vrai``), P(that call is right)."""

    true: Fraction
    exact: Fraction | None = None


class ClaimRules(Protocol):
    """What the behaviour metrics need to know about one game's claims (see the module docstring)."""

    game_id: str

    def responses(self, rules: Any) -> Mapping[int, str]:
        """Action id -> response kind at a decision facing a claim."""

    def standing(self, ref: Any, s: Any, seat: int) -> Standing | None:
        """The claim by another seat that ``seat`` faces in reference state ``s`` (else None)."""

    def claim_made(self, ref: Any, s: Any, seat: int, action: int) -> bool | None:
        """Truth of the claim ``seat`` completed with ``action`` (``s`` is the state after it);
        None when the action completed no claim."""

    def odds(self, rules: Any, obs: Mapping[str, np.ndarray]) -> Odds | None:
        """Exact odds from one observation row (no batch axis); None: not a claim decision."""


def _ints(a: Any) -> np.ndarray:
    return np.asarray(a, dtype=np.int64)


def _ratio(num: int, den: int) -> Fraction:
    return Fraction(num, den) if den else Fraction(0)


# ---------------------------------------------------------------------------- qdv
class QdvClaims:
    """qdv: bids are claims, ``menteur`` doubts, ``vrai`` is an exact call."""

    game_id = "qdv"

    def responses(self, rules: Any) -> Mapping[int, str]:
        """Bids pass (raise over the claim), ``menteur`` doubts, ``vrai`` calls it exact."""
        from bluffsim.games.qdv import rules as R

        out = {a: PASS for a in range(2 * R.NUM_FRUITS)}
        out.update({R.MENTEUR: DOUBT, R.VRAI: EXACT})
        return out

    def standing(self, ref: Any, s: Any, seat: int) -> Standing | None:
        """The standing bid, if another seat made it and bidding is on."""
        from bluffsim.games.qdv import rules as R

        if s.phase != R.PHASE_BID or s.bidder < 0 or s.bidder == seat:
            return None
        cards = ref.count_called_fruit(s)
        mine = s.hand_counts[seat][R.SALAD]
        return Standing(s.bidder, self._bid_true(s, cards),
                        cards <= s.bid_count <= cards + mine)

    def claim_made(self, ref: Any, s: Any, seat: int, action: int) -> bool | None:
        """A bid stands once made (after any challenge card it turned)."""
        from bluffsim.games.qdv import rules as R

        if action >= 2 * R.NUM_FRUITS or s.bidder != seat:
            return None
        return self._bid_true(s, ref.count_called_fruit(s))

    @staticmethod
    def _bid_true(s: Any, cards: int) -> bool:
        """The bid's fruit cards plus the bidder's own salads (none once it is out) reach it."""
        from bluffsim.games.qdv import rules as R

        salads = s.hand_counts[s.bidder][R.SALAD] if s.in_round[s.bidder] else 0
        return cards + salads >= s.bid_count

    def odds(self, rules: Any, obs: Mapping[str, np.ndarray]) -> Odds | None:
        """``qdv_odds``."""
        return qdv_odds(rules, obs)


def qdv_odds(rules: Any, obs: Mapping[str, np.ndarray]) -> Odds | None:
    """P(the standing bid is true) and P(``vrai`` now is right), from one qdv observation row.

    The ``H`` face-down cards of the other hands are a uniform ``H``-subset of the ``U`` cards I
    cannot see (deck minus my hand, the others' face-up cards, every discard and the centre),
    and the bidder's ``h_b`` of them a uniform subset of those.  Summing over the draw's
    fruit cards by multiplier (k1, k2, k3) and salads (σ), with weight
    C(a1,k1) C(a2,k2) C(a3,k3) C(as,σ) C(ao, H−k−σ) / C(U,H), the bidder holds s of the σ
    salads with weight C(σ,s) C(H−σ, h_b−s) / C(H,h_b); the bid is true when the visible value,
    k1 + 2 k2 + 3 k3, the bidder's face-up salads and s reach its count.
    """
    from agents.qdv.common import visible
    from bluffsim.games.qdv import rules as R

    me, bidder = int(obs["seat"]), int(obs["bidder"])
    fruit, count = int(obs["bid_fruit"]), int(obs["bid_count"])
    if int(obs["phase"]) != R.PHASE_BID or bidder < 0 or bidder == me or fruit < 0:
        return None
    vis = visible({k: np.asarray(v)[None] for k, v in obs.items()}, rules)
    unseen = vis["unseen_kinds"][0].astype(np.int64)
    hidden = int(vis["hidden_cards"][0])
    need = count - int(vis["known"][0, fruit])
    fruit_cards = [int(unseen[fruit * R.MAX_MULT + m]) for m in range(R.MAX_MULT)]
    salads = int(unseen[R.SALAD])
    total = int(unseen.sum())
    other = total - sum(fruit_cards) - salads
    revealed = _ints(obs["revealed"])[bidder]
    h_b = int(obs["hand_sizes"][bidder]) - int(revealed.sum())
    counts = bool(obs["in_round"][bidder])  # an eliminated bidder's salads count 0
    shown_salads = int(revealed[R.SALAD]) if counts else 0
    num, den, right, den_exact = _qdv_counts(tuple(fruit_cards), salads, other, hidden, h_b,
                                             need - shown_salads if counts else None, need,
                                             int(obs["hand"][R.SALAD]))
    return Odds(_ratio(num, den), _ratio(right, den_exact))


@lru_cache(maxsize=1 << 16)
def _qdv_counts(fruit_cards: tuple[int, ...], salads: int, other: int, hidden: int, h_b: int,
                short: int | None, need: int, my_salads: int) -> tuple[int, int, int, int]:
    """The counts behind ``qdv_odds`` (numerator and denominator of the bid's truth, then of
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


# ---------------------------------------------------------------------------- legumes
class LegumesClaims:
    """legumes: every face-down card is a claim; ``accuse`` (double) doubts, ``accept`` believes."""

    game_id = "legumes"

    def responses(self, rules: Any) -> Mapping[int, str]:
        """Accusations doubt, ``accept`` believes; a play, a Vegetable choice or a Reverse passes."""
        from bluffsim.games.legumes import rules as R

        out = {a: PASS for a in range(R.PLAY0, R.NUM_ACTIONS)}
        out.update({R.ACCUSE: DOUBT, R.ACCUSE_DOUBLE: DOUBT, R.ACCEPT: AFFIRM})
        return out

    def standing(self, ref: Any, s: Any, seat: int) -> Standing | None:
        """The last face-down card of the round, if another seat played it."""
        from bluffsim.games.legumes import rules as R

        if s.phase != R.PHASE_PLAY or not s.face_down or s.face_down[-1][0] == seat:
            return None
        return Standing(s.face_down[-1][0], self._card_true(s.face_down[-1]))

    def claim_made(self, ref: Any, s: Any, seat: int, action: int) -> bool | None:
        """An opening, a play or a Reverse with a card puts a claimed card face down."""
        from bluffsim.games.legumes import rules as R

        puts = action < R.ACCUSE or action >= R.REVERSE_PLAY0
        if not puts or not s.face_down or s.face_down[-1][0] != seat:
            return None
        return self._card_true(s.face_down[-1])

    @staticmethod
    def _card_true(face_down: tuple[int, int, int]) -> bool:
        """(owner, card, called): the card is a vegetable card of the called vegetable."""
        from bluffsim.games.legumes import rules as R

        _, card, called = face_down
        return card < R.BOMB and card // 3 == called

    def odds(self, rules: Any, obs: Mapping[str, np.ndarray]) -> Odds | None:
        """``legumes_odds``."""
        return legumes_odds(rules, obs)


def legumes_odds(rules: Any, obs: Mapping[str, np.ndarray]) -> Odds | None:
    """P(the last face-down card is the vegetable called when it was played), from one legumes
    observation row: the share of that vegetable's cards among the cards I cannot see.

    Unseen = every card of the game (the deck and each player's four action cards) minus my
    hand, my face-down cards of the round, the round's face-up cards, the discard cards known
    to all and my own face-down cards in the discard pile; the accused card is one of them,
    each equally likely.
    """
    from bluffsim.games.legumes import rules as R

    me, owner, called = int(obs["seat"]), int(obs["last_owner"]), int(obs["last_called"])
    if int(obs["phase"]) != R.PHASE_PLAY or owner < 0 or owner == me or called < 0:
        return None
    total = np.bincount(np.asarray(rules.deck, dtype=np.int64), minlength=R.NUM_TYPES)
    total[list(R.ACTION_CARDS)] += rules.num_players
    known = sum(_ints(obs[k]) for k in ("hand", "my_face_down", "face_up", "discard_revealed",
                                        "my_discard"))
    unseen = total - known
    return Odds(_ratio(int(unseen[called * 3:called * 3 + 3].sum()), int(unseen.sum())))


# ---------------------------------------------------------------------------- veru
class VeruClaims:
    """veru: each finished claim is a claim; ``disbelieve`` doubts, ``believe`` believes."""

    game_id = "veru"

    def responses(self, rules: Any) -> Mapping[int, str]:
        """``disbelieve`` doubts, ``believe`` believes, adding cards passes (a swap is no answer)."""
        from bluffsim.games.veru import rules as R

        out = {a: PASS for a in range(R.PUT0, R.DONE)}
        out.update({R.DISBELIEVE: DOUBT, R.BELIEVE: AFFIRM})
        return out

    def standing(self, ref: Any, s: Any, seat: int) -> Standing | None:
        """The claim on the table while it is answered, if another seat made it."""
        from bluffsim.games.veru import rules as R

        if s.phase != R.PHASE_RESPOND or s.claimant in (-1, seat) or not s.table:
            return None
        return Standing(s.claimant, ref.claim_is_true(s))

    def claim_made(self, ref: Any, s: Any, seat: int, action: int) -> bool | None:
        """A claim is made when its cards are down: ``done``, or the put that ended the turn."""
        from bluffsim.games.veru import rules as R

        if not (R.PUT0 <= action <= R.DONE) or s.phase != R.PHASE_RESPOND:
            return None
        if s.claimant != seat or not s.table:
            return None
        return ref.claim_is_true(s)

    def odds(self, rules: Any, obs: Mapping[str, np.ndarray]) -> Odds | None:
        """``veru_odds``."""
        return veru_odds(rules, obs)


def veru_odds(rules: Any, obs: Mapping[str, np.ndarray]) -> Odds | None:
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
    from bluffsim.games.veru import rules as R

    me, claimant, k = int(obs["seat"]), int(obs["claimant"]), int(obs["claim_count"])
    rank, p = int(obs["claim_rank"]), rules.num_players
    if int(obs["phase"]) != R.PHASE_RESPOND or claimant in (-1, me) or k <= 0 or rank < 0:
        return None
    placed = sum(_ints(obs[key]) for key in ("hand", "my_bank", "discard_seen", "my_out"))
    known = _ints(obs["known_in_hand"])
    placed = placed + known.sum(axis=0) - known[me]
    aces = _ints(obs["ace_where"])
    if aces[0] >= 0:  # the 4-Aces gadget places every ace
        if aces[p] > 0:
            return Odds(Fraction(0))
        placed[R.ACE] = 4
    swaps = int(_ints(obs["swaps_made"]).sum())
    jokers = rules.jokers + swaps
    unplaced = 4 * len(R.RANKS) + swaps - int(placed.sum())
    naturals = [4 - int(placed[r]) for r in range(R.ANNOUNCEABLE)]
    pool, mine = sum(naturals), naturals[rank]
    num = 0
    for x in range(min(rules.jokers, mine) + 1):
        fit = mine - x + jokers - int(placed[R.JOKER])
        num += comb(mine, x) * comb(pool - mine, rules.jokers - x) * comb(fit, k)
    return Odds(_ratio(num, comb(pool, rules.jokers) * comb(unplaced, k)))


CLAIMS: dict[str, ClaimRules] = {c.game_id: c for c in (QdvClaims(), LegumesClaims(), VeruClaims())}


def register_claims(claims: ClaimRules) -> None:
    """Add (or replace) a game's ``ClaimRules`` under its ``game_id``."""
    CLAIMS[claims.game_id] = claims


def claims_for(game_id: str) -> ClaimRules | None:
    """The game's ``ClaimRules``, or None when it declares none."""
    return CLAIMS.get(game_id)
