"""Plackett–Luce and Bradley–Terry ratings with bootstrap intervals over deals
(``bluffsim.analysis.ratings``): they recover set strengths from synthetic finishing orders,
do not depend on how the games are chunked, keep a deal's games together, and read ties."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bluffsim.analysis.ratings import FinishOrders
from bluffsim.analysis.stats import BT_SCALE, bradley_terry

NAMES = np.array(["a", "b", "c", "d"])
THETA = np.array([1.0, 0.3, -0.4, -0.9])      # natural-log Plackett–Luce strengths


def plackett_luce_games(n: int, seats: int, seed: int, deals: int = 1) -> pd.DataFrame:
    """``n`` games of ``seats`` seats drawn from agents a–d, finishing orders drawn from the
    Plackett–Luce model with strengths ``THETA`` (Gumbel-max: sort by strength + Gumbel
    noise); ``deals`` consecutive games share a seed."""
    rs = np.random.default_rng(seed)
    who = rs.integers(0, len(THETA), (n, seats))
    key = THETA[who] + rs.gumbel(size=who.shape)
    place = np.argsort(np.argsort(-key, axis=1), axis=1) + 1
    return pd.DataFrame({"game": np.repeat(np.arange(n), seats),
                         "seed": np.repeat(np.arange(n) // deals * 7919 + 3, seats).astype(np.uint64),
                         "seat": np.tile(np.arange(seats), n), "agent": NAMES[who.ravel()],
                         "placement": place.ravel(), "score": 0})


def truth() -> pd.Series:
    return pd.Series((THETA - THETA.mean()) * BT_SCALE, index=NAMES)


def test_plackett_luce_recovers_set_strengths_within_its_intervals() -> None:
    r = FinishOrders().add(plackett_luce_games(20_000, 4, seed=1)).ratings()
    want = truth().reindex(r.index)
    assert (r["pl_rating"] - want).abs().max() < 6, r
    assert ((r["pl_low"] <= want + 1) & (want - 1 <= r["pl_high"])).all(), r
    width = r["pl_high"] - r["pl_low"]
    assert (width > 2).all() and (width < 20).all(), width
    assert r["pl_rating"].sort_values().index.tolist() == ["d", "c", "b", "a"]
    assert abs(r["pl_rating"].mean()) < 1e-9


def test_more_games_narrow_the_intervals_and_at_three_players_too() -> None:
    small = FinishOrders().add(plackett_luce_games(1_000, 3, seed=2)).ratings()
    large = FinishOrders().add(plackett_luce_games(16_000, 3, seed=3)).ratings()
    w_small = (small["pl_high"] - small["pl_low"]).sort_index()
    w_large = (large["pl_high"] - large["pl_low"]).sort_index()
    assert (w_large < w_small / 2.5).all(), (w_small, w_large)
    want = truth().reindex(large.index)
    assert (large["pl_rating"] - want).abs().max() < 12


def test_the_intervals_do_not_depend_on_chunking_or_game_order() -> None:
    games = plackett_luce_games(3_000, 4, seed=4)
    whole = FinishOrders().add(games).ratings().sort_index()
    parts = FinishOrders()
    for chunk in np.array_split(np.arange(3_000), 7)[::-1]:
        parts.add(games[games["game"].isin(chunk)])
    pd.testing.assert_frame_equal(whole, parts.ratings().sort_index())


def test_games_replaying_one_deal_count_as_one_and_widen_the_interval() -> None:
    once = plackett_luce_games(2_000, 4, seed=5)
    # every deal played four times with the same finishing order: four times the games, no
    # more information; the deal bootstrap keeps the interval about as wide as once
    copies = pd.concat([once.assign(game=once["game"] * 4 + k) for k in range(4)])
    a = FinishOrders().add(once).ratings().sort_index()
    b = FinishOrders().add(copies.sort_values(["game", "seat"])).ratings().sort_index()
    np.testing.assert_allclose(a["pl_rating"], b["pl_rating"], atol=1e-6)
    ratio = (b["pl_high"] - b["pl_low"]) / (a["pl_high"] - a["pl_low"])
    assert (ratio > 0.7).all(), ratio


def test_a_tie_counts_as_both_orders_and_bradley_terry_agrees_with_stats() -> None:
    games = plackett_luce_games(4_000, 4, seed=6)
    tied = games.copy()
    tied.loc[tied["placement"] == 2, "placement"] = 1      # first and second share first
    r = FinishOrders().add(tied).ratings()
    # the tie hides who of the top two is better: the ratings shrink towards each other
    plain = FinishOrders().add(games).ratings()
    assert r["pl_rating"].max() - r["pl_rating"].min() < plain["pl_rating"].max() - \
        plain["pl_rating"].min()
    bt = bradley_terry(games)
    inside = (plain["bt_low"] <= bt["rating"].reindex(plain.index)) & \
        (bt["rating"].reindex(plain.index) <= plain["bt_high"])
    assert inside.all(), (plain, bt)


def test_an_agent_that_never_finishes_ahead_gets_a_nan_rating_like_bradley_terry() -> None:
    games = plackett_luce_games(500, 3, seed=7)
    games.loc[games["agent"] == "d", "placement"] = 9          # d always last
    r = FinishOrders().add(games).ratings()
    assert r.isna().all().all()
    assert bradley_terry(games)["rating"].isna().all()
