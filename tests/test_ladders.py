"""The robustness ladder (experiments/ladders/run.py): tables, criterion and one table end to end."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from agents.learned import shipped_weights
from tests.scripts import load_script

L = load_script("ladders/run.py")


def test_pass_fail_logic_on_synthetic_numbers():
    fair = 0.25
    # clear winner: lower bound above 1/P and above every other win rate, best placement
    assert L.passes(0.40, fair, np.array([0.20, 0.15, 0.10]), 1.8, np.array([2.3, 2.6, 2.9]))
    # lower bound not above 1/P
    assert not L.passes(0.24, fair, np.array([0.20, 0.15, 0.10]), 1.8, np.array([2.3, 2.6, 2.9]))
    # lower bound above 1/P but not above the strongest other seat's win rate
    assert not L.passes(0.30, fair, np.array([0.31, 0.15, 0.10]), 1.8, np.array([2.3, 2.6, 2.9]))
    # wins most but another seat places better on average
    assert not L.passes(0.40, fair, np.array([0.20, 0.15, 0.10]), 2.0, np.array([1.9, 2.6, 2.9]))
    # a placement tie is not "best"
    assert not L.passes(0.40, fair, np.array([0.20]), 1.5, np.array([1.5]))


def test_table_row_from_synthetic_games():
    table = L.Table("qdv", 2, "synthetic", L._lineup([("counting", "counting", {}),
                                                      ("random", "random", {})]), "rotate")
    n = 1000
    won = np.r_[np.ones(700, bool), np.zeros(300, bool)]
    games = pd.DataFrame({"agent": ["counting"] * n + ["random"] * n,
                          "won": np.r_[won, ~won],
                          "placement": np.r_[np.where(won, 1, 2), np.where(won, 2, 1)]})
    row = L.table_row(table, games)
    assert row["win_rate"] == pytest.approx(0.7)
    assert row["ci_low"] < 0.7 < row["ci_high"] and row["ci_low"] > 0.67
    assert row["best_other"] == "random" and row["best_other_win_rate"] == pytest.approx(0.3)
    assert row["mean_placement"] == pytest.approx(1.3) and row["passes"]
    assert set(L.COLUMNS) <= set(row)


@pytest.mark.parametrize("game, players", [("qdv", 2), ("qdv", 5), ("veru", 3), ("legumes", 6)])
def test_tables_cover_every_variant_extreme_and_seating(game, players):
    ts = L.tables(game, players)
    names = [t.name for t in ts]
    assert len(set(t.key for t in ts)) == len(ts)
    for param, (lo, hi) in L.heuristic_extremes(game).items():
        for v in (lo, hi):
            assert f"{param}={v}" in names and f"h/{param}={v}" in names
    assert "random" in names and "heuristic" in names and "h/random" in names
    for t in ts:
        assert len(t.seats) == players and len({s.label for s in t.seats}) == players
        want = {"h/": "heuristic", "l/": "learned"}.get(t.name[:2], "counting")
        assert t.seats[0].agent == want
        assert all(s.agent != "counting" for s in t.seats[1:]) or t.name == "l/counting"
        # the learned agents are compared on neighbour-balanced seatings
        assert (t.seating == "balanced") == (t.name == "learned" or t.name.startswith("l/"))
    if players >= 3:
        assert any(t.seating == "permute" for t in ts) and "mixed" in names
    # the learned tables exactly where a learned agent is shipped (qdv 2p is)
    shipped = shipped_weights(game, players).is_file()
    assert ({"learned", "l/random", "l/heuristic", "l/counting"} <= set(names)) == shipped
    assert ("learned" in names) == shipped
    if (game, players) == ("qdv", 2):
        assert shipped
        t = next(t for t in ts if t.name == "learned")
        assert [s.agent for s in t.seats] == ["counting", "learned"]


def test_one_small_table_end_to_end(tmp_path):
    df = L.run(16, ["qdv"], [2], ["heuristic"], 1, tmp_path, batch=16, verbose=False)
    assert list(df.columns[:len(L.COLUMNS)]) == L.COLUMNS
    assert len(df) == 1 and df.loc[0, "games"] == 16 and df.loc[0, "subject"] == "counting"
    written = pd.read_csv(tmp_path / "ladder.csv")
    assert list(written.columns[:len(L.COLUMNS)]) == L.COLUMNS
    md = (tmp_path / "ladder.md").read_text()
    assert "| qdv | 2 | heuristic | rotated | counting |" in md and "tables pass" in md
