"""Observation records sized to each game's bounds: one record type, hence one compiled kernel,
for every table of a game, while ``observe`` still gives each table its own shapes."""

from __future__ import annotations

import numpy as np
import pytest

import bluffsim
from agents import make as make_agent
from agents.fused import fused_lineup
from tests.games import random_actions

GAMES = ("qdv", "legumes", "veru")
PLAYERS = (3, 4, 5)


@pytest.mark.parametrize("game_id", GAMES)
def test_every_player_count_plays_in_one_compiled_fused_kernel(game_id: str) -> None:
    dtypes, signatures = set(), []
    for p in PLAYERS:
        game = bluffsim.make(game_id, p)
        lineup = [make_agent(n, game) for n in ("counting", "heuristic", "random", "counting",
                                                "heuristic")[:p]]
        fused = fused_lineup(game, lineup)
        st = game.init(np.arange(16) + 100 * p)
        made = fused.play(st, np.tile(np.arange(p), (16, 1)), 300, round_stop=False)[0]
        assert made > 16
        dtypes.add(game.observation_dtype)
        signatures.append(len(fused.kernel.signatures))
        obs = game.observe(st)
        assert obs["hand_sizes"].shape == (16, p)   # observe cuts the record to the table
    assert len(dtypes) == 1
    assert signatures[1:] == signatures[:1] * (len(PLAYERS) - 1), signatures


@pytest.mark.parametrize("game_id", GAMES)
def test_the_record_past_the_tables_sizes_stays_zero(game_id: str) -> None:
    game = bluffsim.make(game_id, 3)
    st = game.init(np.arange(8))
    for _ in range(60):
        game.step(st, random_actions(game, st))
    rec = game.observation_record()
    sizes = game.observation.SPEC.sizes(game.rules)
    varying = [f for f in game.observation.SPEC.fields
               if any(d in game.bounds and game.bounds[d] > sizes[d] for d in f.dims)]
    assert varying
    for b in range(8):
        game.kernels.observe_row(st.data[b], st.hot[b], game._rec[0], rec[0])
        for f in varying:
            padded = rec[0][f.name].copy()
            padded[tuple(slice(0, n) for n in f.shape(sizes))] = 0
            assert not padded.any(), f.name


def test_a_game_without_bounds_for_a_size_that_varies_is_refused() -> None:
    from bluffsim.games import obscompile

    game = bluffsim.make("qdv", 4)
    spec, kn = game.observation.SPEC, game.kernels
    with pytest.raises(ValueError, match=r"OBS_BOUNDS lack \['H'\]"):
        obscompile.check_sizes(spec, kn.OBS_SIZES, {"P": 6}, game.rules, game._rec)


def test_qdv_counting_on_a_small_deck_runs_the_default_decks_compiled_policy() -> None:
    """The counting policy's scratch is sized to the default deck's memo width and compositions
    (a smaller deck leaves the rest unused), so the small preset's tables add no signature."""
    from agents.qdv.counting import QdvCounting

    small = {"starting_tokens": 1, "fruit_multipliers": [1, 1], "salads": 1,
             "challenge_deck": [], "max_rounds": 1}
    scratch = {}
    for name, game in (("default", bluffsim.make("qdv", 4)),
                       ("small", bluffsim.make("qdv", 2, **small))):
        agent = QdvCounting(game)
        scratch[name] = agent.context()[0]
        fused = fused_lineup(game, [agent] + [make_agent("heuristic", game)
                                              for _ in range(game.rules.num_players - 1)])
        st = game.init(np.arange(32))
        p = game.rules.num_players
        fused.play(st, np.tile(np.arange(p), (32, 1)), 200, round_stop=False)
        scratch[name + " signatures"] = len(fused.kernel.signatures)
    assert scratch["small"].dtype == scratch["default"].dtype
    assert scratch["small"][0]["width"] < scratch["default"][0]["width"]
    assert scratch["small signatures"] == scratch["default signatures"]


def test_an_observation_field_of_another_tables_shape_is_refused_not_padded() -> None:
    from agents.policy import observation_records

    game, other = bluffsim.make("qdv", 4), bluffsim.make("qdv", 3)
    obs = game.observe(game.init(np.arange(2)))
    assert observation_records(game, obs).shape == (2,)
    wrong = {**obs, "tokens": other.observe(other.init(np.arange(2)))["tokens"]}
    with pytest.raises(ValueError, match=r"field 'tokens': shape \(3,\) per game, want \(4,\)"):
        observation_records(game, wrong)
