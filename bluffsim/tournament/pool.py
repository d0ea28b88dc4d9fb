"""Pools: more agents than seats, played as a round robin of lineups (Axelrod's tournament
for multi-player games).

```toml
[[pool]]                 # instead of [[seats]]: any number >= players of entries
agent = "heuristic"      # same keys as [[seats]]: agent, label, params
[run]
lineups = "combinations" # every players-subset of the pool (C(K, P) lineups), or
lineups = 40             # 40 lineups, each a seeded random players-subset of the pool
```

Each lineup is seated with the run's seating cycle (``rotate`` / ``permute`` / ``seating``) (and
``duplicate`` deals), see ``bluffsim.tournament.schedule``.  Sampled lineup ``l`` is
the ``P`` pool entries with the smallest ``word(seed, POOL_STREAM, l, k)``, so it
depends only on the master seed (lineups may repeat).  The summary, head-to-head
and Bradley–Terry ratings cover the whole pool; the ratings are what make agents
comparable across lineups they did not share.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from bluffsim import rng

POOL_STREAM = rng.Stream.POOL
MAX_LINEUPS = 100_000
MAX_POOL = 200


def lineups_of(exp: Any) -> tuple[tuple[int, ...], ...] | None:
    """The lineups (sorted pool indices) an experiment plays, or None without a pool."""
    if getattr(exp, "lineups", None) is None:
        return None
    k, p = len(exp.seats), exp.players
    if exp.lineups == "combinations":
        return tuple(itertools.combinations(range(k), p))
    keys = rng.words(np.uint64(exp.seed), POOL_STREAM, np.arange(exp.lineups, dtype=np.uint64)[:, None],
                     np.arange(k, dtype=np.uint64)[None, :])
    picks = np.sort(np.argsort(keys, axis=1, kind="stable")[:, :p], axis=1)
    return tuple(tuple(int(x) for x in row) for row in picks)


def check_pool(exp: Any) -> str | None:
    """None if the pool settings fit, else what is wrong (for ``ConfigError``)."""
    k, p = len(exp.seats), exp.players
    if exp.lineups is None:
        return None
    if exp.lineups == "combinations":
        n = math.comb(k, p) if k >= p else 0
        if n > MAX_LINEUPS:
            return (f"run.lineups = \"combinations\" gives C({k}, {p}) = {n:,} lineups (at most "
                    f"{MAX_LINEUPS:,}); give a number of sampled lineups instead")
    elif not (isinstance(exp.lineups, int) and not isinstance(exp.lineups, bool)
              and 1 <= exp.lineups <= MAX_LINEUPS):
        return (f"run.lineups = {exp.lineups!r} is invalid; allowed: \"combinations\" or an "
                f"integer 1..{MAX_LINEUPS}")
    if not p <= k <= MAX_POOL:
        return (f"the [[pool]] has {k} agents for players = {exp.players}; a pool needs at "
                f"least as many agents as seats (at most {MAX_POOL})")
    return None
