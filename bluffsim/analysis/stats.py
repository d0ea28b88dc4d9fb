"""Tournament statistics from ``games.parquet`` / ``rounds.parquet`` DataFrames.

- ``summary``: per agent, games, outright and shared wins, win rate (outright
  wins / games) with a 95% Wilson interval, win share, mean placement, mean final
  score, mean decisions per game and share of truncated games (definitions in
  ``bluffsim.analysis.seats``).
- ``head_to_head``: share of shared games in which the row agent placed strictly
  better than the column agent (ties count one half).
- ``bradley_terry``: ratings from every pair of seats of every game (the better
  placement wins the pair, ties are split), fitted by the MM algorithm, with
  standard errors from the observed information; on an Elo-like scale
  (400 log10), centred on 0.
Per-round statistics (checks right, claims false, each game's own round metrics) are
``analysis.seats.bluff_table``, read from the game's spec.

Every statistic is a sum over games, so ``GameTotals`` accumulates them chunk by chunk: a
results dir of any size is summarised in memory bounded by the chunk
(``bluffsim.analysis.report.build_report``).
The functions taking a DataFrame are the one-chunk case.
"""

from __future__ import annotations

from collections.abc import Iterable

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


BOOTSTRAP_REPS = 2000   # resamples of the deal-cluster bootstrap
BOOTSTRAP_SEED = 2027   # its fixed seed: the same games give the same interval


def cluster_bootstrap_interval(values: np.ndarray, groups: np.ndarray, reps: int = BOOTSTRAP_REPS,
                               seed: int = BOOTSTRAP_SEED, level: float = 0.95
                               ) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``values``, resampling whole ``groups``
    (e.g. the games replaying one deal) with replacement, so that correlated games count once."""
    values = np.asarray(values, dtype=float)
    _, group = np.unique(np.asarray(groups), return_inverse=True)
    sums = np.bincount(group, weights=values)
    counts = np.bincount(group).astype(float)
    g = sums.size
    rng = np.random.default_rng(seed)
    means = np.empty(reps)
    chunk = max(1, 4_000_000 // max(g, 1))
    for start in range(0, reps, chunk):
        k = min(chunk, reps - start)
        draws = rng.multinomial(g, np.full(g, 1.0 / g), size=k).astype(float)
        means[start:start + k] = (draws @ sums) / (draws @ counts)
    tail = (1 - level) / 2
    lo, hi = np.quantile(means, [tail, 1 - tail])
    return float(lo), float(hi)


def deal_interval(won: np.ndarray, deals: np.ndarray) -> tuple[float, float]:
    """95% interval of a win rate over games that replay deals: the envelope of the Wilson
    interval (exact for independent games, and not degenerate at 0% or 100%) and the deal-cluster
    bootstrap (which accounts for the games of one deal being correlated)."""
    won = np.asarray(won, dtype=float)
    wlo, whi = wilson_interval(np.array([won.sum()]), np.array([won.size]))
    blo, bhi = cluster_bootstrap_interval(won, deals) if won.size else (0.0, 1.0)
    return min(float(wlo[0]), blo), max(float(whi[0]), bhi)


def win_kinds(games: pd.DataFrame) -> pd.DataFrame:
    """``games`` (whole games) with ``outright`` (sole first place), ``shared`` (first place
    shared) and ``win_share`` (1/k for k first places) columns added."""
    first = games["placement"].to_numpy() == 1
    n_first = pd.Series(first, index=games.index).groupby(games["game"].to_numpy()).transform(
        "sum").to_numpy()
    return games.assign(outright=first & (n_first == 1), shared=first & (n_first > 1),
                        win_share=np.where(first, 1.0 / np.maximum(n_first, 1), 0.0))


class GameTotals:
    """Per-agent sums over ``games`` chunks (each chunk holds whole games, in game order).

    ``add`` a chunk at a time, then read ``summary()``, ``head_to_head()``,
    ``bradley_terry()``, ``placement_distribution()`` and ``convergence()``.
    Columns used: game, agent, placement, score (and seat, decisions, truncated when
    present).  A win is an outright win (first place alone); shared first places are
    counted apart (``bluffsim.analysis.seats``).
    """

    def __init__(self, points_per_decade: int = 12):
        self.sums = pd.DataFrame(columns=["games", "wins", "shared_wins", "share_sum",
                                          "placement_sum", "score_sum"], dtype=float)
        self.placements = pd.DataFrame(dtype=float)
        self.w = pd.DataFrame(dtype=float)   # w[a, b]: a's pair score against b
        self.n = pd.DataFrame(dtype=float)   # n[a, b]: seats of a and b in the same game
        self.seen: dict[str, int] = {}       # games so far per agent (for convergence)
        self.won: dict[str, int] = {}
        self.grid = np.unique(np.round(np.logspace(0, 12, 12 * points_per_decade + 1))
                              ).astype(np.int64)
        self._conv: list[pd.DataFrame] = []

    def add(self, games: pd.DataFrame) -> GameTotals:
        """Add a chunk of whole games; returns self."""
        if games.empty:
            return self
        games = win_kinds(games)
        g = games.groupby("agent", sort=True)
        part = pd.DataFrame({"games": g.size(), "wins": g["outright"].sum(),
                             "shared_wins": g["shared"].sum(), "share_sum": g["win_share"].sum(),
                             "placement_sum": g["placement"].sum(), "score_sum": g["score"].sum()})
        for col in ("decisions", "truncated"):
            if col in games:
                part[f"{col}_sum"] = g[col].sum()
        self.sums = part.astype(float) if self.sums.empty else self.sums.add(part, fill_value=0)
        ct = pd.crosstab(games["agent"], games["placement"])
        self.placements = ct.astype(float) if self.placements.empty else self.placements.add(
            ct, fill_value=0)
        agents, w, n = pair_totals(games)
        w_df = pd.DataFrame(w, index=agents, columns=agents)
        n_df = pd.DataFrame(n, index=agents, columns=agents)
        self.w = w_df if self.w.empty else self.w.add(w_df, fill_value=0)
        self.n = n_df if self.n.empty else self.n.add(n_df, fill_value=0)
        for agent, part_g in games.sort_values("game", kind="stable").groupby("agent", sort=True):
            won = part_g["outright"].to_numpy(dtype=np.int64)
            before, won_before = self.seen.get(agent, 0), self.won.get(agent, 0)
            count = before + np.arange(1, won.size + 1)
            wins = won_before + np.cumsum(won)
            keep = np.isin(count, self.grid)
            if keep.any():
                self._conv.append(pd.DataFrame({"games": count[keep], "agent": agent,
                                                "win_rate": wins[keep] / count[keep]}))
            self.seen[agent], self.won[agent] = int(count[-1]), int(wins[-1])
        return self

    @classmethod
    def of(cls, games: pd.DataFrame | Iterable[pd.DataFrame]) -> GameTotals:
        """Totals of one DataFrame or of an iterable of chunks of whole games."""
        tot = cls()
        for chunk in ([games] if isinstance(games, pd.DataFrame) else games):
            tot.add(chunk)
        return tot

    def summary(self) -> pd.DataFrame:
        """Per agent: games, wins (= outright_wins: first place alone), outright_wins,
        shared_wins (first place shared), win_rate (outright wins / games) with its 95%
        Wilson interval ci_low, ci_high, win_share (a shared first place split 1/k),
        mean_placement, mean_score, mean_decisions and truncated_share (when the games
        have those columns); best first (the agent order of every plot)."""
        cols = ["games", "wins", "outright_wins", "shared_wins", "win_rate", "ci_low", "ci_high",
                "win_share", "mean_placement", "mean_score"]
        if self.sums.empty:
            return pd.DataFrame(columns=cols, index=pd.Index([], name="agent"))
        t = self.sums
        out = pd.DataFrame({"games": t["games"].astype(np.int64), "wins": t["wins"].astype(np.int64),
                            "shared_wins": t["shared_wins"].astype(np.int64),
                            "win_share": t["share_sum"] / t["games"],
                            "mean_placement": t["placement_sum"] / t["games"],
                            "mean_score": t["score_sum"] / t["games"]})
        out.index.name = "agent"
        out["outright_wins"] = out["wins"]
        out["win_rate"] = out["wins"] / out["games"]
        out["ci_low"], out["ci_high"] = wilson_interval(out["wins"].to_numpy(),
                                                        out["games"].to_numpy())
        if "decisions_sum" in t:
            out["mean_decisions"] = t["decisions_sum"] / t["games"]
            out["truncated_share"] = t["truncated_sum"] / t["games"]
            cols += ["mean_decisions", "truncated_share"]
        out = out[cols].reset_index()
        return out.sort_values(["win_rate", "agent"], ascending=[False, True]).set_index("agent")

    def pair_arrays(self) -> tuple[list[str], np.ndarray, np.ndarray]:
        """(agents, W, N) as ``pair_totals`` returns them, over every chunk."""
        agents = sorted(self.w.index.tolist())
        w = self.w.reindex(index=agents, columns=agents).fillna(0).to_numpy()
        n = self.n.reindex(index=agents, columns=agents).fillna(0).to_numpy()
        return agents, w, n

    def head_to_head(self) -> pd.DataFrame:
        """Matrix: share of shared games in which the row agent beat the column agent."""
        return _head_to_head(*self.pair_arrays())

    def bradley_terry(self, iters: int = 500, tol: float = 1e-10) -> pd.DataFrame:
        """Bradley–Terry ratings (400·log10 scale, mean 0) with standard errors, per agent."""
        return _bradley_terry(*self.pair_arrays(), iters=iters, tol=tol)

    def placement_distribution(self) -> pd.DataFrame:
        """Share of each placement per agent (rows agents, columns placements)."""
        t = self.placements.fillna(0)
        t = t.div(t.sum(axis=1), axis=0)
        t = t.reindex(sorted(t.columns), axis=1)
        t.index.name, t.columns.name = "agent", "placement"
        return t

    def convergence(self) -> pd.DataFrame:
        """Running outright win rate per agent against games played with its 95% Wilson
        interval (long format: games, agent, win_rate, ci_low, ci_high), at
        ``points_per_decade`` log-spaced counts and at each agent's total."""
        rows = list(self._conv)
        for agent, n in self.seen.items():
            if n not in self.grid:
                rows.append(pd.DataFrame({"games": [n], "agent": agent,
                                          "win_rate": [self.won[agent] / n]}))
        if not rows:
            return pd.DataFrame(columns=["games", "agent", "win_rate", "ci_low", "ci_high"])
        out = pd.concat(rows, ignore_index=True).sort_values(["agent", "games"], ignore_index=True)
        out["ci_low"], out["ci_high"] = wilson_interval(
            np.round(out["win_rate"].to_numpy() * out["games"].to_numpy()), out["games"].to_numpy())
        return out


def summary(games: pd.DataFrame | Iterable[pd.DataFrame]) -> pd.DataFrame:
    """Per agent: games, outright and shared wins, win rate (outright) with its 95% CI, win
    share, means (see ``GameTotals.summary``)."""
    return GameTotals.of(games).summary()


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


def head_to_head(games: pd.DataFrame | Iterable[pd.DataFrame]) -> pd.DataFrame:
    """Matrix: share of shared games in which the row agent beat the column agent."""
    return GameTotals.of(games).head_to_head()


def _head_to_head(agents: list[str], w: np.ndarray, n: np.ndarray) -> pd.DataFrame:
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(n > 0, w / n, np.nan)
    return pd.DataFrame(share, index=pd.Index(agents, name="agent"),
                        columns=pd.Index(agents, name="opponent"))


def bradley_terry(games: pd.DataFrame | Iterable[pd.DataFrame], iters: int = 500,
                  tol: float = 1e-10) -> pd.DataFrame:
    """Bradley–Terry ratings (400·log10 scale, mean 0) with standard errors, per agent."""
    return GameTotals.of(games).bradley_terry(iters, tol)


def _bt_fit(w: np.ndarray, n: np.ndarray, iters: int = 500,
            tol: float = 1e-10) -> tuple[np.ndarray, np.ndarray]:
    """MM fit of Bradley–Terry strengths on pair totals ``(W, N)`` (as ``pair_totals``):
    (theta = log strengths with mean 0, covariance of theta from the observed information)."""
    k = w.shape[0]
    w, n = w / 2.0, n / 2.0  # each unordered pair was counted as (a, b) and (b, a)
    wins = w.sum(axis=1)
    pi = np.ones(k)
    for _ in range(iters):
        denom = (n / (pi[:, None] + pi[None, :])).sum(axis=1)
        new = np.where(denom > 0, np.maximum(wins, 1e-9) / np.where(denom > 0, denom, 1.0), pi)
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
    return theta - theta.mean(), np.linalg.pinv(h)


BT_SCALE = 400 / np.log(10)   # natural-log strengths -> the Elo-like 400·log10 scale


def _bradley_terry(agents: list[str], w: np.ndarray, n: np.ndarray, iters: int = 500,
                   tol: float = 1e-10) -> pd.DataFrame:
    k = len(agents)
    if k < 2:
        return pd.DataFrame({"rating": [0.0] * k, "se": [np.nan] * k},
                            index=pd.Index(agents, name="agent"))
    if not bt_estimable(w, n):   # no finite maximum-likelihood ratings exist
        return pd.DataFrame({"rating": [np.nan] * k, "se": [np.nan] * k},
                            index=pd.Index(agents, name="agent"))
    theta, cov = _bt_fit(w, n, iters, tol)
    se = np.sqrt(np.clip(np.diag(cov), 0, None))
    out = pd.DataFrame({"rating": theta * BT_SCALE, "se": se * BT_SCALE},
                       index=pd.Index(agents, name="agent"))
    return out.sort_values("rating", ascending=False)


def bt_estimable(w: np.ndarray, n: np.ndarray) -> bool:
    """Whether Bradley–Terry ratings of pair totals ``(W, N)`` have a finite maximum-likelihood
    estimate: for every split of the agents into two groups, each group scored against the
    other (the "beat" graph is strongly connected; Zermelo's condition).  Fails when, e.g., one
    game was played: its winner beat everyone and its last beat no one."""
    k = w.shape[0]
    beat = (w > 0) & (n > 0)          # i scored (won or tied) against j at least once

    def reach(adj: np.ndarray) -> np.ndarray:
        seen = np.zeros(k, bool)
        seen[0] = True
        frontier = seen.copy()
        while frontier.any():
            nxt = adj[frontier].any(axis=0) & ~seen
            seen |= nxt
            frontier = nxt
        return seen

    return bool(reach(beat).all() and reach(beat.T).all())


def bradley_terry_anchored(agents: list[str], w: np.ndarray, n: np.ndarray,
                           anchor: str) -> pd.DataFrame:
    """Bradley–Terry ratings (400·log10 scale) with ``anchor`` at 0, and standard errors of each
    rating *relative to the anchor* (``var(θa − θanchor)`` from the covariance), per agent."""
    if anchor not in agents:
        raise ValueError(f"anchor {anchor!r} is not among the rated agents {agents}")
    theta, cov = _bt_fit(w, n)
    j = agents.index(anchor)
    var = np.diag(cov) + cov[j, j] - 2 * cov[:, j]
    out = pd.DataFrame({"rating": (theta - theta[j]) * BT_SCALE,
                        "se": np.sqrt(np.clip(var, 0, None)) * BT_SCALE},
                       index=pd.Index(agents, name="agent"))
    return out.sort_values("rating", ascending=False)


def rate_against(ratings: pd.Series, w: pd.Series, n: pd.Series,
                 iters: int = 100) -> tuple[float, float]:
    """Bradley–Terry rating (same scale) of one newcomer against opponents whose ``ratings``
    are held fixed: ``w[o]`` its pair score against opponent ``o`` (1 placed better, 0.5 tie)
    over ``n[o]`` meetings.  Maximum likelihood by Newton steps; returns (rating, se), the se
    from the newcomer's observed information (the opponents' own uncertainty not added).  A
    newcomer that won (or lost) every pair has no finite estimate: half a pair is moved."""
    keep = n.index[(n > 0).to_numpy() & n.index.isin(ratings.index)]
    if len(keep) == 0:
        return float("nan"), float("nan")
    r = ratings.loc[keep].to_numpy(float) / BT_SCALE
    ww, nn = w.loc[keep].to_numpy(float).copy(), n.loc[keep].to_numpy(float)
    if ww.sum() == 0:
        ww[np.argmax(nn)] = 0.5
    elif ww.sum() == nn.sum():
        ww[np.argmax(nn)] -= 0.5
    theta = float(np.average(r, weights=nn))
    info = 1.0
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(r - theta))
        info = float((nn * p * (1 - p)).sum())
        step = float(np.clip((ww - nn * p).sum() / max(info, 1e-12), -5, 5))
        theta += step
        if abs(step) < 1e-12:
            break
    return theta * BT_SCALE, float(BT_SCALE / np.sqrt(max(info, 1e-12)))


def placement_distribution(games: pd.DataFrame | Iterable[pd.DataFrame]) -> pd.DataFrame:
    """Share of each placement per agent (rows agents, columns placements)."""
    return GameTotals.of(games).placement_distribution()


def convergence(games: pd.DataFrame | Iterable[pd.DataFrame], points_per_decade: int = 12
                ) -> pd.DataFrame:
    """Running outright win rate per agent against games played with 95% CIs (long format:
    games, agent, win_rate, ci_low, ci_high)."""
    tot = GameTotals(points_per_decade)
    for chunk in ([games] if isinstance(games, pd.DataFrame) else games):
        tot.add(chunk)
    return tot.convergence()


