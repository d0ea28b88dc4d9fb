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

from math import lgamma

import numpy as np

from agents.base import Agent
from agents.qdv.common import VALUE, centre_values, deck_counts
from agents.qdv.heuristic import QdvHeuristic
from bluffsim.games.qdv import rules as R
from bluffsim.rng import AgentRNG

_LOGC_N = 64
LOG_FACT = np.array([lgamma(n + 1) for n in range(_LOGC_N + 1)])


def log_choose(n: np.ndarray, k: np.ndarray) -> np.ndarray:
    """log C(n, k), -inf where k < 0 or k > n (vectorised, n <= 64)."""
    n = np.asarray(n)
    k = np.asarray(k)
    ok = (k >= 0) & (k <= n)
    kk = np.clip(k, 0, _LOGC_N)
    nn = np.clip(n, 0, _LOGC_N)
    val = LOG_FACT[nn] - LOG_FACT[kk] - LOG_FACT[np.clip(nn - kk, 0, _LOGC_N)]
    return np.where(ok, val, -np.inf)


def visible_pool(obs: dict[str, np.ndarray], rules: R.Rules) -> dict[str, np.ndarray]:
    """Unseen pool per kind, hidden hand cards, my hand, visible value per fruit."""
    b = obs["hand"].shape[0]
    rows = np.arange(b)
    seat = np.maximum(obs["seat"].astype(np.int64), 0)
    hand = obs["hand"].astype(np.int64)
    revealed = obs["revealed"].astype(np.int64)
    others_revealed = revealed.sum(axis=1) - revealed[rows, seat]
    seen = hand + others_revealed + obs["discarded"].astype(np.int64).sum(axis=1)
    seen[rows, np.maximum(obs["centre"].astype(np.int64), 0)] += 1
    pool = np.maximum(deck_counts(rules)[None, :] - seen, 0)
    sizes = obs["hand_sizes"].astype(np.int64)
    hidden = np.maximum(sizes.sum(axis=1) - sizes[rows, seat] - others_revealed.sum(axis=1), 0)
    known = (hand + others_revealed) @ VALUE + centre_values(obs)
    others_salads = others_revealed[:, R.SALAD]
    return {"pool": pool, "hidden": hidden, "hand": hand, "known": known,
            "my_salads": hand[:, R.SALAD], "others_salads": others_salads}


def count_distribution(obs: dict[str, np.ndarray], rules: R.Rules,
                       salad_p: float = 0.5) -> np.ndarray:
    """float[B, F, V]: P(count of fruit f = v) excluding my own salads (exact, see docstring).

    Every composition (k1, k2, k3, ks) of the hidden draw is one slice of a
    ``[C, B, F]`` array, so the whole batch is a few dozen numpy operations.
    ``V = rules.max_count + 1``; larger counts are folded into the last bin.
    """
    v = visible_pool(obs, rules)
    pool, h = v["pool"], v["hidden"]
    b = pool.shape[0]
    nf, nv = R.NUM_FRUITS, rules.max_count + 1
    n_m = [pool[:, m::R.MAX_MULT][:, :nf] for m in range(R.MAX_MULT)]  # [B, F] per multiplier
    ns = pool[:, R.SALAD][:, None]
    n_total = pool.sum(axis=1)[:, None]
    n_other = n_total - ns - n_m[0] - n_m[1] - n_m[2]
    hh = h[:, None]
    grids = np.meshgrid(*[np.arange(int(x.max(initial=0)) + 1) for x in (*n_m, ns)],
                        indexing="ij")
    k1, k2, k3, ks = (g.reshape(-1, 1, 1) for g in grids)               # [C, 1, 1]
    logp = (log_choose(n_m[0], k1) + log_choose(n_m[1], k2) + log_choose(n_m[2], k3)
            + log_choose(ns, ks) + log_choose(n_other, hh - k1 - k2 - k3 - ks)
            - log_choose(n_total, hh))
    p = np.exp(logp)                                                     # [C, B, F]
    base = v["known"][None] + k1 + 2 * k2 + 3 * k3
    salads = np.broadcast_to(ks + v["others_salads"][None, :, None], p.shape)
    cell = (np.arange(b)[:, None] * nf + np.arange(nf)[None, :])[None] * nv  # [1, B, F]
    out = np.zeros(b * nf * nv)
    for j in range(int(salads.max(initial=0)) + 1):
        w = np.where(j <= salads, np.exp(log_choose(salads, j)) * salad_p**j
                     * (1 - salad_p) ** np.maximum(salads - j, 0), 0.0)
        idx = cell + np.minimum(base + j, nv - 1)
        out += np.bincount(np.broadcast_to(idx, p.shape).ravel(), weights=(p * w).ravel(),
                           minlength=out.size)
    return out.reshape(b, nf, nv)


class QdvCounting(Agent):
    """Expected-token-change player over the exact count distribution (module docstring)."""

    name = "counting"
    games = ("qdv",)
    traits = {"stochastic": False, "uses_history": True, "uses_observation": True}
    params = {"p_call": 0.5, "spite": 0.3, "salad_p": 0.5, "token_risk": 1 / 6}

    def act(self, obs: dict[str, np.ndarray], legal_mask: np.ndarray, rng: AgentRNG) -> np.ndarray:
        """One action per game: calls and bids by expected value, other phases as the heuristic."""
        out = QdvHeuristic(self.game).act(obs, legal_mask, rng)
        bidding = np.flatnonzero(obs["phase"] == R.PHASE_BID)
        if bidding.size:
            sub = {k: v[bidding] for k, v in obs.items()}
            out[bidding] = self.bid_or_call(sub, legal_mask[bidding])
        start = np.flatnonzero(obs["phase"] == R.PHASE_START)
        if start.size:
            sub = {k: v[start] for k, v in obs.items()}
            dist = count_distribution(sub, self.game.rules, self.config["salad_p"])
            mean = (dist * np.arange(dist.shape[2])).sum(axis=2)
            out[start] = R.START0 + mean.argmax(axis=1)
        return out

    def bid_or_call(self, obs: dict[str, np.ndarray], legal: np.ndarray) -> np.ndarray:
        """Action with the best expected value among menteur, vrai and every legal bid."""
        c, rules = self.config, self.game.rules
        b = legal.shape[0]
        rows = np.arange(b)
        dist = count_distribution(obs, rules, c["salad_p"])                # [B, F, V]
        vals = np.arange(dist.shape[2])
        m = obs["hand"][:, R.SALAD].astype(np.int64)[:, None]
        others = np.maximum(obs["in_round"].sum(axis=1) - 1, 1)[:, None]
        bid = obs["bid_count"].astype(np.int64)
        fruit = np.maximum(obs["bid_fruit"].astype(np.int64), 0)
        d = dist[rows, fruit]                                               # [B, V]
        t = vals[None, :]
        bb = bid[:, None]
        value = np.full((b, legal.shape[1]), -np.inf)
        # menteur: I declare no salads
        mine = np.where(t >= bb, -(t - bb + 1), 0.0)
        theirs = np.where(t < bb, (bb - t + 1), 0.0)
        value[:, R.MENTEUR] = (d * (mine + c["spite"] * theirs / others)).sum(axis=1)
        # vrai: my salads can close a gap of up to m
        gap = np.where(t > bb, t - bb, np.where(t < bb - m, bb - m - t, 0))
        value[:, R.VRAI] = (d * np.where(gap == 0, 1.0, -(gap + 1.0))).sum(axis=1)
        # bids: risk of being called with all my salads declared
        start = obs["start"].astype(np.int64)
        for raise_by in (1, 2):
            nb = (bid + raise_by)[:, None, None]
            short = nb - (vals[None, None, :] + m[:, :, None])              # [B, 1, V]
            loss = (dist * np.where(short > 0, short + 1.0, 0.0)).sum(axis=2)  # [B, F]
            f = np.arange(R.NUM_FRUITS)
            steps = (f[None, :] - fruit[:, None]) % R.NUM_FRUITS
            dist_s = (start[:, None] - fruit[:, None]) % R.NUM_FRUITS
            crosses = (f[None, :] != fruit[:, None]) & (dist_s >= 1) & (dist_s <= steps)
            ids = (raise_by - 1) * R.NUM_FRUITS + f
            value[:, ids] = -c["p_call"] * loss - c["token_risk"] * crosses
        value = np.where(legal, value, -np.inf)
        return value.argmax(axis=1)
