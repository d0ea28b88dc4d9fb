"""Seat effects and game shape in every results dir (issue 13 #11): outright vs shared wins,
seats.csv, lengths.csv, bluff.csv for every game, head-to-head CIs, plot titles and order."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from bluffsim.analysis import plots, seats, stats
from bluffsim.tournament import parse_config, run_experiment

LINEUPS = {
    "qdv": ["random", "heuristic", "counting"],
    "veru": ["random", "heuristic", "counting"],
    "legumes": ["random", "heuristic", "counting"],
}


def run_game(tmp_path, game, games=120, plots_too=True):
    raw = {"experiment": {"name": f"t-{game}", "game": game, "players": 3, "games": games,
                          "seed": 3},
           "seats": [{"agent": a} for a in LINEUPS[game]],
           "run": {"batch": 32, "shard_games": 60, "plots": plots_too,
                   "out": str(tmp_path / game)}}
    run_experiment(parse_config(raw), progress=False)
    return tmp_path / game


@pytest.mark.parametrize("game", ["qdv", "veru", "legumes"])
def test_every_results_dir_has_seats_lengths_bluff_and_h2h_cis(tmp_path, game):
    out = run_game(tmp_path, game)
    games = pd.read_parquet(out / "games.parquet")
    summ = pd.read_csv(out / "summary.csv", index_col="agent")
    assert {"outright_wins", "shared_wins", "win_share"} <= set(summ.columns)
    assert (summ["wins"] == summ["outright_wins"]).all()
    # outright win rates of one game's seats sum to at most 1, win shares to exactly 1
    assert summ["win_rate"].sum() <= 1 + 1e-12
    assert math.isclose(summ["win_share"].sum(), 1.0)
    # a first place is outright or shared, never both: the counts add up to placement 1
    firsts = games[games["placement"] == 1].groupby("agent").size()
    assert (summ["outright_wins"] + summ["shared_wins"]).equals(firsts.reindex(summ.index).fillna(0)
                                                                .astype(summ["wins"].dtype))
    seat = pd.read_csv(out / "seats.csv", index_col="seat")
    assert seat.index.tolist() == [0, 1, 2] and (seat["games"] == 120).all()
    assert ((seat["ci_low"] <= seat["win_rate"]) & (seat["win_rate"] <= seat["ci_high"])).all()
    assert seat["chance"].iloc[0] == pytest.approx(1 / 3)
    lengths = pd.read_csv(out / "lengths.csv", index_col="per_game")
    per_game = games.drop_duplicates("game")
    assert lengths.loc["decisions", "mean"] == pytest.approx(per_game["decisions"].mean())
    assert lengths.loc["rounds", "max"] == per_game["rounds"].max()
    assert lengths.loc["rounds", "truncated"] == per_game["truncated"].sum()
    bluff = pd.read_csv(out / "bluff.csv", index_col="agent")
    assert set(bluff.index) == set(LINEUPS[game]) and (bluff["calls"] > 0).all()
    assert bluff["claims_checked"].sum() > 0
    assert ((bluff["calls_right_ci_low"] <= bluff["calls_right"])
            & (bluff["calls_right"] <= bluff["calls_right_ci_high"])).all()
    h2h = pd.read_csv(out / "head_to_head_ci.csv")
    assert len(h2h) == 6 and ((h2h["ci_low"] <= h2h["share"]) & (h2h["share"] <= h2h["ci_high"])).all()
    matrix = pd.read_csv(out / "head_to_head.csv", index_col="agent")
    for r in h2h.itertuples():
        assert matrix.loc[r.agent, r.opponent] == pytest.approx(r.share)
    for name in ("win_rates", "head_to_head", "placements", "convergence", "seats", "call_accuracy",
                 "alpharank"):
        assert (out / "plots" / f"{name}.png").stat().st_size > 5000
    mass = pd.read_csv(out / "alpharank.csv", index_col="agent")["mass"]
    assert set(mass.index) == set(LINEUPS[game]) and mass.sum() == pytest.approx(1.0)
    assert mass.is_monotonic_decreasing and (mass >= 0).all()


def test_shared_first_places_are_counted_apart_on_a_toy_table():
    rows = [(0, 0, "a", 1), (0, 1, "b", 2), (1, 0, "b", 1), (1, 1, "a", 1), (2, 0, "a", 2),
            (2, 1, "b", 1)]
    g = pd.DataFrame(rows, columns=["game", "seat", "agent", "placement"]).assign(score=0)
    s = stats.summary(g)
    assert s.loc["a", "outright_wins"] == 1 and s.loc["a", "shared_wins"] == 1
    assert s.loc["b", "outright_wins"] == 1 and s.loc["b", "shared_wins"] == 1
    assert s.loc["a", "win_rate"] == pytest.approx(1 / 3) and s.loc["a", "win_share"] == 0.5
    seat = seats.seat_table(g)
    assert seat.loc[0, "wins"] == 1 and seat.loc[0, "shared_wins"] == 1
    assert seat.loc[1, "wins"] == 1 and seat.loc[1, "shared_wins"] == 1


def test_plots_carry_the_run_in_the_title_one_agent_order_and_the_chance_line(tmp_path):
    out = run_game(tmp_path, "qdv", games=60, plots_too=False)
    games = pd.read_parquet(out / "games.parquet")
    rounds = pd.read_parquet(out / "rounds.parquet")
    from bluffsim.tournament.experiment import report_tables, run_title

    tables = report_tables(games, rounds, "qdv")
    title = run_title(out, tables)
    assert title == "t-qdv · qdv, 3 players, 60 games"
    order = seats.agent_order(tables["summary"])
    assert order == tables["summary"].index.tolist()
    fig = plots.win_rates(tables["summary"], title, order, chance=1 / 3)
    ax = fig.axes[0]
    assert title in ax.get_title()
    assert [t.get_text() for t in ax.get_yticklabels()] == order[::-1]      # best on top
    assert any(np.allclose(line.get_xdata(), 1 / 3) for line in ax.get_lines())
    conv = plots.convergence_lines(tables["convergence"], title, order, 1 / 3)
    assert [t.get_text() for t in conv.axes[0].get_legend().get_texts()][:3] == order
    assert len(conv.axes[0].collections) == 3                              # one CI band per agent
    for fig in (plots.placement_bars(tables["placements"], title, order),
                plots.seat_advantage(tables["seats"], title),
                plots.head_to_head_heatmap(tables["head_to_head"], title, order,
                                           tables["head_to_head_ci"]),
                plots.call_accuracy(tables["bluff"], title, order)):
        assert title in fig.axes[0].get_title()


def test_tables_from_chunks_equal_tables_from_one_frame(tmp_path):
    """The report reads results in chunks of whole games: every table is a sum over games."""
    from bluffsim.tournament.experiment import report_tables

    out = run_game(tmp_path, "legumes", games=120, plots_too=False)
    games = pd.read_parquet(out / "games.parquet")
    rounds = pd.read_parquet(out / "rounds.parquet")
    whole = report_tables(games, rounds, "legumes")
    cuts = [0, 7, 50, 51, 120]
    chunks = [games[(games["game"] >= a) & (games["game"] < b)]
              for a, b in zip(cuts[:-1], cuts[1:], strict=True)]
    rchunks = [rounds.iloc[:100], rounds.iloc[100:]]
    parts = report_tables(iter(chunks), iter(rchunks), "legumes")
    for name in ("summary", "seats", "lengths", "bluff", "head_to_head_ci", "placements"):
        pd.testing.assert_frame_equal(whole[name], parts[name], check_dtype=False)
    per_game = games.drop_duplicates("game")
    for q in (10, 25, 50, 75, 90, 99):
        assert whole["lengths"].loc["decisions", f"q{q:02d}"] == pytest.approx(
            np.quantile(per_game["decisions"], q / 100))
    assert whole["lengths"].loc["rounds", "std"] == pytest.approx(per_game["rounds"].std())


# ------------------------------------------------------------------ win share beside the win rate
def toy_summary(rates, shares):
    """A ``stats.summary``-shaped table: outright rates with CIs and win shares."""
    n = len(rates)
    rates, shares = np.asarray(rates, float), np.asarray(shares, float)
    low, high = stats.wilson_interval(np.round(rates * 50).astype(int), np.full(n, 50))
    return pd.DataFrame({"games": 50, "win_rate": rates, "ci_low": low, "ci_high": high,
                         "win_share": shares}, index=pd.Index([f"a{i}" for i in range(n)],
                                                                name="agent"))


def legend_texts(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


def test_the_console_table_shows_the_win_share_beside_the_outright_rate(tmp_path, capsys):
    """veru shares first places: the printed table has a win share column (summary.csv's
    win_share) and says what it is and how many first places were shared."""
    from bluffsim.cli import main

    conf = tmp_path / "v.toml"
    conf.write_text('[experiment]\nname = "v"\ngame = "veru"\nplayers = 3\ngames = 90\nseed = 3\n'
                    '[[seats]]\nagent = "heuristic"\n[[seats]]\nagent = "heuristic"\n'
                    '[[seats]]\nagent = "counting"\n[run]\nbatch = 30\nplots = false\n')
    assert main(["run", str(conf), "--out", str(tmp_path / "o"), "--quiet"]) == 0
    printed = capsys.readouterr().out.splitlines()
    header = printed[0]
    assert "win rate" in header and "win share" in header
    assert header.index("win rate") < header.index("win share")
    summ = pd.read_csv(tmp_path / "o" / "summary.csv", index_col="agent")
    assert summ["shared_wins"].sum() > 0                     # this seed has shared first places
    col = header.index("win share") + len("win share")
    for line in printed[2:2 + len(summ)]:
        agent = line.split()[0]
        assert line[:col].endswith(f"{summ.loc[agent, 'win_share']:.3f}"), line
    note = next(line for line in printed if line.startswith("win rate: first place alone"))
    assert "win share: first place with a tie for first split 1/k" in note
    assert note.endswith(f"; {summ['shared_wins'].sum()} first places shared")


def test_win_rate_figures_mark_the_win_share_in_the_legend():
    """win_rates.png and seats.png: one black diamond per bar at its win share, in the legend."""
    summ = toy_summary([0.5, 0.3, 0.1], [0.55, 0.33, 0.12])
    ax = plots.win_rates(summ, "t", ["a0", "a1", "a2"], chance=1 / 3).axes[0]
    assert plots.WIN_SHARE_LABEL in legend_texts(ax)
    assert "outright win rate (first place alone)" in legend_texts(ax)
    marks = [ln for ln in ax.get_lines() if ln.get_label() == plots.WIN_SHARE_LABEL]
    assert len(marks) == 1 and np.allclose(marks[0].get_xdata(), [0.12, 0.33, 0.55])  # best on top
    seat = summ.reset_index(drop=True).rename_axis("seat").assign(chance=1 / 3)
    ax = plots.seat_advantage(seat, "t").axes[0]
    assert plots.WIN_SHARE_LABEL in legend_texts(ax)
    marks = [ln for ln in ax.get_lines() if ln.get_label() == plots.WIN_SHARE_LABEL]
    assert len(marks) == 1 and np.allclose(marks[0].get_ydata(), [0.55, 0.33, 0.12])


def test_sweep_seat_plots_draw_the_win_share_of_every_seat():
    rows = [{"point": p, "rules.jokers": j, "seat": s, "win_rate": r, "ci_low": r - 0.05,
             "ci_high": r + 0.05, "win_share": r + 0.02, "chance": 1 / 3}
            for p, j in enumerate([0, 2]) for s, r in enumerate([0.4, 0.3, 0.25])]
    table = pd.DataFrame(rows)
    table.attrs["keys"] = ["rules.jokers"]
    ax = plots.sweep_lines(table, "rules.jokers", "win_rate", "t", by="seat").axes[0]
    assert plots.WIN_SHARE_LABEL in legend_texts(ax)
    ys = sorted(tuple(np.round(ln.get_ydata(), 6)) for ln in ax.get_lines() if ln.get_marker() == "x"
                and len(ln.get_xdata()))
    assert ys == [(0.27, 0.27), (0.32, 0.32), (0.42, 0.42)]        # one win-share line per seat


@pytest.mark.parametrize("rate", [0.0, 1.0])
def test_win_rate_plots_survive_0_and_100_percent(rate, tmp_path):
    """Every agent (seat) at 0% or at 100%: the figures draw, the bars and marks are in view."""
    summ = toy_summary([rate, rate], [rate, rate])
    fig = plots.win_rates(summ, "t", chance=0.5)
    fig.savefig(tmp_path / "w.png")
    assert fig.axes[0].get_xlim()[1] >= max(rate, 0.5)
    seat = summ.reset_index(drop=True).rename_axis("seat").assign(chance=0.5)
    fig = plots.seat_advantage(seat, "t")
    fig.savefig(tmp_path / "s.png")
    assert fig.axes[0].get_ylim()[1] >= max(rate, 0.5)
    table = seat.reset_index().assign(point=0, **{"rules.jokers": 0})
    table.attrs["keys"] = ["rules.jokers"]
    plots.sweep_lines(table, "rules.jokers", "win_rate", "t", by="seat").savefig(tmp_path / "l.png")
