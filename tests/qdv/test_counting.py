"""The counting agent's count distribution equals brute-force enumeration on tiny deals."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from agents.qdv.counting import count_distribution
from bluffsim.games.qdv import rules as R
from bluffsim.games.qdv.reference import scenario
from bluffsim.games.qdv.vec import QdvGame

TINY = dict(fruit_multipliers=(1, 2), salads=2, challenge_deck=())


def comb_weight(s, j, q):
    from math import comb

    return comb(s, j) * q**j * (1 - q) ** (s - j)


@pytest.mark.parametrize("mine, theirs, centre", [
    (["grape", "apricot x2"], ["grape x2", "salad", "banana"], "cherry x2"),
    (["salad", "cherry"], ["strawberry", "strawberry x2", "cherry x2"], "banana x2"),
])
@pytest.mark.parametrize("q", [0.5, 0.25])
def test_distribution_matches_enumeration(mine, theirs, centre, q):
    ref, s = scenario([theirs, mine], centre, [3, 2], dealer=0, **TINY)
    obs = QdvGame(ref.rules).observe(QdvGame(ref.rules).from_reference([s]))
    assert obs["seat"][0] == 1
    got = count_distribution(obs, ref.rules, salad_p=q)[0]
    pool = list(ref.rules.deck)
    for name in [*mine, centre]:
        pool.remove(R.KIND_INDEX[name])
    want = np.zeros_like(got)
    subsets = list(itertools.combinations(range(len(pool)), len(theirs)))
    for sub in subsets:
        cards = Counter(pool[i] for i in sub)
        seen = cards + Counter(R.KIND_INDEX[x] for x in [*mine, centre] if x != "salad")
        for f in range(R.NUM_FRUITS):
            base = sum(n * R.KIND_MULT[k] for k, n in seen.items() if R.KIND_FRUIT[k] == f)
            for j in range(cards[R.SALAD] + 1):
                want[f, min(base + j, want.shape[1] - 1)] += (
                    comb_weight(cards[R.SALAD], j, q) / len(subsets))
    np.testing.assert_allclose(got, want, atol=1e-12)
    np.testing.assert_allclose(got.sum(axis=1), 1.0)
