"""The compiled legumes engine (``kernels.py`` behind ``vec.LegumesGame``): a batch of 4096 against the
reference, ``reset_games`` equal to a fresh ``init``, the compiled tensor equal to
``observe.to_tensor``, and the record-backed state's copies and views."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from bluffsim.games.legumes import observe as O
from bluffsim.games.legumes import rules as R
from bluffsim.games.legumes.reference import ReferenceGame
from bluffsim.games.legumes.vec import LegumesGame
from tests.games import assert_same_game, random_actions


def same_records(a: np.ndarray, b: np.ndarray) -> bool:
    """Record arrays equal field by field (padding bytes are not compared)."""
    return a.shape == b.shape and all(np.array_equal(a[n], b[n]) for n in a.dtype.names)


def same_games(x, y, index=slice(None)) -> bool:
    """Both record arrays of state ``x`` at ``index`` equal those of state ``y``."""
    return same_records(x.data[index], y.data) and same_records(x.hot[index], y.hot)


def test_a_batch_of_4096_agrees_with_the_reference() -> None:
    """Differential test at batch 4096 (seeds include the conformance suite's 300): current
    players, masks and results of every game at every step, observations every 8th step."""
    rules = R.Rules(num_players=4)
    game, ref = LegumesGame(rules), ReferenceGame(rules)
    seeds = np.arange(4096) + 7919 * 4
    st = game.init(seeds)
    states = [ref.new_game(int(s)) for s in seeds]
    step = 0
    while True:
        live = np.flatnonzero(~st.done)
        assert_same_game(game, ref, st, states, where=f"batch 4096 step {step}",
                         observations=step % 8 == 0)
        if live.size == 0:
            break
        actions = random_actions(game, st)
        for b in live:
            ref.apply(states[b], int(actions[b]))
        game.step(st, actions)
        step += 1
    assert all(s.done for s in states)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_reset_games_equals_a_fresh_init(players: int) -> None:
    game = LegumesGame(R.Rules(num_players=players))
    st = game.init(np.arange(64))
    for _ in range(150):
        game.step(st, random_actions(game, st))
    slots = np.array([3, 10, 11, 40, 63])
    new_seeds = np.array([1000, 1001, 5, 77, 2**40])
    game.reset_games(st, slots, new_seeds)
    fresh = game.init(new_seeds)
    assert same_games(st, fresh, slots)
    for name in ("current_player", "legal_action_mask", "hands", "draw", "draw_len", "discard",
                 "round_over", "last_reveal", "taken_known", "placements"):
        np.testing.assert_array_equal(getattr(st, name)[slots], getattr(fresh, name), name)
    # and the reset games then play exactly as fresh ones
    for _ in range(200):
        a = random_actions(game, fresh)
        b = random_actions(game, st)
        assert (b[slots] == a).all()
        game.step(fresh, a)
        game.step(st, b)
        assert same_games(st, fresh, slots)


@pytest.mark.parametrize("players", [2, 5, 6])
def test_compiled_tensor_equals_observe_to_tensor(players: int) -> None:
    rules = R.Rules(num_players=players, numbers=(3, 2, 2), hand_size=4)
    game = LegumesGame(rules)
    st = game.init(np.arange(200))
    for i in range(400):
        if i % 7 == 0:
            want = O.to_tensor(rules, game.observe(st))
            np.testing.assert_array_equal(game.observation_tensor(st), want)
        if st.done.all():
            break
        game.step(st, random_actions(game, st))
    assert st.done.any()


def test_state_fields_are_views_and_copies_are_snapshots() -> None:
    game = LegumesGame(R.Rules(num_players=3))
    st = game.init(np.arange(5))
    assert st.hand_sizes.shape == (5, 3) and st.hand_sizes.dtype == np.int16
    assert st.hands.shape == (5, 3, R.NUM_TYPES) and st.after_reverse.dtype == bool
    assert st.taken_known.shape == (5, 3, 3, R.NUM_TYPES) and st.taken_known.dtype == np.int32
    assert st.draw.shape == (5, game.rules.total_cards) and st.draw.dtype == np.int8
    assert st.legal_action_mask.shape == (5, game.num_actions)
    assert np.shares_memory(st.hand_sizes, st.data) and np.shares_memory(st.hands, st.data)
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


@pytest.mark.parametrize("players", [2, 4, 6])
def test_fused_random_play_equals_stepping_with_the_random_agent(players: int) -> None:
    game = LegumesGame(R.Rules(num_players=players))
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
