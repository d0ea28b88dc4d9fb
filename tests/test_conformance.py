"""One conformance suite over every game: API contract, determinism, differential, info sets."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st_

import bluffsim
from bluffsim.api import FastEngine, IllegalActionError, SeedError
from tests.games import CASE_IDS, CASES, Case, play_random_both, random_actions

pytestmark = pytest.mark.parametrize("case", CASES, ids=CASE_IDS)


def play_to_end(game, st, max_steps=20_000):
    """Random play until every game of the batch is over; returns the per-step actions."""
    log = []
    for _ in range(max_steps):
        if st.done.all():
            return log
        a = random_actions(game, st)
        log.append(a)
        game.step(st, a)
    raise AssertionError("games did not end")


def test_the_engine_satisfies_the_contract(case: Case) -> None:
    """The spec's engine is what ``bluffsim.make`` returns, and it has every ``FastEngine``
    member (the contract the runner, adapters and this suite rely on)."""
    game = case.make()
    assert isinstance(game, FastEngine) and type(game) is case.spec.engine
    assert game.game_id == case.game_id and game.rules.num_players == case.num_players


def test_reset_games_equals_a_fresh_init(case: Case) -> None:
    """Autoreset: restarted slots hold exactly what ``init`` gives for their seeds (every state
    field), and then play on exactly as fresh games."""
    game = case.make()
    st = game.init(np.arange(40))
    for _ in range(120):
        game.step(st, random_actions(game, st))
    slots, seeds = np.array([0, 7, 8, 39]), np.array([500, 501, 3, 2**40])
    game.reset_games(st, slots, seeds)
    fresh = game.init(seeds)

    def same() -> bool:
        return all(np.array_equal(getattr(st, f)[slots], getattr(fresh, f))
                   for f in vars(fresh) if isinstance(getattr(fresh, f), np.ndarray)
                   and getattr(fresh, f).dtype.names is None)

    assert same()
    np.testing.assert_array_equal(game.observation_tensor(st)[slots], game.observation_tensor(fresh))
    for _ in range(150):
        a, b = random_actions(game, fresh), random_actions(game, st)
        assert (b[slots] == a).all()  # the random agent's stream is keyed by the game's seed
        game.step(fresh, a)
        game.step(st, b)
        assert same()


def test_reset_games_needs_one_seed_per_game(case: Case) -> None:
    game = case.make()
    st = game.init(np.arange(4))
    before = st.copy()
    with pytest.raises(SeedError, match="2 games to restart but 3 seeds"):
        game.reset_games(st, np.array([0, 1]), np.array([7, 8, 9]))
    np.testing.assert_array_equal(st.current_player, before.current_player)


def test_rewards_come_from_placements(case: Case) -> None:
    """Rewards: zero while a game runs; at the end zero-sum, in [-1, 1], ordered like the
    placements (a better place never earns less); ``win`` rewards the shared first place."""
    game = case.make()
    st = game.init(np.arange(60))
    play_to_end(game, st)
    r, w = game.rewards(st), game.rewards(st, "win")
    assert r.dtype == np.float32 and r.shape == (60, game.num_players)
    np.testing.assert_allclose(r.sum(axis=1), 0, atol=1e-6)
    assert (np.abs(r) <= 1).all()
    place = st.placements.astype(int)
    better = place[:, :, None] < place[:, None, :]
    assert (r[:, :, None] > r[:, None, :])[better].all()
    assert ((w == 1) == (place == 1)).all()
    fresh = game.init(np.arange(3))
    assert (game.rewards(fresh) == 0).all()


def test_observations_match_their_declared_fields(case: Case) -> None:
    """Both engines' observations have exactly the declared keys, dtypes and shapes (fields of
    the game's ``ObservationSpec``), the tensor's layout is contiguous and as wide as the
    engine's, and the Gymnasium space of the fields contains every observation."""
    game = case.make()
    spec = case.spec.observation_spec
    ref = case.spec.make_reference(game.rules)
    st = game.init(np.arange(6))
    states = [ref.new_game(s) for s in range(6)]
    space = None
    try:
        space = spec.gym_space(game.rules)
    except ImportError:  # gymnasium is in the adapters extra
        pass
    for step in range(60):
        obs = game.observe(st)
        assert spec.problems(game.rules, obs, st.batch_size) == [], step
        for b, s in enumerate(states):
            robs = ref.observe(s)
            assert spec.problems(game.rules, robs, None) == [], (step, b)
            if space is not None:
                assert space.contains({k: np.asarray(v) for k, v in robs.items()}), (step, b)
        a = random_actions(game, st)
        for b, s in enumerate(states):
            if not s.done:
                ref.apply(s, int(a[b]))
        game.step(st, a)
    rows = spec.tensor_layout(game.rules)
    assert [r[1] for r in rows] == list(np.cumsum([0] + [r[2] for r in rows])[:-1])
    assert spec.tensor_size(game.rules) == game.observation_size == rows[-1][1] + rows[-1][2]
    first = spec.keys[0]
    assert getattr(spec.view(obs), first) is obs[first]
    with pytest.raises(AttributeError, match="no observation field"):
        _ = spec.view(obs).nonsense


def test_shapes_and_dtypes(case: Case) -> None:
    game = case.make()
    st = game.init(np.arange(7))
    p, a = game.num_players, game.num_actions
    assert len(game.action_names) == a == len(set(game.action_names))
    assert st.current_player.shape == (7,) and st.current_player.dtype == np.int8
    assert st.legal_action_mask.shape == (7, a) and st.legal_action_mask.dtype == bool
    assert st.placements.shape == (7, p) and st.placements.dtype == np.int8
    assert st.terminated.dtype == st.truncated.dtype == bool
    assert st.num_decisions.dtype == st.num_rounds.dtype == np.int32
    x = game.observation_tensor(st)
    assert x.shape == (7, game.observation_size) and x.dtype == np.float32
    assert np.isfinite(x).all()
    obs = game.observe(st)
    assert all(v.shape[0] == 7 for v in obs.values())
    for i, name in enumerate(game.action_names):
        assert game.action_id(name) == i


def test_running_games_have_legal_moves_and_valid_placements(case: Case) -> None:
    game = case.make()
    st = game.init(np.arange(64))
    for _ in range(20_000):
        live = ~st.done
        assert st.legal_action_mask[live].any(axis=1).all()
        assert ((st.current_player[live] >= 0)
                & (st.current_player[live] < game.num_players)).all()
        assert (st.current_player[~live] == -1).all()
        assert not st.legal_action_mask[~live].any()
        if st.done.all():
            break
        before = st.num_decisions.copy()
        game.step(st, random_actions(game, st))
        assert (st.num_decisions - before == live).all()
    assert st.done.all()
    for row in st.placements:
        assert_valid_ranking(row.tolist())


def assert_valid_ranking(places: list[int]) -> None:
    """Competition ranking: each place is 1 + the number of strictly better places, except
    that a group may share the last place P (veru's endgame limit: both take P)."""
    assert min(places) == 1
    for pl in places:
        shared_last = pl == len(places) and places.count(pl) > 1
        assert pl == 1 + sum(o < pl for o in places) or shared_last


def test_finished_games_ignore_actions(case: Case) -> None:
    game = case.make()
    st = game.init(np.arange(8))
    play_to_end(game, st)
    snap = st.copy()
    game.step(st, np.full(8, 12345))
    np.testing.assert_array_equal(st.placements, snap.placements)
    np.testing.assert_array_equal(st.num_decisions, snap.num_decisions)


def test_illegal_action_names_batch_index_seat_and_action(case: Case) -> None:
    game = case.make()
    st = game.init(np.arange(3))
    actions = random_actions(game, st)
    bad = int(np.flatnonzero(~st.legal_action_mask[1])[0])
    actions[1] = bad
    with pytest.raises(IllegalActionError, match=rf"batch index 1 .*seat {st.current_player[1]}"):
        game.step(st, actions)
    with pytest.raises(IllegalActionError, match="out of range"):
        game.step(st, np.full(3, game.num_actions))


@pytest.mark.parametrize("seeds", [np.zeros((2, 2), int), [1.5, 2.0], [-1, 3], []])
def test_bad_seeds_are_refused(case: Case, seeds) -> None:
    with pytest.raises(SeedError, match="seeds must"):
        case.make().init(seeds)


def test_copy_is_a_snapshot(case: Case) -> None:
    game = case.make()
    st = game.init(np.arange(4))
    snap = st.copy()
    out = game.step(st, random_actions(game, st))
    assert out is st
    assert (snap.num_decisions == 0).all() and (st.num_decisions == 1).all()


def test_game_is_the_same_alone_or_in_a_batch(case: Case) -> None:
    game = case.make()
    seeds = np.arange(1000, 1257)
    big = game.init(seeds)
    play_to_end(game, big)
    for b in (0, 100, 256):
        alone = game.init(seeds[b:b + 1])
        play_to_end(game, alone)
        assert alone.placements[0].tolist() == big.placements[b].tolist()
        assert alone.num_decisions[0] == big.num_decisions[b]
        assert alone.num_rounds[0] == big.num_rounds[b]


@pytest.mark.parametrize("batch", [1, 257])
def test_reference_and_vectorised_agree(case: Case, batch: int) -> None:
    """Differential test over 300 seeds of random play: masks, players, observations, results.

    At batch 257 every field is compared at every step; at batch 1 (the same seeds
    played one game per batch) observations are compared at every third step to
    keep the suite fast, masks, players and results at every step.
    """
    game = case.make()
    ref = case.reference.ReferenceGame(game.rules)
    seeds = np.arange(300) + 7919 * case.num_players
    for lo in range(0, len(seeds), batch):
        play_random_both(game, ref, seeds[lo:lo + batch], where=f"{case} batch {batch}",
                         every=1 if batch > 1 else 3)


@given(seed=st_.integers(0, 2**32), steps=st_.integers(0, 120), redeal=st_.integers(0, 2**16))
def test_observation_ignores_cards_the_player_cannot_see(case: Case, seed, steps, redeal) -> None:
    """Re-dealing the hidden cards leaves the current player's observation unchanged."""
    game = case.make()
    ref = case.reference.ReferenceGame(game.rules)
    s = ref.new_game(seed)
    st = game.init([seed])
    for _ in range(steps):
        if s.done:
            return
        a = random_actions(game, st)
        ref.apply(s, int(a[0]))
        game.step(st, a)
    seat = s.current_player
    other = case.reference.redeal_hidden(s, seat, redeal, game.rules)
    before, after = ref.observe(s, seat), ref.observe(other, seat)
    for key in before:
        np.testing.assert_array_equal(before[key], after[key], err_msg=key)
    vec_other = game.observe(game.from_reference([other]))
    for key in before:
        np.testing.assert_array_equal(vec_other[key][0], before[key], err_msg=key)


def test_make_rejects_unknown_game_and_option(case: Case) -> None:
    with pytest.raises(bluffsim.RulesError, match="unknown game 'nope'"):
        bluffsim.make("nope")
    with pytest.raises(bluffsim.RulesError, match="unknown .* option 'colour'"):
        case.make(colour="red")
    lo, hi, _ = case.spec.players
    with pytest.raises(bluffsim.RulesError, match=f"num_players={hi + 1}"):
        bluffsim.make(case.game_id, hi + 1)
    with pytest.raises(bluffsim.RulesError,
                       match=f"num_players={lo - 1} is invalid; allowed: {lo}..{hi}"):
        bluffsim.make(case.game_id, lo - 1)
