"""hypothesis invariants of legumes under random legal play (reference engine)."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from bluffsim.games.legumes import rules as R
from bluffsim.games.legumes.reference import ReferenceGame


def all_cards(s) -> Counter:
    """Every card: hands, draw pile, discard pile and the table (face down and face up)."""
    c = Counter()
    for h in s.hand_counts:
        for t in range(R.NUM_TYPES):
            c[t] += h[t]
    c.update(s.draw[s.draw_ptr:])
    for t in range(R.NUM_TYPES):
        c[t] += s.discard[t] + s.face_up[t]
    c.update(card for _, card, _ in s.face_down)
    return +c


def assert_end_and_memory_invariants(ref: ReferenceGame, s) -> None:
    """Revised end (issue 12, points 8-10) and the memory fields' bookkeeping.

    Premise changed: a running game used to allow an empty hand for one more
    decision of any kind; now an empty hand in a running game is only the one
    whose last card lies face down, and the next player may only accuse or accept it.
    """
    empty = [q for q, h in enumerate(s.hand_counts) if sum(h) == 0]
    legal = ref.legal_actions(s)
    if not s.done:
        assert empty == ([s.pending] if s.pending >= 0 else [])
        assert (R.ACCEPT in legal) == (s.pending >= 0)
        if s.pending >= 0:
            assert s.face_down[-1][0] == s.pending
            assert set(legal) <= {R.ACCUSE, R.ACCUSE_DOUBLE, R.ACCEPT}
    # my own unrevealed discard cards are part of the hidden discard, disjoint per seat
    hidden = [n - d for n, d in zip(s.discard, s.discard_revealed, strict=True)]
    for t in range(R.NUM_TYPES):
        assert sum(m[t] for m in s.my_discard) <= hidden[t]
    assert sum(map(sum, s.accused_tally)) == sum(map(sum, s.accuser_tally)) == s.num_rounds
    assert sum(s.shown_tally[q][0] for q in range(s.num_players)) == s.revealed_total[R.BOMB]
    for seat in range(s.num_players):  # nobody knows more of a Bomb take than the taker
        assert sum(map(sum, s.taken_known[seat])) <= sum(s.bomb_taken)


@given(players=st.integers(2, 6), seed=st.integers(0, 2**40), small=st.booleans(),
       alone=st.booleans(), choices=st.lists(st.integers(0, 10**6), min_size=1, max_size=400))
def test_invariants_under_random_play(players, seed, small, alone, choices):
    rules = R.Rules(num_players=players, numbers=(3, 2, 1) if small else (5, 4, 3),
                    hand_size=4 if small else 8, reverse_alone=alone)
    ref = ReferenceGame(rules)
    s = ref.new_game(seed)
    deck = Counter(rules.deck)
    for t in R.ACTION_CARDS:
        deck[t] = players
    for choice in choices:
        if s.done:
            break
        legal = ref.legal_actions(s)
        assert legal, "a running game must offer a legal action"
        ref.apply(s, legal[choice % len(legal)])
        assert all_cards(s) == deck  # every card in exactly one place
        assert all(d <= n for d, n in zip(s.discard_revealed, s.discard, strict=True))
        assert s.reshuffles <= 2
        assert_end_and_memory_invariants(ref, s)
    if s.done:
        scores = s.scores()
        assert scores == [sum(n * p for n, p in zip(h, R.CARD_POINTS, strict=True))
                          for h in s.hand_counts]
        assert s.placements == [1 + sum(o < x for o in scores) for x in scores]
