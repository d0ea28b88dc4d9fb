"""Every compiled engine (``bluffsim.games.compiled.CompiledGame`` over a game's ``kernels.py``):
a batch of 4096 against the reference, ``reset_games`` equal to a fresh ``init`` (records
byte-field by field), the compiled tensor equal to ``observe.to_tensor``, the fused random
loop equal to stepping with the ``random`` agent, and the record-backed state's views, copies
and pickles.  Games join by their spec (every ``CompiledGame`` engine); ``WIDE`` adds, for
two games, option values that change the tensor's width."""

from __future__ import annotations

import pickle
from dataclasses import fields

import numpy as np
import pytest

import bluffsim
from bluffsim.games.compiled import CompiledGame
from tests.games import play_random_both, random_actions, same_games

COMPILED = [g for g in bluffsim.list_games() if issubclass(bluffsim.spec(g).engine, CompiledGame)]
# every table of every compiled game's conformance cases: (game id, players, options)
TABLES = [(g, p, dict(o)) for g in COMPILED for p, o, _ in bluffsim.spec(g).test_tables]
TABLE_IDS = [f"{g}-{p}p-{i}" for i, (g, p, _) in enumerate(TABLES)]
# and option values away from the defaults that change the tensor's width (per game)
WIDE = [t for t in (("qdv", 5, {"salads": 8, "fruit_multipliers": (1, 2, 3, 3)}),
                    ("legumes", 5, {"numbers": (3, 2, 2), "hand_size": 4})) if t[0] in COMPILED]


@pytest.mark.parametrize("game_id", COMPILED)
def test_a_batch_of_4096_agrees_with_the_reference(game_id: str) -> None:
    """Differential test at batch 4096 (seeds include the conformance suite's 300): current
    players, masks and results of every game at every step, observations every 8th step
    (``play_random_both``: each step compares the games running before it, the end all)."""
    spec = bluffsim.spec(game_id)
    game = spec.make(4)
    ref = spec.make_reference(game.rules)
    _, states = play_random_both(game, ref, np.arange(4096) + 7919 * 4, where="batch 4096",
                                 every=8)
    assert all(s.done for s in states)


@pytest.mark.parametrize("game_id, players, options", TABLES, ids=TABLE_IDS)
def test_reset_games_equals_a_fresh_init_record_for_record(game_id: str, players: int,
                                                           options: dict) -> None:
    game = bluffsim.make(game_id, players, **options)
    st = game.init(np.arange(64))
    for _ in range(150):
        game.step(st, random_actions(game, st))
    slots = np.array([3, 10, 11, 40, 63])
    new_seeds = np.array([1000, 1001, 5, 77, 2**40])
    game.reset_games(st, slots, new_seeds)
    fresh = game.init(new_seeds)
    assert same_games(st, fresh, slots)
    for _ in range(200):   # and the reset games then play exactly as fresh ones
        a, b = random_actions(game, fresh), random_actions(game, st)
        assert (b[slots] == a).all()
        game.step(fresh, a)
        game.step(st, b)
        assert same_games(st, fresh, slots)


@pytest.mark.parametrize("game_id, players, options", TABLES + WIDE,
                         ids=TABLE_IDS + [f"{g}-{p}p-wide" for g, p, _ in WIDE])
def test_compiled_tensor_equals_observe_to_tensor(game_id: str, players: int,
                                                  options: dict) -> None:
    game = bluffsim.make(game_id, players, **options)
    to_tensor = bluffsim.spec(game_id).observation.to_tensor
    st = game.init(np.arange(200))
    for i in range(400):
        if i % 7 == 0:
            want = to_tensor(game.rules, game.observe(st))
            np.testing.assert_array_equal(game.observation_tensor(st), want)
        if st.done.all():
            break
        game.step(st, random_actions(game, st))
    assert st.done.any()


@pytest.mark.parametrize("game_id", COMPILED)
def test_state_fields_are_views_and_copies_are_snapshots(game_id: str) -> None:
    game = bluffsim.make(game_id, 3)
    st = game.init(np.arange(5))
    public = [f.name for f in fields(st) if f.name not in ("data", "hot", "rules")]
    for name in public:
        v = getattr(st, name)
        assert v.shape[0] == 5, name
        assert np.shares_memory(v, st.data) or np.shares_memory(v, st.hot), name
    snap, part, pick = st.copy(), st.take([1, 4]), pickle.loads(pickle.dumps(st))
    before = st.copy()
    game.step(st, random_actions(game, st))
    assert not same_games(st, before)
    assert same_games(snap, before)
    assert same_games(pick, before)
    assert all(np.shares_memory(getattr(pick, n), pick.data) or
               np.shares_memory(getattr(pick, n), pick.hot) for n in public)
    assert same_games(before, part, [1, 4])
    game.step(part, random_actions(game, part))  # a taken sub-batch is a working state
    assert (part.num_decisions == 1).all()
    assert st.nbytes() == st.data.nbytes + st.hot.nbytes


@pytest.mark.parametrize("game_id, players, options", TABLES, ids=TABLE_IDS)
def test_fused_random_play_equals_stepping_with_the_random_agent(game_id: str, players: int,
                                                                 options: dict) -> None:
    game = bluffsim.make(game_id, players, **options)
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
