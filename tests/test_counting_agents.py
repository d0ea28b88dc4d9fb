"""veru and legumes counting agents: their probabilities equal brute-force enumeration."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from agents.combinatorics import hypergeom_pmf, log_choose
from agents.legumes import counting as LC
from agents.policy import observation_records
from agents.veru.counting import next_holds_fitting
from bluffsim.games.legumes import rules as LR
from bluffsim.games.legumes.reference import scenario as legumes_scenario
from bluffsim.games.legumes.vec import LegumesGame
from bluffsim.games.veru import rules as VR


@pytest.mark.parametrize("pool, good, draws, x", [
    (10, 3, 4, 1), (10, 3, 4, 2), (9, 5, 3, 3), (12, 0, 5, 0), (7, 7, 2, 2), (8, 2, 8, 2)])
def test_veru_hypergeometric_pmf_matches_enumeration(pool, good, draws, x):
    cards = [1] * good + [0] * (pool - good)
    subsets = list(itertools.combinations(range(pool), draws))
    want = sum(sum(cards[i] for i in s) == x for s in subsets) / len(subsets)
    got = hypergeom_pmf(np.array([pool]), np.array([good]), np.array([draws]), x)[0]
    assert got == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("rank, next_hand", [(0, 1), (0, 3), (5, 2), (7, 4)])
def test_veru_next_holds_fitting_matches_enumeration(rank, next_hand):
    """Unseen: 2, 2, 7, 9, 9, J, Q, K; the next player (seat 2) holds ``next_hand`` of them
    (no claim on the table: all eight are in the hands' pool)."""
    rules = VR.Rules.from_options(num_players=3, jokers=0)
    unseen = [0, 0, 5, 7, 7, 9, 10, 11]
    hand = np.full(VR.NUM_TYPES, 4, np.int64)
    hand[VR.JOKER] = 0
    for t in unseen:
        hand[t] -= 1
    zeros = np.zeros((1, VR.NUM_TYPES), np.int8)
    obs = {"hand": hand[None], "my_table": zeros, "my_bank": zeros, "discard_seen": zeros,
           "discard_hidden": np.zeros(1, np.int8), "claim_rank": np.array([rank], np.int8),
           "claim_count": np.array([1], np.int8), "claimant": np.array([-1], np.int8),
           "seat": np.array([1], np.int8), "out": np.zeros((1, 3), bool),
           "hand_sizes": np.array([[44, 8 - next_hand, next_hand]], np.int8)}
    held = list(itertools.combinations(unseen, next_hand))
    want = sum(any(t == rank for t in h) for h in held) / len(held)
    assert next_holds_fitting(obs, rules, step=1)[0] == pytest.approx(want, abs=1e-12)


def test_legumes_truth_probability_matches_enumeration():
    small = dict(numbers=(1, 1, 0), hand_size=2)     # 12 vegetables, tiny hands
    hands = [["carrot-1", "tomato-2", "bomb", "choice", "reverse", "double"],
             ["leek-1", "pea-2", "bomb", "choice", "reverse", "double"]]
    ref, s = legumes_scenario(hands, ["cabbage-1", "radish-2"], opener=0, **small)
    ref.apply(s, "open tomato-2 leek")                # seat 0 claims a leek
    game = LegumesGame(ref.rules)
    obs = game.observe(game.from_reference([s]))
    assert obs["seat"][0] == 1
    pool = np.empty(LR.NUM_TYPES, np.int64)
    u = LC.unseen_pool(observation_records(game, obs)[0], LC.context(ref.rules)[0], pool)
    cards = [t for t in range(LR.NUM_TYPES) for _ in range(int(pool[t]))]
    h = int(obs["hand_sizes"][0, 0]) + 1               # seat 0's hand before its card
    leeks = {LR.CARD_NAMES.index(f"leek-{n}") for n in (1, 2, 3)}
    got = LC.held_probability(u, sum(int(pool[t]) for t in leeks), h)  # the feature ``hold``
    subsets = list(itertools.combinations(range(len(cards)), h))
    want = sum(any(cards[i] in leeks for i in sub) for sub in subsets) / len(subsets)
    assert got == pytest.approx(want, abs=1e-12)
    assert 0 < got < 1
    # the feature the model reads picks that owner and vegetable
    features = LC.claim_model(game, obs)[0]
    assert np.exp(features[0, LC.FEATURES.index("log_hold")]) == pytest.approx(want, abs=1e-12)


def test_log_choose_table_matches_math_comb():
    from math import comb, log

    n = np.array([0, 1, 5, 52, 52, 7, 3, -2, 255])
    k = np.array([0, 1, 2, 13, 0, 8, -1, 0, 128])
    want = [log(comb(a, b)) if 0 <= b <= a else -np.inf for a, b in zip(n, k, strict=True)]
    np.testing.assert_allclose(log_choose(n, k), want, rtol=1e-12)
