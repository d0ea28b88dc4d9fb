"""hypothesis invariants of qdv under random legal play (reference engine, all table sizes)."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from bluffsim.games.qdv import rules as R
from bluffsim.games.qdv.reference import ReferenceGame


def card_multiset(s) -> Counter:
    """Every fruit card of the round: hands, discards, centre and the undealt rest."""
    c = Counter()
    for p in range(s.num_players):
        for k in range(R.NUM_KINDS):
            c[k] += s.hand_counts[p][k] + s.discarded[p][k]
    c[s.centre] += 1
    c.update(s.deck[s.deck_ptr:])
    return c


def check_token_change(ref, s, before, tokens_before, action) -> None:
    """Tokens move only by the rules: a `token` challenge, a showdown loss, or the reward."""
    delta = [b - a for a, b in zip(tokens_before, s.tokens, strict=True)]
    changed = [p for p, d in enumerate(delta) if d]
    assert all(t >= 0 for t in s.tokens)
    if not changed:
        return
    assert len(changed) == 1, (action, delta)
    p, d = changed[0], delta[changed[0]]
    name = ref.action_names[action]
    if name.startswith("+"):
        assert d == -1 and p == before["me"]  # token challenge on the bidder
    elif name == "gain":
        assert d == 1 and p == before["me"]
    else:  # showdown loss or punish: min(amount, tokens)
        assert s.last_round["loser"] == p
        assert -d == min(s.last_round["amount"], tokens_before[p])


@given(players=st.integers(2, 6), seed=st.integers(0, 2**40),
       choices=st.lists(st.integers(0, 10**6), min_size=1, max_size=400),
       landing=st.booleans())
def test_invariants_under_random_play(players, seed, choices, landing) -> None:
    ref = ReferenceGame(R.Rules(num_players=players, challenge_on_landing=landing))
    s = ref.new_game(seed)
    deck = Counter(ref.rules.deck)
    for choice in choices:
        if s.done:
            break
        legal = ref.legal_actions(s)
        assert legal, "a running game must offer a legal action"
        action = legal[choice % len(legal)]
        before = {"me": s.current_player, "count": s.bid_count, "round": s.num_rounds,
                  "bids": len(s.bid_history)}
        tokens_before = list(s.tokens)
        ref.apply(s, action)
        if not s.done:
            assert card_multiset(s) == deck
        check_token_change(ref, s, before, tokens_before, action)
        if action < 2 * R.NUM_FRUITS:
            assert s.bid_count - before["count"] == action // R.NUM_FRUITS + 1
            assert s.bid_history[-1] == (before["me"], s.bid_count, action % R.NUM_FRUITS)
            assert s.bid_count <= ref.rules.max_count
        if s.num_rounds == before["round"] and s.phase == R.PHASE_BID:
            counts = [b[1] for b in s.bid_history]
            assert all(1 <= y - x <= 2 for x, y in zip(counts, counts[1:], strict=False))
    if s.done:
        places = s.placements
        assert sorted(places)[0] == 1
        assert all(pl == 1 + sum(o < pl for o in places) for pl in places)
        if s.terminated:
            assert places.count(1) == 1, "exactly one winner"
            assert sum(t > 0 for t in s.tokens) <= 1


@given(seed=st.integers(0, 2**40))
def test_a_whole_game_ends_with_one_winner(seed) -> None:
    ref = ReferenceGame(R.Rules(num_players=3 + seed % 4))
    s = ref.new_game(seed)
    i = 0
    while not s.done:
        legal = ref.legal_actions(s)
        ref.apply(s, legal[(seed >> (i % 40)) % len(legal)] if i % 3 else legal[-1])
        i += 1
    assert s.terminated or s.truncated
    if s.terminated:
        assert s.placements.count(1) == 1
