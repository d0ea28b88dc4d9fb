"""``bluffsim evaluate``'s ratings with intervals, Plackett–Luce and α-Rank (issue 37): in
ratings.csv, the scorecard, alpharank.csv / cycles.csv / plots/alpharank.png and the
leaderboard, finite on a small real run; a leaderboard written before these columns still reads
(the new columns empty) and takes new rows."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bluffsim import evaluate
from bluffsim.cli import main

ROOT = Path(__file__).resolve().parents[1]
NEW = ["bt_low", "bt_high", "pl_rating", "pl_low", "pl_high"]
OLD_BOARD = ("agent,hash,date,budget,scope,bluffsim,qdv_rating,qdv_se,reference,scorecard\n"
             "counting,0123456789ab,2026-01-01,quick,full,0.1,512.3,20.1,qdv:abc,x/scorecard.md\n")


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    """``counting`` at qdv 2 players, 60 games per table, against a reference pool cut to its
    3-player pool at 240 games (as the reference-cache tests cut it; at 3 players 240 games
    already rate every agent with Plackett–Luce), on a leaderboard written before the new
    columns."""
    from bluffsim.tournament.config import Experiment

    tmp = tmp_path_factory.mktemp("evr")
    tiny = [Experiment(**{**e.__dict__, "games": 240, "shard_games": 240})
            for e in evaluate.reference_pool("qdv")[1:2]]
    (tmp / "lb.csv").write_text(OLD_BOARD)
    cwd = os.getcwd()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(evaluate, "reference_pool", lambda game: tiny)
        os.chdir(ROOT)
        try:
            code = main(["evaluate", "counting", "--game", "qdv", "--players", "2",
                         "--table-games", "60", "--out", str(tmp / "card"), "--leaderboard",
                         str(tmp / "lb.csv"), "--reference-dir", str(tmp / "ref"), "--quiet",
                         "--workers", "1"])
        finally:
            os.chdir(cwd)
    assert code == 0
    return tmp


def test_ratings_csv_has_both_models_with_bootstrap_intervals(small_run):
    r = pd.read_csv(small_run / "card" / "ratings.csv").set_index("game").loc["qdv"]
    assert np.isfinite(r[["rating", "se", *NEW]].astype(float)).all(), r
    assert r["bt_low"] < r["rating"] < r["bt_high"] and r["pl_low"] < r["pl_rating"] < r["pl_high"]
    assert r["rating"] > 0 and r["pl_rating"] > 0          # counting beats random = 0
    ref = pd.read_csv(small_run / "card" / "reference.csv", index_col="agent")
    assert ref.loc["random", ["rating", "pl_rating", "pl_low", "pl_high"]].tolist() == [0, 0, 0, 0]
    assert np.isfinite(ref[NEW].astype(float)).all().all()
    md = (small_run / "card" / "scorecard.md").read_text()
    assert "Plackett–Luce" in md and "bootstrap CI" in md
    assert f"| qdv | {r['rating']:.0f} |" in md and f"| {r['pl_rating']:.0f} |" in md


def test_alpharank_of_the_pool_and_of_the_pool_with_the_subject(small_run):
    card = small_run / "card"
    masses = pd.read_csv(card / "alpharank.csv")
    assert set(masses["population"]) == {"pool", "pool+subject"}
    sums = masses.groupby("population")["mass"].sum()
    assert np.allclose(sums, 1.0) and (masses["mass"] >= 0).all()
    ref = pd.read_csv(card / "reference.csv", index_col="agent")
    pool = masses[masses["population"] == "pool"]
    assert set(pool["agent"]) <= set(ref.index) and "subject" not in set(pool["agent"])
    assert "subject" in set(masses.loc[masses["population"] == "pool+subject", "agent"])
    # random is at the bottom of the pool: it keeps (next to) no mass
    assert pool.set_index("agent")["mass"].get("random", 0.0) < 0.01
    cycles = pd.read_csv(card / "cycles.csv")
    assert list(cycles.columns) == ["game", "cycle", "length", "subject"]
    assert (card / "plots" / "alpharank.png").stat().st_size > 5000
    md = (card / "scorecard.md").read_text()
    assert "## α-Rank and cycles" in md and "Cycles in qdv:" in md
    for c in cycles["cycle"]:
        assert f"`{c}`" in md
    pairs = list((small_run / "ref").glob("qdv-*.pairs.csv"))
    assert len(pairs) == 1
    h2h = pd.read_csv(pairs[0])
    assert ((h2h["low"] <= h2h["ahead"]) & (h2h["ahead"] <= h2h["high"])).all()


def test_the_leaderboard_keeps_the_old_row_and_adds_the_new_columns(small_run):
    board = evaluate.read_leaderboard(small_run / "lb.csv").set_index("agent")
    assert list(board.index) == ["counting", "counting"]
    new = board[board["hash"] != "0123456789ab"].iloc[0]
    old = board[board["hash"] == "0123456789ab"].iloc[0]
    for stat in [*NEW, "alpharank"]:
        assert np.isfinite(float(new[f"qdv_{stat}"])), stat
        assert pd.isna(old[f"qdv_{stat}"]), stat                  # written before: empty
    assert 0 <= new["qdv_alpharank"] <= 1
    assert old["qdv_rating"] == 512.3
    raw = pd.read_csv(small_run / "lb.csv", dtype={"hash": str})
    assert raw.columns.tolist()[6:14] == [f"qdv_{s}" for s in evaluate.LEADERBOARD_STATS]
    md = (small_run / "lb.md").read_text()
    assert "512 ± 20 |" in md                                       # the old row, as before
    assert f"{new['qdv_rating']:.0f} ± {new['qdv_se']:.0f} [" in md and " · PL " in md
    assert " · α " in md and md.count("| qdv |") == 1


def test_an_old_leaderboard_reads_with_empty_new_columns_and_prints(tmp_path, capsys):
    lb = tmp_path / "leaderboard.csv"
    lb.write_text(OLD_BOARD)
    table = evaluate.read_leaderboard(lb)
    assert len(table) == 1 and table["qdv_rating"].iloc[0] == 512.3
    assert table[[f"qdv_{s}" for s in [*NEW, "alpharank"]]].isna().all().all()
    assert evaluate.leaderboard_games(table.columns) == ["qdv"]
    assert main(["leaderboard", "--path", str(lb)]) == 0
    assert "| `counting` | 0123456789ab | 2026-01-01 | quick | full | 512 ± 20 |" in \
        capsys.readouterr().out
    assert lb.read_text() == OLD_BOARD                                # reading changes nothing


def test_a_plackett_luce_column_is_not_read_as_a_game():
    cols = ["agent", "qdv_rating", "qdv_se", "qdv_pl_rating", "veru_rating", "veru_se"]
    assert evaluate.leaderboard_games(cols) == ["qdv", "veru"]
    assert evaluate.leaderboard_stat_columns(cols) == ["qdv_rating", "qdv_se", "qdv_pl_rating",
                                                       "veru_rating", "veru_se"]


def test_a_non_finite_new_column_is_a_one_line_error(tmp_path):
    lb = tmp_path / "lb.csv"
    lb.write_text("agent,hash,date,budget,qdv_rating,qdv_se,qdv_pl_rating\n"
                  "x,abc,2026-01-01,quick,5,3,inf\n")
    with pytest.raises(evaluate.EvaluateError, match="qdv_pl_rating"):
        evaluate.read_leaderboard(lb)


def test_an_older_format_reference_cache_is_replayed(tmp_path, monkeypatch):
    """A cache file with the current name but without the Plackett–Luce columns or the pairs
    file beside it (an older format) is set aside and the pool played again."""
    from bluffsim.tournament.config import Experiment

    tiny = [Experiment(**{**e.__dict__, "games": 240, "shard_games": 240})
            for e in evaluate.reference_pool("qdv")[1:2]]
    monkeypatch.setattr(evaluate, "reference_pool", lambda game: tiny)
    agents = sorted(evaluate.reference_agents("qdv"))
    cache = tmp_path / "ref"
    cache.mkdir()
    path = cache / f"qdv-{evaluate.reference_hash('qdv')}.csv"
    path.write_text("agent,rating,se,game\n" + "".join(f"{a},{i}.0,1.0,qdv\n"
                                                      for i, a in enumerate(agents)))
    said: list[str] = []
    table = evaluate.reference_ratings("qdv", cache, log=said.append)
    assert "older cache format" in said[0] and np.isfinite(table["pl_rating"]).all()
    assert evaluate.read_reference_cache(path, set(agents))[0] is not None
    assert len(evaluate.reference_head_to_head("qdv", cache)) > 0
