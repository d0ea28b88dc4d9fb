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


def check_elimination_and_tallies(ref, s) -> None:
    """Issue 12: the eliminated never act, the game ends when one player has tokens, nobody
    calls on their own bid, and the public tallies account for every token and every call."""
    p = s.num_players
    if not s.done:
        me = s.current_player
        assert s.tokens[me] > 0, "a 0-token player is never the current player"
        assert s.in_round[me]
        assert all(s.in_round[q] == (s.tokens[q] > 0) for q in range(p))
        assert sum(t > 0 for t in s.tokens) >= 2, "one player with tokens ends the game"
        if s.phase == R.PHASE_BID and s.bidder == me:
            legal = ref.legal_actions(s)
            assert R.VRAI not in legal and R.MENTEUR not in legal, "no call on one's own bid"
    lost = sum(row[R.LOST_CHALLENGE] + row[R.LOST_SHOWDOWN] + row[R.LOST_PUNISH]
               for row in s.token_tally)
    gained = sum(row[R.GAINED] for row in s.token_tally)
    assert sum(s.tokens) == p * ref.rules.starting_tokens + gained - lost
    calls = sum(map(sum, s.call_tally))
    assert calls == s.num_rounds + (s.phase == R.PHASE_REWARD)
    assert sum(map(sum, s.called_tally)) <= calls
    assert sum(row[R.PUNISHED_OTHER] for row in s.token_tally) <= sum(
        row[R.VRAI_RIGHT] for row in s.call_tally)
    for row in s.bid_tally:
        assert 0 <= row[1] + row[2] <= row[0]


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
        check_elimination_and_tallies(ref, s)
        if s.num_rounds == before["round"] and s.phase == R.PHASE_BID:
            counts = [b[1] for b in s.bid_history]
            assert all(1 <= y - x <= 2 for x, y in zip(counts, counts[1:], strict=False))
    if s.done:
        places = s.placements
        assert sorted(places)[0] == 1
        assert all(pl == 1 + sum(o < pl for o in places) for pl in places)
        if s.terminated:
            assert places.count(1) == 1, "exactly one winner"
            assert sum(t > 0 for t in s.tokens) == 1
        out = [q for q in range(s.num_players) if s.tokens[q] == 0]
        for q in out:  # eliminated later = better place; one event = one shared place
            for o in out:
                if s.zero_time[q] > s.zero_time[o]:
                    assert places[q] < places[o]
                elif s.zero_time[q] == s.zero_time[o]:
                    assert places[q] == places[o]


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


@given(players=st.integers(2, 6), seed=st.integers(0, 2**40))
def test_vectorised_a_zero_token_player_is_never_the_current_player(players, seed) -> None:
    import numpy as np

    from bluffsim.games.qdv.vec import QdvGame
    from tests.games import random_actions

    game = QdvGame(R.Rules(num_players=players))
    st_ = game.init(np.arange(16) + seed)
    for _ in range(3000):
        live = np.flatnonzero(~st_.done)
        if live.size == 0:
            break
        cp = st_.current_player[live].astype(np.int64)
        assert (st_.tokens[live, cp] > 0).all(), "a 0-token player is never the current player"
        assert ((st_.tokens[live] > 0).sum(axis=1) >= 2).all()
        game.step(st_, random_actions(game, st_))
    assert st_.done.all()


EXTREMES = [
    dict(num_players=2, starting_tokens=1), dict(num_players=6, starting_tokens=60),
    dict(num_players=3, fruit_multipliers=(1,), salads=0),
    dict(num_players=6, fruit_multipliers=(3,) * 12, salads=8, starting_tokens=60),
    dict(num_players=4, challenge_deck=()), dict(num_players=5, challenge_deck=("token",) * 60),
    dict(num_players=2, challenge_deck=("skip",) * 30 + ("reverse",) * 30,
         challenge_on_landing=False),
    dict(num_players=4, max_rounds=1, first_dealer=3), dict(num_players=3, max_rounds=100_000),
]


def test_every_valid_option_value_works_at_its_extremes() -> None:
    """Issue 12 point 6 for qdv: each option at its allowed extremes builds and plays to the
    end on both engines, which agree at every step (no dtype overflows)."""
    import numpy as np

    from bluffsim.games.qdv.vec import QdvGame
    from tests.games import play_random_both

    for options in EXTREMES:
        rules = R.Rules(**options)
        game, ref = QdvGame(rules), ReferenceGame(rules)
        st_, states = play_random_both(game, ref, np.arange(3), where=str(options), every=5,
                                       max_steps=20_000)
        assert st_.done.all(), options
        assert all(s.done for s in states)
