"""The exact odds of a standing claim (``bluffsim.analysis.odds``) equal a brute-force count over every
consistent deal, as exact fractions.

The consistent deals are the game's own: every arrangement of the cards ``reference.redeal_hidden``
re-deals over the places it re-deals them to (its shuffle is fed each distinct arrangement in turn);
each re-dealt state must give the deciding seat the same observation, and the claim is judged on it
by the true-state rules (``ClaimRules.standing``).  States come from small rules played at random
and from hand-built scenarios, so the decks are small enough to enumerate.  For veru with jokers the
deck's make-up is itself unknown, so its brute force also enumerates which ranks lost a card to a
Joker at the deal, weighting each make-up by the ways to deal the cards the seat placed.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from fractions import Fraction
from math import comb, factorial
from typing import Any

import numpy as np
import pytest

import bluffsim
from bluffsim.analysis.odds import claims_for
from bluffsim.games.legumes import rules as LR
from bluffsim.games.qdv import rules as QR
from bluffsim.games.veru import rules as VR
from tests.liarsdice_claims import LiarsDiceClaims

PERMS = 800   # most distinct arrangements a brute force enumerates


def distinct_arrangements(items: list[int]) -> list[list[int]]:
    """Every distinct ordering of the multiset ``items``."""
    counts = Counter(items)
    keys = sorted(counts)
    out: list[list[int]] = []

    def extend(prefix: list[int], left: int) -> None:
        if not left:
            out.append(list(prefix))
            return
        for k in keys:
            if counts[k]:
                counts[k] -= 1
                prefix.append(k)
                extend(prefix, left - 1)
                prefix.pop()
                counts[k] += 1

    extend([], len(items))
    return out


def arrangements_count(items: list[int]) -> int:
    n = factorial(len(items))
    for c in Counter(items).values():
        n //= factorial(c)
    return n


class FeedShuffle:
    """Stands in for ``random.Random`` inside ``redeal_hidden``: its first shuffle records the hidden
    cards (``arrangement`` None) or lays them out as ``arrangement``; later shuffles (qdv's challenge
    deck) leave their list alone."""

    arrangement: list[int] | None = None
    hidden: list[int] = []

    def __init__(self, seed: Any = None) -> None:
        self.first = True

    def shuffle(self, x: list[int]) -> None:
        if self.first:
            self.first = False
            if FeedShuffle.arrangement is None:
                FeedShuffle.hidden = list(x)
            else:
                x[:] = FeedShuffle.arrangement


def redeal(monkeypatch, game_id: str, ref: Any, s: Any, seat: int,
           arrangement: list[int] | None) -> Any:
    """``redeal_hidden`` with its first shuffle fed (``FeedShuffle``)."""
    with monkeypatch.context() as m:
        m.setattr(random, "Random", FeedShuffle)
        FeedShuffle.arrangement = arrangement
        return bluffsim.spec(game_id).redeal_hidden(s, seat, 0, ref.rules)


def hidden_cards(monkeypatch, game_id: str, ref: Any, s: Any, seat: int) -> list[int]:
    """The cards ``redeal_hidden`` re-deals for ``seat``, in its order."""
    redeal(monkeypatch, game_id, ref, s, seat, None)
    return FeedShuffle.hidden


def brute_force(monkeypatch, game_id: str, ref: Any, s: Any, seat: int) -> tuple[Fraction, Fraction]:
    """(share of consistent deals where the claim is true, share where an exact call is right)."""
    hidden = hidden_cards(monkeypatch, game_id, ref, s, seat)
    claims = claims_for(game_id)
    seen = ref.observe(s, seat)
    true = exact = n = 0
    for arrangement in distinct_arrangements(hidden):
        deal = redeal(monkeypatch, game_id, ref, s, seat, arrangement)
        obs = ref.observe(deal, seat)
        assert all(np.array_equal(seen[k], obs[k]) for k in seen), "a re-deal changed the observation"
        st = claims.standing(ref, deal, seat)
        n, true, exact = n + 1, true + st.true, exact + bool(st.exact)
    return Fraction(true, n), Fraction(exact, n)


def check_random_play(monkeypatch, game_id: str, players: int, options: dict[str, Any], doubt: int,
                      wanted: int, seeds: int = 200) -> set[Fraction]:
    """Play ``seeds`` random games; at claim decisions with few hidden arrangements, the odds equal
    the brute force.  Returns the probabilities met (at least ``wanted`` decisions checked)."""
    spec = bluffsim.spec(game_id)
    rules = spec.make_rules(players, **options)
    ref = spec.make_reference(rules)
    claims = claims_for(game_id)
    pick = random.Random(1)
    met, checked = set(), 0
    for seed in range(seeds):
        s = ref.new_game(seed)
        while not s.done and checked < wanted:
            me = s.current_player
            if claims.standing(ref, s, me) is not None and doubt in ref.legal_actions(s):
                if arrangements_count(hidden_cards(monkeypatch, game_id, ref, s, me)) <= PERMS:
                    odds = claims.odds(rules, ref.observe(s, me))
                    true, exact = brute_force(monkeypatch, game_id, ref, s, me)
                    assert odds.true == true, (seed, s.num_decisions)
                    if odds.exact is not None:
                        assert odds.exact == exact, (seed, s.num_decisions)
                    met.add(odds.true)
                    checked += 1
            ref.apply(s, pick.choice(ref.legal_actions(s)))
    assert checked == wanted
    return met


def test_qdv_odds_equal_the_brute_force_over_every_consistent_deal(monkeypatch) -> None:
    """Small decks, challenge cards on (reveal, discard and draw move cards mid-round), 2 and 3
    players: the bid's truth (the bidder's salads counting) and the exact call's."""
    met = check_random_play(monkeypatch, "qdv", 2, {"fruit_multipliers": (1, 2), "salads": 2,
                                                    "starting_tokens": 6}, QR.MENTEUR, 8)
    met |= check_random_play(monkeypatch, "qdv", 3, {"fruit_multipliers": (1,), "salads": 3,
                                                     "starting_tokens": 3}, QR.MENTEUR, 6)
    assert len(met - {0, 1}) >= 3


def test_legumes_odds_equal_the_brute_force_over_every_consistent_deal(monkeypatch) -> None:
    met = check_random_play(monkeypatch, "legumes", 2, {"numbers": (1, 0, 0), "hand_size": 3},
                            LR.ACCUSE, 8)
    met |= check_random_play(monkeypatch, "legumes", 3, {"numbers": (1, 1, 0), "hand_size": 2},
                             LR.ACCUSE, 6)
    assert len(met - {0, 1}) >= 3


def veru_scenario_checks(monkeypatch, unseen: list[str], small: list[int], options: dict[str, Any],
                         wanted: int) -> set[Fraction]:
    """veru scenarios holding most of the deck in one hand (``unseen``: the other cards, dealt to
    hands of sizes ``small`` and the rest out of the game unseen), then random play."""
    from bluffsim.games.veru.reference import scenario

    claims = claims_for("veru")
    met, checked = set(), 0
    for seed in range(100):
        pick = random.Random(seed)
        cards = list(unseen)
        pick.shuffle(cards)
        hands, at = [], 0
        for n in small:
            hands.append(cards[at:at + n])
            at += n
        big = [r for r in VR.RANKS for _ in range(4)]
        for c in unseen:
            big.remove(c)
        hands.insert(pick.randrange(len(small) + 1), big)
        ref, s = scenario(hands, opener=pick.randrange(len(hands)), **options)
        for _ in range(60):
            if s.done or checked >= wanted:
                break
            me = s.current_player
            if (claims.standing(ref, s, me) is not None and VR.DISBELIEVE in ref.legal_actions(s)
                    and arrangements_count(hidden_cards(monkeypatch, "veru", ref, s, me)) <= PERMS):
                odds = claims.odds(ref.rules, ref.observe(s, me))
                assert odds.true == brute_force(monkeypatch, "veru", ref, s, me)[0], seed
                met.add(odds.true)
                checked += 1
            ref.apply(s, pick.choice(ref.legal_actions(s)))
    assert checked == wanted
    return met


def test_veru_odds_equal_the_brute_force_over_every_consistent_deal(monkeypatch) -> None:
    """No jokers at the deal; with the Joker gadget (each swap adds a Joker) and the Check gadget;
    with the 4-Aces gadget (every ace placed)."""
    met = veru_scenario_checks(monkeypatch, ["Q", "Q", "Q", "5", "5", "7", "9"], [2, 3],
                               {"jokers": 0}, 8)
    met |= veru_scenario_checks(monkeypatch, ["Q", "Q", "Q", "5", "5", "7", "9", "A"], [2, 3, 1],
                                {"jokers": 0, "joker_swap_seats": (0, 1, 2, 3), "check_seats": (1,)}, 6)
    met |= veru_scenario_checks(monkeypatch, ["Q", "Q", "5", "5", "7", "A", "A"], [3, 2],
                                {"jokers": 0, "ace_hint_seats": (0, 1, 2)}, 6)
    assert len(met - {0, 1}) >= 8


def veru_physical_cards(s: Any) -> list[int]:
    """Cards of each type anywhere in a veru state."""
    total = [0] * VR.NUM_TYPES
    for where in (*s.hand_counts, *s.bank, s.discard_seen, s.discard_hidden):
        for t, n in enumerate(where):
            total[t] += n
    for c in s.table:
        total[c] += 1
    return total


def veru_brute_force_with_jokers(monkeypatch, ref: Any, s: Any, seat: int) -> Fraction:
    """Every make-up of the deck (which non-ace ranks lost a card to the deal's Jokers, each physical
    choice counted), weighted by the ways to deal the cards ``seat`` placed, then every set of
    physical cards the claim's places can hold."""
    jokers, swaps = ref.rules.jokers, sum(s.swaps_used)
    unplaced = Counter(hidden_cards(monkeypatch, "veru", ref, s, seat))
    total = veru_physical_cards(s)
    placed = [total[t] - unplaced[t] for t in range(VR.NUM_TYPES)]
    k, rank = len(s.table), s.claim_rank
    num = den = Fraction(0)
    for lost in itertools.combinations_with_replacement(range(VR.ANNOUNCEABLE), jokers):
        x = Counter(lost)
        cards = [4 - x[r] for r in range(len(VR.RANKS))] + [jokers + swaps]
        if min(cards) < 0 or any(p > c for p, c in zip(placed, cards, strict=True)):
            continue
        ways = 1
        for r in range(VR.ANNOUNCEABLE):
            ways *= comb(4, x[r])
        for c, p in zip(cards, placed, strict=True):
            ways *= factorial(c) // factorial(c - p)
        items = [t for t in range(VR.NUM_TYPES) for _ in range(cards[t] - placed[t])]
        sets = list(itertools.combinations(range(len(items)), k))
        good = sum(all(items[i] in (rank, VR.JOKER) for i in chosen) for chosen in sets)
        num += ways * Fraction(good, len(sets))
        den += ways
    return num / den


@pytest.mark.parametrize(("players", "options"), [(3, {"jokers": 2}),
                                                  (4, {"jokers": 1, "joker_swap_seats": (0, 1, 2, 3)})])
def test_veru_odds_with_jokers_at_the_deal_equal_the_brute_force(monkeypatch, players, options) -> None:
    """Real deals (the Jokers replaced random non-ace cards): the odds mix over the deck's make-up."""
    spec = bluffsim.spec("veru")
    rules = spec.make_rules(players, **options)
    ref = spec.make_reference(rules)
    claims = claims_for("veru")
    pick = random.Random(5)
    checked = 0
    for seed in range(30):
        s = ref.new_game(seed)
        while not s.done and checked < 3:
            me = s.current_player
            if (claims.standing(ref, s, me) is not None and VR.DISBELIEVE in ref.legal_actions(s)
                    and len(s.table) <= 2 and pick.random() < 0.3):
                odds = claims.odds(rules, ref.observe(s, me))
                assert odds.true == veru_brute_force_with_jokers(monkeypatch, ref, s, me), seed
                checked += 1
            ref.apply(s, pick.choice(ref.legal_actions(s)))
    assert checked == 3


def test_the_qdv_claim_counts_the_bidders_salads_and_not_the_callers() -> None:
    """A bid true only with the bidder's salad is true; one that only the caller's salad would make
    true is false; ``vrai`` counts the caller's own salads as it likes."""
    from bluffsim.games.qdv.reference import scenario

    opts = {"fruit_multipliers": (1,), "salads": 2, "challenge_deck": ()}   # 8 cards
    claims = claims_for("qdv")
    ref, s = scenario([["salad", "grape"], ["strawberry", "salad"]], centre="cherry", tokens=[3, 3],
                      **opts)
    ref.apply(s, "+1 strawberry")       # seat 1 bids 2 strawberries: its card and its salad
    st = claims.standing(ref, s, 0)
    assert (st.claimant, st.true, st.exact) == (1, True, True)   # vrai: seat 0 adds its salad
    ref, s = scenario([["salad", "strawberry"], ["grape", "banana"]], centre="cherry", tokens=[3, 3],
                      **opts)
    ref.apply(s, "+1 strawberry")       # 2 strawberries: one card, and only the caller's salad
    st = claims.standing(ref, s, 0)
    assert (st.true, st.exact) == (False, True)
    # seat 0 cannot see grape, watermelon, apricot, banana, salad; seat 1 holds 2 of them: the bid
    # holds when its salad is among them, 1 - C(4,2)/C(5,2); vrai is right whatever seat 1 holds
    odds = claims.odds(ref.rules, ref.observe(s, 0))
    assert (odds.true, odds.exact) == (Fraction(2, 5), Fraction(1))


def test_liarsdice_odds_registered_from_outside_equal_the_enumeration_of_every_roll() -> None:
    """A game's own claim rules (``tests/liarsdice_claims.py``): binomial odds against every roll of
    the other seats' six dice."""
    from bluffsim.games.liarsdice.reference import scenario

    claims = LiarsDiceClaims()
    ref, s = scenario([[2, 5, 5], [1, 3, 5], [6, 5, 2]], opener=1)
    ref.apply(s, ref.rules.action_names.index("bid 4x5"))
    true = sum(sum(f == 4 for f in roll) + 1 >= 4 for roll in itertools.product(range(6), repeat=6))
    assert claims.odds(ref.rules, ref.observe(s, 2)).true == Fraction(true, 6 ** 6)
    assert claims.standing(ref, s, 2).true is True   # 5s: two, one and one
    assert claims.standing(ref, s, 1) is None        # nobody faces their own bid
