"""Ratings from whole finishing orders, with intervals over deals: Plackett–Luce beside
Bradley–Terry, both bootstrapped.

- **Plackett–Luce** rates the full finishing order of each game: the winner is drawn from the
  seats in proportion to their strengths, the second from the rest, and so on. It uses every
  place, not only pairs, and is the usual multiplayer model (TextArena's and openskill's
  rankings build on it). Fitted by Hunter's (2004) MM algorithm. A seat's agent gives its
  strength, so two seats of one agent share it. **Ties** (shared placements) are read as every
  order of the tied seats, each with equal weight (a tie of k seats: k! orders, weight 1/k!).
- **Bradley–Terry** is ``bluffsim.analysis.stats``' pairwise model (every two seats of a game
  with different agents).
- **Intervals** are a bootstrap over deals: each deal (its ``seed``: the games replaying one
  deal share it) falls in one of ``BUCKETS`` buckets by a counter-based hash of its seed
  (``bluffsim.rng``), the counts of each finishing order are kept per bucket, and each of
  ``REPS`` replicates redraws the non-empty buckets with replacement (a fixed numpy seed, as
  ``stats.cluster_bootstrap_interval``). A bucket holds whole deals, so the games of one deal
  stay together; with fewer deals than buckets it is the plain deal bootstrap, with more it
  resamples random groups of deals, which has the same variance. Chunks can be added one at a
  time, in any order or worker split: the same games give the same intervals. Both models are
  refitted on each replicate; the interval is the 2.5–97.5% percentile of the replicates'
  ratings. Each replicate also holds ``PSEUDO`` of a virtual game each way between every two
  agents, so that a replicate in which an agent never finishes ahead of another still gives it
  a finite (very low) rating instead of none, which widens its interval the right way.

Ratings are on the Elo-like 400·log10 scale with mean 0 over the agents, like Bradley–Terry's.
A finite maximum-likelihood estimate needs the "finished ahead of" graph strongly connected
(``stats.bt_estimable``); without it the ratings are NaN.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd

from bluffsim import rng
from bluffsim.analysis.stats import BOOTSTRAP_SEED, BT_SCALE, _bt_fit, bt_estimable

REPS = 200                 # bootstrap replicates
BUCKETS = 1024             # deal buckets the bootstrap redraws
STREAM = 0xB0075           # the bucket hash's random stream (``rng.words``), apart from the games'
PSEUDO = 0.1               # virtual games each way between two agents in each replicate
MM_ITERS = 2000
MM_TOL = 1e-9


def deal_buckets(seeds: np.ndarray) -> np.ndarray:
    """int64: the bootstrap bucket of each game's deal seed (the same for every game of a deal)."""
    w = rng.words(np.asarray(seeds, dtype=np.uint64), STREAM, 0)
    return (w % np.uint64(BUCKETS)).astype(np.int64)


class FinishOrders:
    """Counts of each distinct finishing order (agents in placement order, with the
    placements) per deal bucket; ``add`` chunks of whole games, then read ``ratings``."""

    def __init__(self, reps: int = REPS):
        self.reps = reps
        self.agents: list[str] = []
        self.patterns: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
        self.counts = np.zeros((0, BUCKETS))   # [pattern, deal bucket]

    def add(self, games: pd.DataFrame) -> FinishOrders:
        """Add a chunk of whole games (columns game, seed, agent, placement; seat if present)."""
        if games.empty:
            return self
        self.agents += [a for a in games["agent"].unique() if a not in self.agents]
        g = games.sort_values(["game", "seat"] if "seat" in games else ["game"], kind="stable")
        code = pd.Categorical(g["agent"], categories=self.agents).codes.astype(np.int64)
        place = g["placement"].to_numpy(np.int64)
        sizes = g.groupby("game", sort=False).size().to_numpy()
        start = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        bucket = deal_buckets(g["seed"].to_numpy(np.uint64)[start])
        ids = np.empty(sizes.size, np.int64)
        for size in np.unique(sizes):
            at = np.flatnonzero(sizes == size)
            rows = start[at][:, None] + np.arange(size)
            order = np.argsort(place[rows], axis=1, kind="stable")
            keys = np.concatenate([np.take_along_axis(code[rows], order, 1),
                                   np.take_along_axis(place[rows], order, 1)], axis=1)
            ids[at] = self._pattern_ids(keys, size)
        if self.counts.shape[0] < len(self.patterns):
            grown = np.zeros((len(self.patterns), BUCKETS))
            grown[:self.counts.shape[0]] = self.counts
            self.counts = grown
        self.counts += np.bincount(ids * BUCKETS + bucket, minlength=self.counts.size
                                   ).reshape(self.counts.shape)
        return self

    def _pattern_ids(self, keys: np.ndarray, size: int) -> np.ndarray:
        """The pattern index of each row of ``keys`` (``size`` agent codes in finishing order,
        then their placements), new patterns added; rows packed into one integer when they fit."""
        radix = np.array([len(self.agents)] * size + [size + 1] * size, dtype=object)
        if np.prod(radix) < 2 ** 62:
            weights = np.cumprod(np.concatenate([[1], radix[:-1]])).astype(np.int64)
            _, first, inverse = np.unique(keys @ weights, return_index=True,
                                             return_inverse=True)
            rows = keys[first]
        else:
            rows, inverse = np.unique(keys, axis=0, return_inverse=True)
        found = np.array([self._pattern(tuple(u[:size]), tuple(u[size:])) for u in rows])
        return found[inverse.ravel()]

    def _pattern(self, codes: tuple[int, ...], places: tuple[int, ...]) -> int:
        """The index of a finishing order, added when new."""
        key = (tuple(int(c) for c in codes), tuple(int(p) for p in places))
        if key not in self.patterns:
            self.patterns[key] = len(self.patterns)
        return self.patterns[key]

    def ratings(self, anchor: str | None = None) -> pd.DataFrame:
        """Per agent: Bradley–Terry and Plackett–Luce ratings, each with its 95% bootstrap
        interval over deals (columns bt_low, bt_high, pl_rating, pl_low, pl_high); mean 0, or
        ``anchor``'s rating 0 (in the data and in each replicate, so the intervals are those of
        the difference to the anchor)."""
        k = len(self.agents)
        out = pd.DataFrame(index=pd.Index(self.agents, name="agent"))
        counts = self.replicate_counts() if k >= 2 and self.patterns else None
        pair_w, pair_n = self._pairs(k)
        if counts is None or not bt_estimable(np.tensordot(counts[:, 0], pair_w, 1),
                                              np.tensordot(counts[:, 0], pair_n, 1)):
            for c in ("bt_low", "bt_high", "pl_rating", "pl_low", "pl_high"):
                out[c] = np.nan
            return out
        orders, owner, omega = self._expanded()
        weights = omega[:, None] * counts[owner]
        prior = PSEUDO * (1 - np.eye(k))                   # a virtual game each way, each pair
        pair_orders = np.array([(i, j) for i in range(k) for j in range(k) if i != j], np.int64)
        pl_data = plackett_luce(orders, weights[:, :1], k)[:, 0]
        pl_reps = plackett_luce([*orders, pair_orders], np.concatenate(
            [weights[:, 1:], np.full((pair_orders.shape[0], self.reps), PSEUDO)]), k)
        bt_reps = np.stack([_bt_fit(np.tensordot(counts[:, r], pair_w, 1) + prior,
                                    np.tensordot(counts[:, r], pair_n, 1) + 2 * prior)[0]
                            for r in range(1, self.reps + 1)], axis=1)
        if anchor is not None:
            a = self.agents.index(anchor)
            pl_data, pl_reps, bt_reps = pl_data - pl_data[a], pl_reps - pl_reps[a], bt_reps - bt_reps[a]
        out["bt_low"], out["bt_high"] = np.percentile(bt_reps, [2.5, 97.5], axis=1) * BT_SCALE
        out["pl_rating"] = pl_data * BT_SCALE
        out["pl_low"], out["pl_high"] = np.percentile(pl_reps, [2.5, 97.5], axis=1) * BT_SCALE
        return out

    def head_to_head(self) -> pd.DataFrame:
        """Per ordered pair of different agents that met: the rate at which ``agent`` finished
        ahead of ``opponent`` (ties half) with its 95% bootstrap interval over deals (columns
        agent, opponent, ahead, low, high, pairs)."""
        k = len(self.agents)
        cols = ["agent", "opponent", "ahead", "low", "high", "pairs"]
        if k < 2 or not self.patterns:
            return pd.DataFrame(columns=cols)
        pair_w, pair_n = self._pairs(k)
        counts = self.replicate_counts()
        w = np.tensordot(counts.T, pair_w, 1)          # [1 + reps, k, k]
        n = np.tensordot(counts.T, pair_n, 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = w / n
        rows = []
        for i, j in itertools.permutations(range(k), 2):
            if n[0, i, j] > 0:
                reps = rate[1:, i, j]
                lo, hi = np.percentile(reps[np.isfinite(reps)], [2.5, 97.5])
                rows.append((self.agents[i], self.agents[j], rate[0, i, j], lo, hi, n[0, i, j]))
        return pd.DataFrame(rows, columns=cols)

    def rate_against(self, subject: str, bt: pd.Series, pl: pd.Series) -> dict[str, float]:
        """``subject``'s ratings on a fixed scale: the other agents' Bradley–Terry ratings ``bt``
        and Plackett–Luce ratings ``pl`` (400·log10 scale, by agent) held fixed, only the
        subject's fitted (``stats.rate_against`` for Bradley–Terry; the MM fit of its one
        strength for Plackett–Luce; an agent without a fixed rating is fitted too), in the data
        and in each bootstrap replicate over deals: rating, se (Bradley–Terry's, from its
        information), bt_low, bt_high, pl_rating, pl_low, pl_high."""
        from bluffsim.analysis.stats import rate_against

        nan = float("nan")
        out = dict.fromkeys(("rating", "se", "bt_low", "bt_high", "pl_rating", "pl_low",
                             "pl_high"), nan)
        if subject not in self.agents or len(self.agents) < 2 or not self.patterns:
            return out
        k, s = len(self.agents), self.agents.index(subject)
        counts = self.replicate_counts()
        pair_w, pair_n = self._pairs(k)
        w, n = np.tensordot(counts.T, pair_w, 1)[:, s], np.tensordot(counts.T, pair_n, 1)[:, s]
        names = pd.Index(self.agents)
        bt_fits = [rate_against(bt, pd.Series(w[r], names), pd.Series(n[r], names))
                   for r in range(self.reps + 1)]
        out["rating"], out["se"] = bt_fits[0]
        out["bt_low"], out["bt_high"] = _interval([f[0] for f in bt_fits[1:]])
        fixed = pl.reindex(self.agents).to_numpy(float) / BT_SCALE
        fixed[s] = np.nan
        orders, owner, omega = self._expanded()
        weights = omega[:, None] * counts[owner]
        known = np.flatnonzero(np.isfinite(fixed))
        pseudo = np.array([o for j in known for o in ((s, j), (j, s))], np.int64).reshape(-1, 2)
        wins = (w[0].sum() > 0, w[0].sum() < n[0].sum())
        prior = 0.0 if all(wins) else PSEUDO     # the data's own estimate is finite: no prior
        theta = plackett_luce([*orders, pseudo], np.concatenate(
            [weights, np.column_stack([np.full(len(pseudo), prior),
                                       np.full((len(pseudo), self.reps), PSEUDO)])]), k,
            fixed=fixed)[s] * BT_SCALE
        out["pl_rating"] = float(theta[0])
        out["pl_low"], out["pl_high"] = _interval(theta[1:])
        return out

    def replicate_counts(self) -> np.ndarray:
        """float[pattern, 1 + reps]: the count of each finishing order in the data (column 0)
        and in each bootstrap replicate (the non-empty buckets redrawn with replacement)."""
        used = np.flatnonzero(self.counts.sum(axis=0) > 0)
        draws = np.random.default_rng(BOOTSTRAP_SEED).multinomial(
            used.size, np.full(used.size, 1.0 / used.size), size=self.reps)
        data = self.counts[:, used]
        return np.concatenate([data.sum(axis=1, keepdims=True), data @ draws.T.astype(float)],
                              axis=1)

    def _expanded(self) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
        """Every pattern's orders with its ties broken every way: (orders grouped by size as
        int64[m, size] arrays, the pattern of each order, the weight of each order)."""
        by_size: dict[int, list[tuple[int, ...]]] = {}
        owners: dict[int, list[int]] = {}
        weights: dict[int, list[float]] = {}
        for (codes, places), idx in self.patterns.items():
            groups = [list(g) for _, g in itertools.groupby(range(len(codes)),
                                                           key=lambda i: places[i])]
            ways = [list(itertools.permutations(gr)) for gr in groups]
            weight = 1.0 / math.prod(len(w) for w in ways)
            for choice in itertools.product(*ways):
                order = tuple(codes[i] for part in choice for i in part)
                by_size.setdefault(len(codes), []).append(order)
                owners.setdefault(len(codes), []).append(idx)
                weights.setdefault(len(codes), []).append(weight)
        sizes = sorted(by_size)
        orders = [np.array(by_size[s], np.int64) for s in sizes]
        owner = np.concatenate([np.array(owners[s], np.int64) for s in sizes])
        omega = np.concatenate([np.array(weights[s]) for s in sizes])
        return orders, owner, omega

    def _pairs(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Per pattern, ``stats.pair_totals``' (W, N) of one game of it: float[patterns, k, k]."""
        w = np.zeros((len(self.patterns), k, k))
        n = np.zeros_like(w)
        for (codes, places), idx in self.patterns.items():
            for i, j in itertools.permutations(range(len(codes)), 2):
                a, b = codes[i], codes[j]
                if a != b:
                    n[idx, a, b] += 1
                    w[idx, a, b] += 1.0 if places[i] < places[j] else (
                        0.5 if places[i] == places[j] else 0.0)
        return w, n


def _interval(values: np.ndarray | list[float]) -> tuple[float, float]:
    """The 2.5–97.5% percentiles of the finite ``values`` (NaN if none)."""
    v = np.asarray(values, float)
    v = v[np.isfinite(v)]
    if not v.size:
        return float("nan"), float("nan")
    lo, hi = np.percentile(v, [2.5, 97.5])
    return float(lo), float(hi)


def plackett_luce(orders: list[np.ndarray], weights: np.ndarray, k: int,
                  iters: int = MM_ITERS, tol: float = MM_TOL,
                  fixed: np.ndarray | None = None) -> np.ndarray:
    """Plackett–Luce log strengths (mean 0), float[k, R], fitted by MM on finishing orders
    (``orders``: int64[m, size] arrays of agent codes, best first, grouped by size) with
    ``weights[order, r]`` for each of R data sets at once.  ``fixed`` (float[k], natural-log
    strengths, NaN where free): those strengths are held and only the free ones fitted (the MM
    step of a block of coordinates still raises the likelihood); the result is then on the
    fixed strengths' scale, not centred."""
    reps = weights.shape[1]
    parts, start = [], 0
    for o in orders:
        parts.append((o, weights[start:start + o.shape[0]]))
        start += o.shape[0]
    wins = np.zeros((k, reps))
    for o, wt in parts:
        for t in range(o.shape[1] - 1):          # the last place is not a choice
            np.add.at(wins, o[:, t], wt)
    hold = np.zeros(k, bool) if fixed is None else np.isfinite(fixed)
    gamma = np.ones((k, reps))
    if hold.any():
        gamma[hold] = np.exp(fixed[hold])[:, None]
    for _ in range(iters):
        denom = np.zeros((k, reps))
        for o, wt in parts:
            g = gamma[o]                                       # [m, size, R]
            rest = np.cumsum(g[:, ::-1], axis=1)[:, ::-1]      # strength left at each stage
            inv = np.cumsum(1.0 / rest[:, :-1], axis=1)        # sum over stages t <= j
            reach = np.concatenate([inv, inv[:, -1:]], axis=1)  # the last seat sits all stages
            np.add.at(denom, o, wt[:, None, :] * reach)
        new = np.where(denom > 0, np.maximum(wins, 1e-12) / np.where(denom > 0, denom, 1), gamma)
        if hold.any():
            new[hold] = gamma[hold]
        else:
            new /= np.exp(np.log(new).mean(axis=0))
        done = np.max(np.abs(np.log(new) - np.log(gamma))) < tol
        gamma = new
        if done:
            break
    theta = np.log(gamma)
    return theta if hold.any() else theta - theta.mean(axis=0)
