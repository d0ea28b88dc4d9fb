"""hypothesis invariants of veru under random legal play (reference engine)."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from bluffsim.games.veru import rules as R
from bluffsim.games.veru.reference import ReferenceGame


def all_cards(s) -> Counter:
    """Every card of the game wherever it is: hands, table, Bank, out (seen or not)."""
    c = Counter()
    for p in range(s.num_players):
        for t in range(R.NUM_TYPES):
            c[t] += s.hand_counts[p][t] + s.bank[p][t]
    c.update(s.table)
    for t in range(R.NUM_TYPES):
        c[t] += s.discard_seen[t] + s.discard_hidden[t]
    return +c


@given(players=st.integers(3, 6), seed=st.integers(0, 2**40), jokers=st.integers(0, 6),
       swappers=st.booleans(), checkers=st.booleans(), endgame=st.integers(1, 300),
       choices=st.lists(st.integers(0, 10**6), min_size=1, max_size=500))
def test_invariants_under_random_play(players, seed, jokers, swappers, checkers, endgame, choices):
    rules = R.Rules(num_players=players, jokers=jokers, endgame_limit=endgame,
                    joker_swap_seats=tuple(range(players)) if swappers else (),
                    check_seats=(0,) if checkers else ())
    ref = ReferenceGame(rules)
    s = ref.new_game(seed)
    assert all(s.out[q] == (sum(s.hand_counts[q]) == 0) for q in range(players))  # out at the deal
    deck = Counter(ref.deck_with_jokers(s.seed))
    assert sum(deck.values()) == 52 and deck[R.JOKER] == jokers
    assert deck[R.ACE] == 4  # aces are never replaced by Jokers
    for choice in choices:
        if s.done:
            break
        legal = ref.legal_actions(s)
        assert legal
        a = legal[choice % len(legal)]
        rounds = s.num_rounds
        ref.apply(s, a)
        if s.num_rounds > rounds and not s.done:
            # the player who was wrong (the taker) or timed out never opens (issue 12 point 4)
            checker, claimant, kind, truth, taker = s.last_check
            assert s.current_player != taker and not s.out[s.current_player]
            right = checker if (kind == 0) == (truth == 1) else claimant
            if kind < 2 and not s.out[right]:
                assert s.current_player == right
        # the observation is a valid memory: cards known to sit in a hand are there
        assert all(s.known[o][q][t] <= s.hand_counts[q][t] for o in range(players)
                   for q in range(players) for t in range(R.NUM_TYPES))
        assert all(s.hidden_out[o][t] <= s.discard_hidden[t] for o in range(players)
                   for t in range(R.NUM_TYPES))
        # public tallies add up: one check tally per checked claim, one per checker
        checked = s.num_rounds - sum(s.timeouts)
        assert sum(map(sum, s.claim_checks)) == checked == sum(map(sum, s.checks))
        assert sum(s.cards_claimed) >= sum(map(sum, s.claims))
        swaps = sum(s.swaps_used)
        cards = all_cards(s)
        # every card in exactly one place; a swap turns one natural into a Joker
        assert sum(cards.values()) == 52 + swaps
        assert cards[R.JOKER] == jokers + swaps
        if a < R.PUT0:
            assert not s.closed[a]  # a closed rank is never announced
        assert all(not s.closed[r] or all(h[r] == 0 for h in s.hand_counts)
                   for r in range(R.ANNOUNCEABLE))
        assert len(s.table) <= 3
    if s.done:
        places = s.placements
        assert min(places) == 1
        # premise revised (issue 12 point 5): at the endgame limit both take the last place P
        limit = s.endgame_count >= endgame and not s.truncated
        assert all(pl == 1 + sum(o < pl for o in places)
                   or (limit and pl == players and places.count(pl) == 2) for pl in places)
