"""α-Rank over a meta-game of head-to-head rates, and the cycles of its "beats" graph.

**The meta-game.**  Agents are the pure strategies; the payoff of ``i`` against ``j`` is the rate
at which ``i`` finished ahead of ``j`` in the games they sat in together (ties half;
``ratings.FinishOrders.head_to_head``), 0.5 against itself.  A pair that never met is filled
with the Bradley–Terry prediction from the agents' ratings when they are given, else 0.5.

**α-Rank** (Omidshafiei et al. 2019, single population): a population of ``m`` players of one
strategy; a mutant strategy appears (each other strategy with probability 1/(n−1)) and
takes over with the fixation probability of a Fermi process with selection intensity α

    ρ(r→s) = 1 / (1 + Σ_{l=1}^{m−1} Π_{k=1}^{l} exp(−α (f_s(k) − f_r(k))))

where with ``k`` mutants f_s(k) = ((k−1) M[s,s] + (m−k) M[s,r]) / (m−1) and f_r(k) =
(k M[r,s] + (m−k−1) M[r,r]) / (m−1).  The ranking is the stationary distribution of that
Markov chain over the pure strategies: the share of time the population spends playing each.
A strategy that beats every other gets (nearly) all the mass; a cycle (rock, paper,
scissors) shares it.  ``ALPHA`` is large (payoffs are rates in [0, 1]: a rate difference of
0.05 makes a better mutant fixate with probability ≈ 1 − e^(−5)), near the α → ∞ limit that
the paper recommends ranking by.  Fitness is population-wide (each player meets the whole
population), so this is OpenSpiel's ``egt.alpharank.compute(..., use_local_selection_model=
False)`` (a test checks they agree; it is not imported here because its module needs networkx).

**Cycles.**  ``i`` *beats* ``j`` when it finished ahead more than half the time with the 95%
interval over deals above 0.5.  Every strongly connected component of that directed graph
with two agents or more holds a cycle (A beats B beats C beats A: no ranking is transitive
there); ``cycles`` names, for each agent of such a component, its shortest cycle.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bluffsim.analysis.stats import BT_SCALE

ALPHA = 100.0        # selection intensity (payoffs: rates in [0, 1])
POPULATION = 50      # m, the population size


def meta_game(h2h: pd.DataFrame, agents: list[str] | None = None,
              ratings: pd.Series | None = None) -> pd.DataFrame:
    """The payoff matrix (rows: the agent, columns: its opponent) from ``h2h`` rows (agent,
    opponent, ahead); pairs that never met get the Bradley–Terry prediction of ``ratings``
    (400·log10 scale) when given, else 0.5; 0.5 on the diagonal."""
    names = list(agents) if agents is not None else list(dict.fromkeys(
        [*h2h["agent"], *h2h["opponent"]]))
    m = pd.DataFrame(np.nan, index=names, columns=names)
    for a, o, v in zip(h2h["agent"], h2h["opponent"], h2h["ahead"], strict=True):
        if a in m.index and o in m.columns:
            m.loc[a, o] = v
    r = (ratings.reindex(names).to_numpy(float) / BT_SCALE if ratings is not None
         else np.zeros(len(names)))
    predicted = 1.0 / (1.0 + np.exp(r[None, :] - r[:, None]))
    out = m.to_numpy(float)
    out = np.where(np.isfinite(out), out, np.where(np.isfinite(predicted), predicted, 0.5))
    np.fill_diagonal(out, 0.5)
    return pd.DataFrame(out, index=names, columns=names)


def fixation(payoff: np.ndarray, alpha: float = ALPHA, m: int = POPULATION) -> np.ndarray:
    """float[n, n]: the probability that one mutant of strategy ``s`` (column) takes over a
    population of ``r`` (row); the diagonal is 0."""
    payoff = np.asarray(payoff, float)
    n = payoff.shape[0]
    k = np.arange(1, m)[None, None, :]
    d = np.diag(payoff)
    f_s = ((k - 1) * d[None, :, None] + (m - k) * payoff.T[:, :, None]) / (m - 1)
    f_r = (k * payoff[:, :, None] + (m - k - 1) * d[:, None, None]) / (m - 1)
    s = np.cumsum(-alpha * (f_s - f_r), axis=2)          # log of the product up to l
    logs = np.concatenate([np.zeros((n, n, 1)), s], axis=2)
    rho = np.exp(-np.logaddexp.reduce(logs, axis=2))
    np.fill_diagonal(rho, 0.0)
    return rho


def stationary(payoff: np.ndarray, alpha: float = ALPHA, m: int = POPULATION) -> np.ndarray:
    """α-Rank's stationary distribution over the strategies of the symmetric meta-game
    ``payoff`` (row strategy's payoff against the column strategy)."""
    payoff = np.asarray(payoff, float)
    n = payoff.shape[0]
    if n == 1:
        return np.ones(1)
    chain = fixation(payoff, alpha, m) / (n - 1)
    chain[np.diag_indices(n)] = 1.0 - chain.sum(axis=1)
    a = chain.T - np.eye(n)
    a[-1] = 1.0                                           # Σ π = 1 replaces one equation
    b = np.zeros(n)
    b[-1] = 1.0
    pi = np.linalg.lstsq(a, b, rcond=None)[0]
    pi = np.clip(pi, 0.0, None)
    return pi / pi.sum()


def ranking(game: pd.DataFrame, alpha: float = ALPHA, m: int = POPULATION) -> pd.Series:
    """The stationary mass of each agent of the meta-game ``game`` (``meta_game``), largest
    first."""
    mass = pd.Series(stationary(game.to_numpy(float), alpha, m), index=game.index, name="mass")
    mass.index.name = "agent"
    return mass.sort_values(ascending=False)


def beats(h2h: pd.DataFrame) -> list[tuple[str, str]]:
    """(winner, loser) for every pair where the winner finished ahead more than half the time
    and the 95% interval (columns low, high) is above 0.5."""
    sure = h2h[(h2h["ahead"] > 0.5) & (h2h["low"] > 0.5)]
    return list(zip(sure["agent"], sure["opponent"], strict=True))


def cycles(edges: list[tuple[str, str]]) -> list[list[str]]:
    """The cycles of a directed "beats" graph: for every agent in a strongly connected component
    of two or more, its shortest cycle (agents in order, each beating the next and the last the
    first), each cycle once, shortest first."""
    names = sorted({a for e in edges for a in e})
    at = {a: i for i, a in enumerate(names)}
    n = len(names)
    adj = np.zeros((n, n), bool)
    for a, b in edges:
        adj[at[a], at[b]] = True
    reach = adj | np.eye(n, dtype=bool)
    while True:
        more = reach | ((reach.astype(np.int64) @ reach.astype(np.int64)) > 0)
        if (more == reach).all():
            break
        reach = more
    found: dict[tuple[int, ...], None] = {}
    for start in range(n):
        comp = reach[start] & reach[:, start]
        if comp.sum() < 2:
            continue
        # breadth first from start inside its component, back to start
        parent = {start: -1}
        frontier, path = [start], None
        while frontier and path is None:
            nxt = []
            for u in frontier:
                for v in np.flatnonzero(adj[u] & comp):
                    if v == start:
                        path = [u]
                        while parent[path[-1]] != -1:
                            path.append(parent[path[-1]])
                        break
                    if v not in parent:
                        parent[int(v)] = u
                        nxt.append(int(v))
                if path is not None:
                    break
            frontier = nxt
        if path is None:
            continue
        cyc = path[::-1]                                  # start … u, and u beats start
        first = int(np.argmin(cyc))
        found[tuple(cyc[first:] + cyc[:first])] = None
    return [[names[i] for i in c] for c in sorted(found, key=lambda c: (len(c), c))]


def cycle_text(cycle: list[str]) -> str:
    """``A > B > C > A`` (each beats the next)."""
    return " > ".join([*cycle, cycle[0]])


__all__ = ["ALPHA", "POPULATION", "beats", "cycle_text", "cycles", "fixation", "meta_game",
           "ranking", "stationary"]
