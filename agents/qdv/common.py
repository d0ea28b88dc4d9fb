"""What qdv agents derive from an observation: visible fruit values and the unseen pool.

Everything here reads the structured observation only (``bluffsim.games.qdv.observe``).

| quantity        | shape   | meaning                                                        |
|-----------------|---------|----------------------------------------------------------------|
| `known`         | [B, F]  | visible value per fruit: my hand, others' face-up cards, the centre |
| `my_salads`     | [B]     | salads in my hand                                              |
| `others_salads` | [B]     | salads face up in the other players' hands                     |
| `unseen_kinds`  | [B, K]  | cards of each kind not visible to me (others' hidden cards + undealt) |
| `hidden_cards`  | [B]     | cards in the other players' hands that I cannot see            |
"""

from __future__ import annotations

import numpy as np

from bluffsim.games.qdv import rules as R

KIND_FRUIT = np.asarray(R.KIND_FRUIT)
KIND_MULT = np.asarray(R.KIND_MULT)
# [K, F]: value of one card of each kind towards each fruit (salads: 0, declared apart)
VALUE = np.zeros((R.NUM_KINDS, R.NUM_FRUITS), dtype=np.int64)
for _k in range(R.NUM_KINDS - 1):
    VALUE[_k, KIND_FRUIT[_k]] = KIND_MULT[_k]
VALUE_F = VALUE.astype(np.float64)  # for BLAS matrix products


def deck_counts(rules: R.Rules) -> np.ndarray:
    """int64[K]: cards of each kind in the rules' deck."""
    return np.bincount(np.asarray(rules.deck), minlength=R.NUM_KINDS)


def centre_values(obs: dict[str, np.ndarray]) -> np.ndarray:
    """int64[B, F]: what the centre card adds to each fruit (a centre salad is the start fruit)."""
    centre = obs["centre"].astype(np.int64)
    b = centre.shape[0]
    out = VALUE[np.clip(centre, 0, R.NUM_KINDS - 1)].copy()
    salad = centre == R.SALAD
    start = obs["start"].astype(np.int64)
    rows = np.flatnonzero(salad & (start >= 0))
    out[salad] = 0
    out[rows, start[rows]] = 1
    return out.reshape(b, R.NUM_FRUITS)


def seat_sum(x: np.ndarray) -> np.ndarray:
    """int16[B, K]: ``x`` (int8[B, P, K]) summed over seats (slice adds: a reduction over
    the short seat axis is several times slower in numpy)."""
    out = x[:, 0].astype(np.int16)
    for p in range(1, x.shape[1]):
        out += x[:, p]
    return out


def visible(obs: dict[str, np.ndarray], rules: R.Rules) -> dict[str, np.ndarray]:
    """Known fruit values, salads, unseen cards per kind and hidden hand cards (table above)."""
    b = obs["hand"].shape[0]
    seat = np.maximum(obs["seat"].astype(np.int64), 0)
    rows = np.arange(b)
    hand = obs["hand"].astype(np.int16)
    others_revealed = seat_sum(obs["revealed"]) - obs["revealed"][rows, seat]
    seen = hand + others_revealed + seat_sum(obs["discarded"])
    seen[rows, np.maximum(obs["centre"].astype(np.int64), 0)] += 1
    unseen = np.maximum(deck_counts(rules)[None, :] - seen, 0)
    sizes = obs["hand_sizes"].astype(np.int64)
    hidden_cards = (sizes @ np.ones(sizes.shape[1], np.int64) - sizes[rows, seat]
                    - others_revealed.astype(np.float64) @ np.ones(R.NUM_KINDS))
    known = ((hand + others_revealed).astype(np.float64) @ VALUE_F).astype(np.int64)
    return {"known": known + centre_values(obs), "my_salads": hand[:, R.SALAD].astype(np.int64),
            "others_salads": others_revealed[:, R.SALAD].astype(np.int64),
            "unseen_kinds": unseen,
            "hidden_cards": np.maximum(hidden_cards, 0).astype(np.int64)}
