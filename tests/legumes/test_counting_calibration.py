"""legumes ``counting`` beliefs against the truth (issue 15): per opponent type, binned.

Logged games (``experiments/fit_legumes_counting.py:logged_claims``, seeds apart
from the fit's) record, at every decision where the counting seat may accuse,
its belief that the last face-down card is the called vegetable (and that it is
the Bomb) and what the card really is, for four tables: counting against random,
heuristic, heuristic ``accuse_rate=0`` and heuristic ``accuse_at=1`` players.

Stated tolerances:
- pooled over the four owner types, in every belief bin (width 0.2) holding at
  least ``MIN_BIN`` claims: |mean belief - truth rate| <= ``TOL_POOLED`` (0.12);
- per owner type, the Bomb belief's mean within ``TOL_BOMB`` (0.03) of the Bomb
  rate, and the truth belief's mean within ``TOL_TYPE`` (0.25) of the truth rate.
  The per-type tolerance is wide on purpose: most claims come in a game's first
  two rounds, before any accusation against their owner, so the public tallies
  cannot yet tell a random player (true 14% of the time whatever it holds) from
  a rule-based one (true almost exactly when it holds the vegetable); beliefs
  then sit between the two.  What the model must do per type is pinned instead:
  against rule-based owners it ranks claims almost perfectly (AUC), against random
  owners it is far closer to the truth than the old single hypergeometric term.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.scripts import load_script

F = load_script("fit_legumes_counting.py")

TOL_POOLED, TOL_TYPE, TOL_BOMB, MIN_BIN = 0.12, 0.25, 0.03, 150
BINS = np.linspace(0, 1, 6)
CASES = {
    "random": ([F.COUNTING, F.RANDOM, F.RANDOM], 400),
    "heuristic": ([F.COUNTING, F.HEURISTIC, F.HEURISTIC], 400),
    "heuristic accuse_rate=0.0": ([F.COUNTING] + [("heuristic", {"accuse_rate": 0.0})] * 3, 300),
    "heuristic accuse_at=1": ([F.COUNTING, ("heuristic", {"accuse_at": 1})], 500),
}


@pytest.fixture(scope="module")
def logs() -> dict[str, dict[str, np.ndarray]]:
    return {owner: F.logged_claims(lineup, games, seed=777_000 + 10 * i,
                                   observers={"counting"})
            for i, (owner, (lineup, games)) in enumerate(CASES.items())}


def auc(score: np.ndarray, label: np.ndarray) -> float:
    """Area under the ROC curve (ties counted half)."""
    pos, neg = score[label], score[~label]
    order = np.argsort(np.concatenate([pos, neg]), kind="stable")
    ranks = np.empty(order.size)
    ranks[order] = np.arange(1, order.size + 1)
    return float((ranks[: pos.size].sum() - pos.size * (pos.size + 1) / 2) / (pos.size * neg.size))


def test_truth_belief_is_calibrated_pooled_over_owner_types_per_bin(logs):
    belief = np.concatenate([d["beliefs"][d["owner"] == o, 0] for o, d in logs.items()])
    truth = np.concatenate([d["outcome"][d["owner"] == o] == 0 for o, d in logs.items()])
    bins = np.clip(np.digitize(belief, BINS) - 1, 0, len(BINS) - 2)
    checked = 0
    for k in range(len(BINS) - 1):
        sel = bins == k
        if sel.sum() >= MIN_BIN:
            checked += 1
            gap = abs(belief[sel].mean() - truth[sel].mean())
            assert gap <= TOL_POOLED, (k, int(sel.sum()), belief[sel].mean(), truth[sel].mean())
    assert checked == len(BINS) - 1


@pytest.mark.parametrize("owner", list(CASES))
def test_truth_belief_per_owner_type(logs, owner):
    d = logs[owner]
    m = d["owner"] == owner
    belief, truth = d["beliefs"][m, 0], d["outcome"][m] == 0
    assert m.sum() > 1000
    assert abs(belief.mean() - truth.mean()) <= TOL_TYPE, (belief.mean(), truth.mean())
    if owner != "random":       # rule-based: true when it holds the vegetable; ranked well
        assert auc(belief, truth) > 0.9


@pytest.mark.parametrize("owner", list(CASES))
def test_bomb_belief_is_calibrated_per_owner_type(logs, owner):
    d = logs[owner]
    m = d["owner"] == owner
    bomb, is_bomb = d["beliefs"][m, 2], d["outcome"][m] == 2
    assert abs(bomb.mean() - is_bomb.mean()) <= TOL_BOMB, (bomb.mean(), is_bomb.mean())


def test_the_model_beats_the_single_hypergeometric_term_against_random(logs):
    # the old counting: the owner plays the called vegetable whenever it holds one
    d = logs["random"]
    m = d["owner"] == "random"
    truth = (d["outcome"][m] == 0).mean()
    hold = 1 / (1 + np.exp(-d["features"][m, 1]))     # FEATURES[1] is logit(hold)
    assert hold.mean() - truth > 0.3                    # the 0.5-0.95 against 0.11-0.14
    assert abs(d["beliefs"][m, 0].mean() - truth) < 0.5 * (hold.mean() - truth)
