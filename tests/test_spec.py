"""The game specs (``bluffsim/games/spec.py``): the registry reads them, and every part outside
the game packages gets game specifics from them — seat columns in the results, player ranges
in the adapters, bluff statistics in the analysis."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bluffsim
from bluffsim import rng
from bluffsim.analysis import seats
from bluffsim.tournament import parse_config, play_shard

GAMES = bluffsim.list_games()


def random_shard(game_id: str, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(games, rounds) of 24 all-random games at the game's smallest table."""
    players = bluffsim.spec(game_id).players[0]
    exp = parse_config({
        "experiment": {"name": "t", "game": game_id, "players": players, "games": 24, "seed": seed},
        "seats": [{"agent": "random", "label": f"s{i}"} for i in range(players)],
        "run": {"batch": 8, "shard_games": 24, "plots": False},
    })
    return play_shard(exp, 0)


def test_every_game_package_declares_its_spec_under_its_own_id() -> None:
    assert GAMES == sorted(GAMES) and set(GAMES) >= {"qdv", "legumes", "veru"}
    for gid in GAMES:
        spec = bluffsim.spec(gid)
        assert spec.game_id == gid == bluffsim.game_module(gid).__name__.rsplit(".", 1)[1]
        lo, hi, default = spec.players
        assert lo <= default <= hi
        game = bluffsim.make(gid, lo)
        assert isinstance(game, spec.engine) and game.num_players == lo
        assert spec.make_reference(game.rules).rules == game.rules
        assert all(hasattr(rng.Stream, name) for name in spec.streams), spec.streams
        assert spec.max_game_length(game.rules) > 0
        assert spec.display_module().DISPLAY is not None
        assert spec.test_tables, "the conformance suite must run the game at some table"


def test_unknown_game_is_refused_with_the_list() -> None:
    with pytest.raises(bluffsim.RulesError,
                       match=f"unknown game 'poker'; available: {', '.join(GAMES)}"):
        bluffsim.spec("poker")


@pytest.mark.parametrize("game_id", GAMES)
def test_every_seat_column_of_the_round_records_gets_its_agent_column(game_id: str) -> None:
    """The runner names the agent of every seat column the game's spec declares (qdv's
    ``loser`` and ``gainer`` had none before), and the label matches the games table."""
    spec = bluffsim.spec(game_id)
    games, rounds = random_shard(game_id, seed=3)
    assert not rounds.empty
    seat_agent = games.set_index(["game", "seat"])["agent"]
    for col in spec.seat_columns:
        assert col in rounds and f"{col}_agent" in rounds, col
        seat = rounds[col].astype(np.int64)
        named = rounds[seat >= 0]
        want = seat_agent.loc[list(zip(named["game"], named[col].astype(np.int64), strict=True))]
        assert named[f"{col}_agent"].tolist() == want.tolist(), col
        assert (rounds.loc[seat < 0, f"{col}_agent"] == "").all(), col
    assert spec.claim_seat in spec.seat_columns
    assert all(c in rounds for c in spec.claim_columns)


@pytest.mark.parametrize("game_id", GAMES)
def test_rounds_without_agent_columns_get_them_from_the_games_table(game_id: str) -> None:
    """Older results (written before a seat column was named) get the same bluff table."""
    spec = bluffsim.spec(game_id)
    games, rounds = random_shard(game_id, seed=4)
    full = seats.bluff_table(rounds, games, game=game_id)
    old = rounds.drop(columns=[f"{c}_agent" for c in spec.seat_columns])
    pd.testing.assert_frame_equal(seats.bluff_table(old, games, game=game_id), full)
    assert "claims_checked" in full and full["claims_checked"].sum() > 0


def test_openspiel_player_ranges_come_from_the_specs() -> None:
    pytest.importorskip("pyspiel")
    from bluffsim.adapters import openspiel

    for gid in GAMES:
        t = openspiel.GAME_CLASSES[gid]().get_type()
        lo, hi, _ = bluffsim.spec(gid).players
        assert (t.min_num_players, t.max_num_players) == (lo, hi)
