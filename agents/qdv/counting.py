"""qdv ``counting``: the exact distribution of each fruit's count over the unseen cards.

Model.  From my observation, the cards I cannot see form a pool (the deck minus
my hand, the face-up cards of the others, the discards and the centre).  The
``H`` hidden cards in the other hands are a uniformly random ``H``-subset of that
pool (the deal, `reveal`, `discard` and `draw` challenges all pick uniformly), so
for fruit ``f`` the hidden count is a sum over a multivariate hypergeometric
draw of the classes ×1, ×2, ×3 of ``f``, salads, and everything else.  The
distribution is computed exactly, for all six fruits at once, by summing over
every composition (k1, k2, k3, ks) of the draw with log-binomial tables.
Salads held by others count for the called fruit with probability
``salad_p`` each (their holders' declarations are not modelled); my own salads
are mine to declare.

Simplifications: bids are not used as evidence about the others' hands, and
the next player's calling behaviour is summarised by ``p_call``.

Decisions maximise the expected change of my tokens plus ``spite`` times the
tokens the others lose (averaged over them):

- ``menteur`` on bid b: I lose T-b+1 when T >= b (declaring no salads), else the
  bidder loses b-T+1;
- ``vrai``: exact if T lands within my salads' reach of b (I then gain 1), else
  I lose the distance + 1;
- a bid (b', f'): if the next player calls menteur (probability ``p_call``) I
  lose b'-T-m+1 when T plus all my m salads falls short, and passing the start
  costs the chance of a `token` challenge.

Start choice: the fruit with the largest expected count.  Salad declarations
and the exact-call reward follow the heuristic.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent, probability, real
from agents.combinatorics import log_choose
from agents.qdv.common import deck_counts, visible
from agents.qdv.heuristic import declare_salads
from bluffsim.games.qdv import rules as R
from bluffsim.rng import AgentRNG


def hidden_value_distribution(classes: np.ndarray, salad_p: float, nv: int) -> np.ndarray:
    """float64[R, V]: value distribution of a hidden draw, one row per class tuple (exact).

    ``classes`` is int64[R, 7]: pool cards of the fruit at ×1, ×2, ×3, pool salads,
    pool total, cards drawn, the others' face-up salads.  Each composition
    (k1, k2, k3, ks) of the draw is weighted by its multivariate hypergeometric
    probability; each drawn or face-up salad of the others counts with probability
    ``salad_p``.  Values ``>= V - 1`` fold into the last bin.
    """
    n1, n2, n3, ns, n_total, h, face_up = (classes[:, i] for i in range(7))
    n_other = n_total - n1 - n2 - n3 - ns
    r = classes.shape[0]
    grids = np.meshgrid(*[np.arange(int(x.max(initial=0)) + 1) for x in (n1, n2, n3, ns)],
                        indexing="ij")
    k1, k2, k3, ks = (g.reshape(-1, 1) for g in grids)                  # [C, 1]
    p = np.exp(log_choose(n1, k1) + log_choose(n2, k2) + log_choose(n3, k3)
               + log_choose(ns, ks) + log_choose(n_other, h - k1 - k2 - k3 - ks)
               - log_choose(n_total, h))                                 # [C, R]
    base = k1 + 2 * k2 + 3 * k3
    out = np.zeros(r * nv)
    cell = np.arange(r)[None, :] * nv
    salads = ks + face_up[None, :]                                       # [C, R]
    for j in range(int(salads.max(initial=0)) + 1):
        w = np.where(j <= salads, np.exp(log_choose(salads, j)) * salad_p**j
                     * (1 - salad_p) ** np.maximum(salads - j, 0), 0.0)  # [C, R]
        idx = cell + np.minimum(base + j, nv - 1)
        out += np.bincount(np.broadcast_to(idx, p.shape).ravel(),
                           weights=(p * w).ravel(), minlength=out.size)
    return out.reshape(r, nv)


class CountTable:
    """Memo of the hidden value distribution over every class tuple met so far.

    A class tuple (see ``hidden_value_distribution``) is a handful of small
    integers, so it has a dense mixed-radix key; ``index[key]`` is its row
    (-1 until first met).  Each row stores, for ``u = 0 … W``, ``cdf[u] = P(H < u)``
    and ``below[u] = E[H · 1(H < u)]``: every quantity the agent needs is a
    gather at a threshold.  Only tuples never seen before are computed.
    """

    def __init__(self, rules: R.Rules, salad_p: float):
        deck = deck_counts(rules)
        per_mult = [int(deck[m::R.MAX_MULT][:R.NUM_FRUITS].max()) for m in range(R.MAX_MULT)]
        total = len(rules.deck)
        salads = int(deck[R.SALAD]) + 1
        self.radix = np.array([*[c + 1 for c in per_mult], salads, total + 1, total + 1,
                               salads], dtype=np.int64)
        # float strides: numpy has no BLAS for integer matrix products (keys < 2**53)
        self.strides = np.cumprod(np.r_[1, self.radix[::-1][:-1]])[::-1].astype(np.float64)
        self.index = np.full(int(np.prod(self.radix)), -1, dtype=np.int32)
        # largest hidden value: every card of one fruit plus every salad, drawn or face up
        self.width = sum((m + 1) * c for m, c in enumerate(per_mult)) + 2 * (salads - 1) + 1
        self.salad_p = salad_p
        self.size = 0
        self.cdf = np.zeros((1024, self.width + 1))
        self.below = np.zeros((1024, self.width + 1))

    def rows(self, classes: np.ndarray) -> np.ndarray:
        """int64[...]: memo rows of int64[..., 7] class tuples, computing the new ones."""
        keys = (classes.astype(np.float64) @ self.strides).astype(np.int64)
        pos = self.index[keys]
        missing = pos < 0
        if missing.any():
            new_keys, first = np.unique(keys[missing], return_index=True)
            self.add(new_keys, classes[missing][first])
            pos = self.index[keys]
        return pos.astype(np.int64)

    def add(self, keys: np.ndarray, classes: np.ndarray) -> None:
        """Compute and store the rows of new class tuples (storage doubles as needed)."""
        pmf = hidden_value_distribution(classes, self.salad_p, self.width)
        n = len(keys)
        while self.size + n > len(self.cdf):
            self.cdf = np.concatenate([self.cdf, np.zeros_like(self.cdf)])
            self.below = np.concatenate([self.below, np.zeros_like(self.below)])
        new = slice(self.size, self.size + n)
        self.cdf[new, 1:] = np.cumsum(pmf, axis=1)
        self.below[new, 1:] = np.cumsum(pmf * np.arange(self.width), axis=1)
        self.index[keys] = np.arange(self.size, self.size + n)
        self.size += n

    def pmf(self, rows: np.ndarray) -> np.ndarray:
        """float64[..., W]: the hidden value distributions of memo ``rows``."""
        return np.diff(self.cdf[rows], axis=-1)


_TABLES: dict[tuple[R.Rules, float], CountTable] = {}


def count_table(rules: R.Rules, salad_p: float) -> CountTable:
    """The shared ``CountTable`` of these rules and salad probability."""
    key = (rules, salad_p)
    if key not in _TABLES:
        _TABLES[key] = CountTable(rules, salad_p)
    return _TABLES[key]


def fruit_classes(obs: dict[str, np.ndarray], rules: R.Rules) -> tuple[np.ndarray, np.ndarray]:
    """(classes int64[B, F, 7], known int64[B, F]): each fruit's hidden-draw class tuple
    and the value I see of it."""
    v = visible(obs, rules)
    pool = v["unseen_kinds"]
    b, nf = pool.shape[0], R.NUM_FRUITS
    classes = np.empty((b, nf, 7), np.int64)
    for m in range(R.MAX_MULT):
        classes[:, :, m] = pool[:, m::R.MAX_MULT][:, :nf]
    classes[:, :, 3] = pool[:, R.SALAD][:, None]
    classes[:, :, 4] = pool.sum(axis=1)[:, None]
    classes[:, :, 5] = v["hidden_cards"][:, None]
    classes[:, :, 6] = v["others_salads"][:, None]
    return classes, v["known"]


def count_distribution(obs: dict[str, np.ndarray], rules: R.Rules,
                       salad_p: float = 0.5) -> np.ndarray:
    """float[B, F, V]: P(count of fruit f = v) excluding my own salads (exact, see docstring).

    The hidden cards and the others' face-up salads come from the memo
    (``CountTable``), shifted by what I see of the fruit.  ``V = rules.max_count + 1``;
    larger counts fold into the last bin.
    """
    table = count_table(rules, salad_p)
    classes, known = fruit_classes(obs, rules)
    hidden = table.pmf(table.rows(classes))                              # [B, F, W]
    nv = rules.max_count + 1
    b, nf, w = hidden.shape
    cell = (np.arange(b * nf) * nv).reshape(b, nf, 1)
    dest = cell + np.minimum(known[:, :, None] + np.arange(w), nv - 1)
    return np.bincount(dest.ravel(), weights=hidden.ravel(),
                       minlength=b * nf * nv).reshape(b, nf, nv)


class Counts:
    """Threshold queries on a fruit's count ``T``: the memo's hidden part plus what I see."""

    def __init__(self, table: CountTable, rows: np.ndarray, known: np.ndarray):
        self.table, self.rows, self.known = table, rows, known

    def _at(self, arr: np.ndarray, t: np.ndarray) -> np.ndarray:
        u = np.minimum(np.maximum(t - self.known, 0), self.table.width)
        return arr.ravel()[self.rows * arr.shape[1] + u]

    def less(self, t: np.ndarray) -> np.ndarray:
        """P(T < t)."""
        return self._at(self.table.cdf, t)

    def mean_below(self, t: np.ndarray) -> np.ndarray:
        """E[T · 1(T < t)]."""
        return self._at(self.table.below, t) + self.known * self.less(t)

    def mean(self) -> np.ndarray:
        """E[T]."""
        return self.table.below[self.rows, self.table.width] + self.known

    def shortfall(self, t: np.ndarray) -> np.ndarray:
        """E[(t - T + 1) · 1(T < t)]: the loss when ``T`` falls short of ``t``."""
        return (t + 1) * self.less(t) - self.mean_below(t)

    def excess(self, t: np.ndarray) -> np.ndarray:
        """E[(T - t + 1) · 1(T >= t)]: the loss when ``T`` reaches ``t``."""
        return (self.mean() - self.mean_below(t)) - (t - 1) * (1 - self.less(t))


# the observation keys the counting decisions read
COUNTED_KEYS = ("seat", "phase", "hand", "hand_sizes", "in_round", "centre", "start", "bid_count",
                "bid_fruit", "revealed", "discarded")


class QdvCounting(Agent):
    """Expected-token-change player over the exact count distribution (module docstring)."""

    name = "counting"
    games = ("qdv",)
    traits = {"stochastic": False, "uses_history": True, "uses_observation": True}
    params = {"p_call": 0.5, "spite": 0.3, "salad_p": 0.5, "token_risk": 1 / 6}
    spec = {
        "p_call": probability("chance the next player calls menteur on my bid"),
        "spite": real(0, doc="weight of the tokens my call makes others lose"),
        "salad_p": probability("chance an unseen salad is declared to count"),
        "token_risk": real(0, doc="cost of a bid that crosses into a challenge"),
    }

    def act(self, obs: dict[str, np.ndarray], legal_mask: np.ndarray, rng: AgentRNG) -> np.ndarray:
        """One action per game: calls, bids and the start by expected value; salads and the
        exact-call reward as the heuristic (``declare_salads``, take the token)."""
        phase = obs["phase"]
        out = np.where(phase == R.PHASE_SALADS, declare_salads(obs),
                       np.where(phase == R.PHASE_REWARD, self.game.rules.gain_id, 0))
        counted = np.flatnonzero((phase == R.PHASE_BID) | (phase == R.PHASE_START))
        if counted.size:
            sub = obs if counted.size == phase.size else {k: obs[k][counted] for k in COUNTED_KEYS}
            table = count_table(self.game.rules, self.config["salad_p"])
            classes, known = fruit_classes(sub, self.game.rules)
            counts = Counts(table, table.rows(classes), known)           # every fruit, [B, F]
            bid = self.bid_or_call(sub, legal_mask[counted], counts)
            out[counted] = np.where(sub["phase"] == R.PHASE_BID, bid,
                                    R.START0 + counts.mean().argmax(axis=1))
        return out

    def bid_or_call(self, obs: dict[str, np.ndarray], legal: np.ndarray,
                    counts: Counts) -> np.ndarray:
        """Action with the best expected value among menteur, vrai and every legal bid."""
        c = self.config
        b = legal.shape[0]
        rows = np.arange(b)
        m = obs["hand"][:, R.SALAD].astype(np.int64)
        others = np.maximum(obs["in_round"].sum(axis=1) - 1, 1)
        bid = obs["bid_count"].astype(np.int64)
        fruit = np.maximum(obs["bid_fruit"].astype(np.int64), 0)
        called = Counts(counts.table, counts.rows[rows, fruit], counts.known[rows, fruit])
        value = np.full((b, legal.shape[1]), -np.inf)
        # menteur: I declare no salads; I lose T-b+1 if T >= b, else the bidder loses b-T+1
        value[:, R.MENTEUR] = -called.excess(bid) + c["spite"] * called.shortfall(bid) / others
        # vrai: exact when b-m <= T <= b (my salads close the gap), else I lose the distance + 1
        low = bid - m
        exact = called.less(bid + 1) - called.less(low)
        over = called.excess(bid + 1) + 1 - called.less(bid + 1)
        value[:, R.VRAI] = exact - over - called.shortfall(low)
        # bids: if called, I lose b'-T-m+1 when T plus all my salads falls short of b'
        start = obs["start"].astype(np.int64)
        f = np.arange(R.NUM_FRUITS)
        steps = (f[None, :] - fruit[:, None]) % R.NUM_FRUITS
        to_start = (start[:, None] - fruit[:, None]) % R.NUM_FRUITS
        crosses = (f[None, :] != fruit[:, None]) & (to_start >= 1) & (to_start <= steps)
        for raise_by in (1, 2):
            loss = counts.shortfall((bid + raise_by - m)[:, None])         # [B, F]
            ids = (raise_by - 1) * R.NUM_FRUITS + f
            value[:, ids] = -c["p_call"] * loss - c["token_risk"] * crosses
        value = np.where(legal, value, -np.inf)
        return value.argmax(axis=1)
