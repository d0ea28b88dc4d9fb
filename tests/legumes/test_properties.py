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


@given(players=st.integers(2, 6), seed=st.integers(0, 2**40), small=st.booleans(),
       choices=st.lists(st.integers(0, 10**6), min_size=1, max_size=400))
def test_invariants_under_random_play(players, seed, small, choices):
    rules = R.Rules(num_players=players, numbers=(3, 2, 1) if small else (5, 4, 3),
                    hand_size=4 if small else 8)
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
    if s.done:
        scores = s.scores()
        assert scores == [sum(n * p for n, p in zip(h, R.CARD_POINTS, strict=True))
                          for h in s.hand_counts]
        assert s.placements == [1 + sum(o < x for o in scores) for x in scores]
