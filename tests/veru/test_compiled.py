"""The compiled veru engine (``kernels.py`` behind ``vec.VeruGame``): a batch of 4096 against the
reference, ``reset_games`` equal to a fresh ``init``, the compiled tensor equal to
``observe.to_tensor``, the scripted deal equal to the seeded one, fused random play equal to
stepping with the random agent, and the record-backed state's copies and views."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from bluffsim import rng
from bluffsim.games.veru import kernels as KN
from bluffsim.games.veru import observe as O
from bluffsim.games.veru import rules as R
from bluffsim.games.veru.reference import ReferenceGame
from bluffsim.games.veru.vec import VeruGame
from tests.games import play_random_both, random_actions

GADGETS = dict(joker_swap_seats=(0, 2), check_seats=(1, 2), ace_hint_seats=(0, 1), jokers=6)


def same_records(a: np.ndarray, b: np.ndarray) -> bool:
    """Record arrays equal field by field (padding bytes are not compared)."""
    return a.shape == b.shape and all(np.array_equal(a[n], b[n]) for n in a.dtype.names)


def same_games(x, y, index=slice(None)) -> bool:
    """Both record arrays of state ``x`` at ``index`` equal those of state ``y``."""
    return same_records(x.data[index], y.data) and same_records(x.hot[index], y.hot)


@pytest.mark.parametrize("players", [3, 4, 6])
def test_a_batch_of_4096_agrees_with_the_reference(players: int) -> None:
    """Differential test at batch 4096 (seeds include the conformance suite's 300): current
    players, masks and results of every game at every step, observations every 8th step."""
    rules = R.Rules(num_players=players)
    game, ref = VeruGame(rules), ReferenceGame(rules)
    seeds = np.arange(4096) + 7919 * players
    st, states = play_random_both(game, ref, seeds, where=f"batch 4096 {players}p", every=8)
    assert st.done.all() and all(s.done for s in states)


@pytest.mark.parametrize("players", [3, 4, 6])
def test_reset_games_equals_a_fresh_init(players: int) -> None:
    game = VeruGame(R.Rules(num_players=players, **GADGETS))
    st = game.init(np.arange(64))
    for _ in range(150):
        game.step(st, random_actions(game, st))
    slots = np.array([3, 10, 11, 40, 63])
    new_seeds = np.array([1000, 1001, 5, 77, 2**40])
    game.reset_games(st, slots, new_seeds)
    fresh = game.init(new_seeds)
    assert same_games(st, fresh, slots)
    for name in ("current_player", "legal_action_mask", "hands", "known", "seen_taken", "bank",
                 "table", "round_over", "last_check", "checks", "placements", "in_bits"):
        np.testing.assert_array_equal(getattr(st, name)[slots], getattr(fresh, name), name)
    # and the reset games then play exactly as fresh ones
    for _ in range(200):
        a = random_actions(game, fresh)
        b = random_actions(game, st)
        assert (b[slots] == a).all()
        game.step(fresh, a)
        game.step(st, b)
        assert same_games(st, fresh, slots)


@pytest.mark.parametrize(("players", "options"), [(3, {}), (5, GADGETS), (6, GADGETS)])
def test_compiled_tensor_equals_observe_to_tensor(players: int, options: dict) -> None:
    rules = R.Rules(num_players=players, endgame_limit=40, **options)
    game = VeruGame(rules)
    st = game.init(np.arange(200))
    timeouts = 0
    for i in range(2000):
        if i % 7 == 0:
            want = O.to_tensor(rules, game.observe(st))
            np.testing.assert_array_equal(game.observation_tensor(st), want)
        if st.done.all():
            break
        a = random_actions(game, st)
        late = ~st.done & (np.arange(200) % 13 == i % 13)  # a few timeouts too
        a[late] = R.TIMEOUT
        timeouts += int(late.sum())
        game.step(st, a)
    assert st.done.all() and timeouts > 0
    np.testing.assert_array_equal(game.observation_tensor(st), O.to_tensor(rules, game.observe(st)))


@pytest.mark.parametrize("players", [3, 6])
def test_the_scripted_deal_kernel_deals_like_the_seeded_shuffle(players: int) -> None:
    """``kernels.deal_kernel`` (the tests' scripted deals) given each seed's own shuffle gives
    exactly ``init``'s games."""
    game = VeruGame(R.Rules(num_players=players, jokers=5))
    seeds = np.arange(300)
    st = game.empty_state(seeds.astype(np.uint64))
    orders = rng.permutations(seeds, rng.Stream.DEAL, 0, 52)
    KN.deal_kernel(st.data, st.hot, game._rec, np.arange(seeds.size), orders)
    assert same_games(st, game.init(seeds))


def test_state_fields_are_views_and_copies_are_snapshots() -> None:
    game = VeruGame(R.Rules(num_players=3))
    st = game.init(np.arange(5))
    assert st.hands.shape == (5, 3, R.NUM_TYPES) and st.hands.dtype == np.int8
    assert st.seen_taken.shape == (5, 3, 3, R.NUM_TYPES) and st.seen_taken.dtype == np.int32
    assert st.known.shape == (5, 3, 3, R.NUM_TYPES) and st.known.dtype == np.int8
    assert st.out.dtype == bool and st.closed.shape == (5, R.ANNOUNCEABLE)
    assert st.endgame_count.dtype == np.int32 and st.table.shape == (5, 3)
    assert st.legal_action_mask.shape == (5, game.num_actions)
    assert np.shares_memory(st.hands, st.data) and np.shares_memory(st.known, st.data)
    snap, part, pick = st.copy(), st.take([1, 4]), pickle.loads(pickle.dumps(st))
    before = st.copy()
    game.step(st, random_actions(game, st))
    assert not same_games(st, before)
    assert same_games(snap, before)
    assert same_games(pick, before) and np.shares_memory(pick.hands, pick.data)
    assert np.shares_memory(pick.legal_action_mask, pick.hot)
    assert same_games(before, part, [1, 4])
    game.step(part, random_actions(game, part))  # a taken sub-batch is a working state
    assert (part.num_decisions == 1).all()
    assert st.nbytes() == st.data.nbytes + st.hot.nbytes


@pytest.mark.parametrize(("players", "options"), [(3, {}), (4, {}), (6, GADGETS)])
def test_fused_random_play_equals_stepping_with_the_random_agent(players: int, options: dict) -> None:
    game = VeruGame(R.Rules(num_players=players, **options))
    seeds = np.arange(300) + 11 * players
    fused, stepped = game.init(seeds), game.init(seeds)
    total = [0, 0, 0]
    for _ in range(40):
        for i, v in enumerate(game.play_random(fused, 7)):
            total[i] += v
    decisions = 0
    for _ in range(40 * 7):
        live = ~stepped.done
        decisions += int(live.sum())
        game.step(stepped, random_actions(game, stepped))
    ignore = {"round_over"}  # the fused loop reports rounds per call, not per step
    for arr in ("data", "hot"):
        for name in getattr(stepped, arr).dtype.names:
            if name not in ignore:
                np.testing.assert_array_equal(getattr(fused, arr)[name],
                                              getattr(stepped, arr)[name], name)
    assert total[0] == decisions == int(stepped.num_decisions.sum())
    assert total[1] == int(stepped.num_rounds.sum())
    assert total[2] == int(stepped.done.sum()) > 0


def test_an_illegal_action_is_refused_before_any_game_moves() -> None:
    """The compiled step checks every game first: the first illegal one is named, nothing is
    applied; ``timeout`` (never in the mask) is accepted in a running game."""
    from bluffsim.api import IllegalActionError

    game = VeruGame(R.Rules(num_players=4))
    st = game.init(np.arange(4))
    before = st.copy()
    a = random_actions(game, st)
    a[2] = R.DONE  # nobody may say "done" before putting a card
    a[3] = 99
    with pytest.raises(IllegalActionError, match="batch index 2"):
        game.step(st, a)
    assert same_games(st, before)
    a[2], a[3] = R.TIMEOUT, R.TIMEOUT
    game.step(st, a)
    assert (st.timeouts[[2, 3]].sum(axis=1) == 1).all() and (st.num_decisions == 1).all()
