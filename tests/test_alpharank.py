"""α-Rank (``bluffsim.analysis.alpharank``) on meta-games whose answer is known, the cycles of
the "beats" graph, and the one-strength fits on a fixed scale (``FinishOrders.rate_against``)
that ``bluffsim evaluate`` rates its subject with."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bluffsim.analysis import alpharank as A
from bluffsim.analysis import plots
from bluffsim.analysis.ratings import FinishOrders
from bluffsim.analysis.stats import BT_SCALE
from tests.test_ratings import NAMES, THETA, plackett_luce_games

RPS = np.array([[0.5, 0.0, 1.0],
                [1.0, 0.5, 0.0],
                [0.0, 1.0, 0.5]])


def h2h_of(payoff: np.ndarray, names: list[str], width: float = 0.02) -> pd.DataFrame:
    """Head-to-head rows (agent, opponent, ahead, low, high) of a payoff matrix, intervals
    ``± width``."""
    rows = [(names[i], names[j], payoff[i, j], payoff[i, j] - width, payoff[i, j] + width)
            for i in range(len(names)) for j in range(len(names)) if i != j]
    return pd.DataFrame(rows, columns=["agent", "opponent", "ahead", "low", "high"])


@pytest.mark.parametrize("alpha", [0.5, 5.0, A.ALPHA])
def test_rock_paper_scissors_is_uniform(alpha):
    assert np.allclose(A.stationary(RPS, alpha=alpha), 1 / 3, atol=1e-9)


def test_a_strategy_that_beats_every_other_takes_all_the_mass():
    dom = np.array([[0.5, 0.7, 0.9, 0.6],
                    [0.3, 0.5, 0.6, 0.4],
                    [0.1, 0.4, 0.5, 0.45],
                    [0.4, 0.6, 0.55, 0.5]])
    pi = A.stationary(dom)
    assert pi[0] > 0.999 and pi.sum() == pytest.approx(1.0)
    # with weak selection (α·m small) the mass spreads out, still most on the dominant strategy
    weak = A.stationary(dom, alpha=0.05)
    assert weak.argmax() == 0 and weak.min() > 0.05
    ranked = A.ranking(A.meta_game(h2h_of(dom, list("wxyz")), list("wxyz")))
    assert ranked.index[0] == "w" and ranked.iloc[0] > 0.999


@pytest.mark.parametrize("alpha,m", [(0.05, 50), (0.5, 50), (3.0, 20)])
def test_the_chain_is_openspiels_alpharank_with_population_wide_fitness(monkeypatch, alpha, m):
    """OpenSpiel's ``egt.alpharank.compute`` (single population, use_local_selection_model=False)
    gives the same stationary distribution, for a constant-sum meta-game (as head-to-head rates
    are) and a general one; its visualiser's networkx import is stubbed, nothing of it is used."""
    import sys
    import types

    pytest.importorskip("pyspiel")
    monkeypatch.setitem(sys.modules, "networkx", sys.modules.get("networkx") or
                        types.ModuleType("networkx"))
    osa = pytest.importorskip("open_spiel.python.egt.alpharank")
    rs = np.random.default_rng(7)
    upper = np.triu(rs.uniform(0, 1, (5, 5)), 1)
    constant_sum = upper + np.tril(1 - upper.T, -1) + 0.5 * np.eye(5)
    for payoff in (constant_sum, rs.uniform(0, 1, (4, 4))):
        theirs = osa.compute([payoff], m=m, alpha=alpha, use_local_selection_model=False)[2]
        assert np.allclose(A.stationary(payoff, alpha=alpha, m=m), theirs, atol=1e-8)


def test_equal_strategies_share_the_mass_and_fixation_is_neutral():
    flat = np.full((4, 4), 0.5)
    assert np.allclose(A.stationary(flat), 0.25)
    rho = A.fixation(flat, m=A.POPULATION)
    off = rho[~np.eye(4, dtype=bool)]
    assert np.allclose(off, 1 / A.POPULATION)          # a neutral mutant fixates with 1/m
    # a better mutant fixates more often than a neutral one, a worse one less
    rho = A.fixation(np.array([[0.5, 0.4], [0.6, 0.5]]), alpha=10.0)
    assert rho[0, 1] > 1 / A.POPULATION > rho[1, 0]


def test_a_three_cycle_is_named_and_a_transitive_order_has_none():
    cyc = np.array([[0.5, 0.8, 0.2, 0.9],
                    [0.2, 0.5, 0.8, 0.9],
                    [0.8, 0.2, 0.5, 0.9],
                    [0.1, 0.1, 0.1, 0.5]])
    names = ["rock", "paper", "scissors", "dud"]
    edges = A.beats(h2h_of(cyc, names))
    assert ("rock", "paper") in edges and ("dud", "rock") not in edges
    found = A.cycles(edges)
    assert found == [["paper", "scissors", "rock"]]
    assert A.cycle_text(found[0]) == "paper > scissors > rock > paper"
    # the cycle shares the mass, the dud (beaten by all) has none
    mass = A.ranking(A.meta_game(h2h_of(cyc, names), names))
    assert mass["dud"] < 1e-6 and np.allclose(mass[["rock", "paper", "scissors"]], 1 / 3, atol=1e-6)
    order = np.array([[0.5, 0.7, 0.8], [0.3, 0.5, 0.7], [0.2, 0.3, 0.5]])
    assert A.cycles(A.beats(h2h_of(order, list("abc")))) == []


def test_an_interval_touching_one_half_is_no_edge():
    h2h = h2h_of(np.array([[0.5, 0.8, 0.2], [0.2, 0.5, 0.8], [0.8, 0.2, 0.5]]), list("abc"))
    h2h.loc[(h2h["agent"] == "c") & (h2h["opponent"] == "a"), "low"] = 0.49
    assert A.cycles(A.beats(h2h)) == []


def test_pairs_that_never_met_take_the_bradley_terry_prediction():
    h2h = pd.DataFrame({"agent": ["a", "b"], "opponent": ["b", "a"], "ahead": [0.6, 0.4]})
    ratings = pd.Series({"a": 0.0, "b": -100.0, "c": 200.0})
    game = A.meta_game(h2h, ["a", "b", "c"], ratings)
    assert game.loc["a", "b"] == 0.6 and game.loc["c", "c"] == 0.5
    assert game.loc["c", "a"] == pytest.approx(1 / (1 + 10 ** (-200 / 400)))
    assert game.loc["a", "c"] + game.loc["c", "a"] == pytest.approx(1.0)


def test_the_alpharank_plot_has_a_bar_per_agent_and_population():
    import matplotlib

    matplotlib.use("Agg")
    masses = pd.DataFrame({"game": "qdv", "population": ["pool"] * 2 + ["pool+subject"] * 3,
                           "agent": ["random", "counting", "random", "counting", "subject"],
                           "mass": [0.1, 0.9, 0.05, 0.45, 0.5]})
    fig = plots.alpharank(masses, "t", highlight="subject")
    ax = fig.axes[0]
    assert len(ax.patches) == 6 and "α-Rank" in ax.get_xlabel()
    assert [t.get_text() for t in ax.get_yticklabels()][-1] == "subject"   # largest on top


def test_one_strength_fitted_against_the_others_held_at_their_truth():
    games = plackett_luce_games(6000, 4, seed=11)
    orders = FinishOrders(reps=60).add(games)
    truth = pd.Series((THETA - THETA.mean()) * BT_SCALE, index=NAMES)
    pl = orders.ratings()["pl_rating"]
    got = orders.rate_against("a", pl.drop("a"), pl.drop("a"))
    assert got["pl_rating"] == pytest.approx(pl["a"], abs=0.5)   # the joint fit's value
    assert got["pl_low"] < truth["a"] < got["pl_high"]
    assert got["bt_low"] < got["rating"] < got["bt_high"] and got["se"] > 0
    # the same, with the other strengths held at their true values
    held = orders.rate_against("a", truth.drop("a"), truth.drop("a"))
    assert abs(held["pl_rating"] - truth["a"]) < 25


def test_a_subject_that_always_finishes_last_still_gets_finite_low_ratings():
    games = plackett_luce_games(400, 3, seed=5)
    games = games[games["agent"] != "a"].copy()
    n = games["game"].nunique()
    last = pd.DataFrame({"game": games["game"].unique(), "seed": games.groupby("game")["seed"].first()
                         .to_numpy(), "seat": 9, "agent": "loser", "placement": 99, "score": 0})
    orders = FinishOrders(reps=40).add(pd.concat([games, last], ignore_index=True))
    ref = pd.Series({"b": 100.0, "c": 0.0, "d": -80.0})
    got = orders.rate_against("loser", ref, ref)
    assert n > 100 and all(np.isfinite(v) for v in got.values())
    assert got["pl_rating"] < -300 and got["rating"] < -300


def test_the_head_to_head_rates_are_the_pair_scores_with_intervals_over_deals():
    games = plackett_luce_games(3000, 3, seed=3, deals=3)
    h2h = FinishOrders(reps=80).add(games).head_to_head().set_index(["agent", "opponent"])
    assert len(h2h) == 12
    ab, ba = h2h.loc[("a", "b")], h2h.loc[("b", "a")]
    assert ab["ahead"] + ba["ahead"] == pytest.approx(1.0)
    assert ab["low"] < ab["ahead"] < ab["high"] and ab["ahead"] > 0.55
    want = 1 / (1 + np.exp(THETA[1] - THETA[0]))          # PL's pairwise probability
    assert ab["low"] - 0.02 < want < ab["high"] + 0.02
