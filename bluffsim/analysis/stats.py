"""Tournament statistics from ``games.parquet`` / ``rounds.parquet`` DataFrames.

- ``summary``: per agent, games, outright and shared wins, win rate (outright
  wins / games) with a 95% Wilson interval, win share, mean placement and mean
  final score (definitions in ``bluffsim.analysis.seats``).
- ``head_to_head``: share of shared games in which the row agent placed strictly
  better than the column agent (ties count one half).
- ``bradley_terry``: ratings from every pair of seats of every game (the better
  placement wins the pair, ties are split), fitted by the MM algorithm, with
  standard errors from the observed information; on an Elo-like scale
  (400 log10), centred on 0.
- ``bluff_metrics`` (games whose rounds record bids and calls, e.g. qdv): how
  often a final bid exceeded the bidder's own evidence, and how often calls
  were right.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

Z95 = 1.959963984540054


def wilson_interval(wins: np.ndarray, n: np.ndarray, z: float = Z95) -> tuple[np.ndarray,
                                                                            np.ndarray]:
    """Wilson score interval of a binomial proportion (vectorised), clipped to [0, 1].

    The bounds always bracket the observed rate: at 0 or n wins rounding would
    otherwise put them a hair outside [0, 1] or on the wrong side of the rate
    (e.g. -3.5e-18), which error bars reject.
    """
    wins = np.asarray(wins, dtype=float)
    n = np.asarray(n, dtype=float)
    p = np.divide(wins, n, out=np.zeros_like(wins), where=n > 0)
    denom = 1 + z * z / np.maximum(n, 1)
    centre = (p + z * z / (2 * np.maximum(n, 1))) / denom
    half = z * np.sqrt(p * (1 - p) / np.maximum(n, 1) + z * z / (4 * np.maximum(n, 1) ** 2)) / denom
    lo = np.clip(np.minimum(centre - half, p), 0.0, 1.0)
    hi = np.clip(np.maximum(centre + half, p), 0.0, 1.0)
    return lo, hi


def summary(games: pd.DataFrame) -> pd.DataFrame:
    """Per agent: games, wins (= outright_wins: first place alone), outright_wins,
    shared_wins (first place shared), win_rate (outright wins / games) with its 95% Wilson
    interval ci_low, ci_high, win_share (a shared first place split 1/k), mean_placement,
    mean_score; best first (the agent order of every plot)."""
    from bluffsim.analysis.seats import win_counts

    out = win_counts(games, "agent")
    g = games.groupby("agent", sort=True)
    out["mean_placement"] = g["placement"].mean()
    out["mean_score"] = g["score"].mean()
    return out.reset_index().sort_values(["win_rate", "agent"], ascending=[False, True]
                                         ).set_index("agent")


def pair_totals(games: pd.DataFrame) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Pairwise results of every two seats with different agents in the same game.

    Returns (agents, W, N): ``W[a, b]`` sums a's score against b (1 placed better,
    0.5 tie, 0 worse) and ``N[a, b]`` counts their meetings.  Computed with
    numpy on a [games, seats] layout, so millions of games take well under a second.
    """
    agents = sorted(games["agent"].unique().tolist())
    k = len(agents)
    w, n = np.zeros((k, k)), np.zeros((k, k))
    g = games.sort_values(["game", "seat"] if "seat" in games else ["game"], kind="stable")
    code = pd.Categorical(g["agent"], categories=agents).codes.astype(np.int64)
    sizes = g.groupby("game", sort=False).size().to_numpy()
    start = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    for size in np.unique(sizes):
        rows = (start[sizes == size][:, None] + np.arange(size)).ravel()
        c = code[rows].reshape(-1, size)
        place = g["placement"].to_numpy()[rows].reshape(-1, size)
        for i in range(size):
            for j in range(size):
                keep = c[:, i] != c[:, j]
                score = np.where(place[:, i] < place[:, j], 1.0,
                                 np.where(place[:, i] == place[:, j], 0.5, 0.0))
                key = c[keep, i] * k + c[keep, j]
                w += np.bincount(key, weights=score[keep], minlength=k * k).reshape(k, k)
                n += np.bincount(key, minlength=k * k).reshape(k, k)
    return agents, w, n


def head_to_head(games: pd.DataFrame) -> pd.DataFrame:
    """Matrix: share of shared games in which the row agent beat the column agent."""
    agents, w, n = pair_totals(games)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(n > 0, w / n, np.nan)
    return pd.DataFrame(share, index=pd.Index(agents, name="agent"),
                        columns=pd.Index(agents, name="opponent"))


def bradley_terry(games: pd.DataFrame, iters: int = 500, tol: float = 1e-10) -> pd.DataFrame:
    """Bradley–Terry ratings (400·log10 scale, mean 0) with standard errors, per agent."""
    agents, w, n = pair_totals(games)
    k = len(agents)
    if k < 2:
        return pd.DataFrame({"rating": [0.0] * k, "se": [np.nan] * k},
                            index=pd.Index(agents, name="agent"))
    w, n = w / 2.0, n / 2.0  # each unordered pair was counted as (a, b) and (b, a)
    wins = w.sum(axis=1)
    pi = np.ones(k)
    for _ in range(iters):
        denom = (n / (pi[:, None] + pi[None, :])).sum(axis=1)
        new = np.where(denom > 0, np.maximum(wins, 1e-9) / denom, pi)
        new /= np.exp(np.log(new).mean())
        converged = np.max(np.abs(new - pi)) < tol
        pi = new
        if converged:
            break
    theta = np.log(pi)
    # observed information of theta (natural log scale); the mean is fixed, hence pinv
    p = pi[:, None] / (pi[:, None] + pi[None, :])
    info = n * p * (1 - p)
    h = np.diag(info.sum(axis=1)) - info
    se = np.sqrt(np.clip(np.diag(np.linalg.pinv(h)), 0, None))
    scale = 400 / np.log(10)
    out = pd.DataFrame({"rating": (theta - theta.mean()) * scale, "se": se * scale},
                       index=pd.Index(agents, name="agent"))
    return out.sort_values("rating", ascending=False)


def placement_distribution(games: pd.DataFrame) -> pd.DataFrame:
    """Share of each placement per agent (rows agents, columns placements)."""
    t = pd.crosstab(games["agent"], games["placement"], normalize="index")
    t.columns.name = "placement"
    return t


def convergence(games: pd.DataFrame, points: int = 60) -> pd.DataFrame:
    """Running outright win rate per agent against games played, with its 95% Wilson interval
    (long format: games, agent, win_rate, ci_low, ci_high)."""
    from bluffsim.analysis.seats import win_kinds

    rows = []
    for agent, g in win_kinds(games).sort_values("game", kind="stable").groupby("agent"):
        won = g["outright"].to_numpy(dtype=float)
        n = np.arange(1, won.size + 1)
        wins = np.cumsum(won)
        take = np.unique(np.geomspace(1, won.size, num=min(points, won.size)).astype(int)) - 1
        lo, hi = wilson_interval(wins[take], n[take])
        rows.append(pd.DataFrame({"games": n[take], "agent": agent, "win_rate": wins[take] / n[take],
                                  "ci_low": lo, "ci_high": hi}))
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(
        columns=["games", "agent", "win_rate", "ci_low", "ci_high"])


def bluff_metrics(rounds: pd.DataFrame) -> pd.DataFrame:
    """Per agent: final bids made, share above own evidence; calls made, share right (with CIs)."""
    if rounds.empty or "bidder_own" not in rounds:
        return pd.DataFrame()
    bids = rounds[rounds["bidder"] >= 0]
    b = bids.assign(over=bids["bid_count"] > bids["bidder_own"]).groupby("bidder_agent")
    c = rounds.groupby("caller_agent")
    out = pd.DataFrame({
        "final_bids": b.size(),
        "bid_above_own_evidence": b["over"].mean(),
        "calls": c.size(),
        "calls_right": c["call_right"].mean(),
    })
    calls = out["calls"].fillna(0).to_numpy()
    right = (out["calls_right"].fillna(0) * calls).to_numpy()
    out["calls_right_ci_low"], out["calls_right_ci_high"] = wilson_interval(right, calls)
    out.index.name = "agent"
    return out
