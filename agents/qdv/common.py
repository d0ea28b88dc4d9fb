"""What qdv agents share: each card kind's value towards each fruit and the deck's counts."""

from __future__ import annotations

import numpy as np

from bluffsim.games.qdv import rules as R

# [K, F]: value of one card of each kind towards each fruit (salads: 0, declared apart)
VALUE = np.zeros((R.NUM_KINDS, R.NUM_FRUITS), dtype=np.int64)
for _k in range(R.NUM_KINDS - 1):
    VALUE[_k, R.KIND_FRUIT[_k]] = R.KIND_MULT[_k]


def deck_counts(rules: R.Rules) -> np.ndarray:
    """int64[K]: cards of each kind in the rules' deck."""
    return np.bincount(np.asarray(rules.deck), minlength=R.NUM_KINDS)
