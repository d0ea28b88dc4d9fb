"""Calibration of the veru ``counting`` agent's beliefs against the truth, per opponent type.

Logged games (4 and 5 players, rotated seatings of counting, random, the default heuristic
and the always-bluffing heuristic): at every answer to a claim, the counting model's belief,
from the answering seat's observation, that the claim on the table is true
(``claim_probability``; the counting seat itself only ever answers its neighbour) is
binned by fifths and compared with the share of those claims that were true (read from
the state, which the agent never sees).  The same for the doubt model: the probability,
from the claimant's observation, that the next player disbelieves, against what it did.

Tolerances (bins with at least ``MIN_ROWS`` rows):
- all claims pooled: every bin within ``TOL_ALL`` of its truth;
- per claimant type, once the claimant has a public record (``RECORD`` checked claims;
  before that a seat is judged as the mixture's average, which cannot be right for every
  type at once): every bin within ``TOL_TYPE``, the mean within ``TOL_MEAN``.  The
  largest gaps (measured when the tolerances were set): the always-bluffing heuristic is
  under-believed — its claims, true 35% of the time once it has a record, are believed
  20% on average (bins 0.07 / 0.23, 0.48 / 0.67, 0.68 / 0.88); random's claims are
  believed 5% and true 5%.  Counting, which adds to most claims, has few checked claims
  of its own, so it may have no bin of ``MIN_ROWS`` rows;
- the doubt model: pooled, every bin within ``TOL_DOUBT_ALL`` (its middle bin measured
  0.50 predicted / 0.60 done: the model was fitted while counting played with
  ``rival`` 0.3, and counting's own answers moved when the default became 0.6); per
  answering type, the mean within ``TOL_MEAN``.  Its per-type bins are not pinned: they
  are off by up to 0.3 where the same answering rule meets different claimants (the
  heuristic answering another heuristic's claims doubts more than predicted) — the
  model sees the answerer's rates, not who it is answering.
"""

from __future__ import annotations

import numpy as np
import pytest

import agents
import bluffsim
from agents.veru.counting import claim_probability, doubt_probability
from bluffsim.games.veru import rules as R
from bluffsim.rng import AgentRNG

LINEUP = [("counting", {}), ("random", {}), ("heuristic", {}), ("heuristic", {"bluff": 1.0})]
TYPES = ["counting", "random", "heuristic", "heuristic bluff=1"]
MIN_ROWS = 100
RECORD = 3
TOL_ALL = 0.10
TOL_TYPE = 0.25
TOL_MEAN = 0.18
TOL_DOUBT_ALL = 0.12


def play_logged(players: int, games: int, seed: int) -> dict[str, np.ndarray]:
    """Beliefs of the counting seat and the truth, with the claimant's type; and the doubt
    model's prediction at every claim and whether the answer was ``disbelieve``."""
    game = bluffsim.make("veru", num_players=players)
    lineup = [agents.make(n, game, **p) for n, p in LINEUP]
    types = np.array([i % len(LINEUP) for i in range(players)])
    seat_type = np.stack([np.roll(types, g % players) for g in range(games)])
    st = game.init(np.arange(games, dtype=np.uint64) + seed)
    rows_all = np.arange(games)
    log: dict[str, list[np.ndarray]] = {k: [] for k in ("p", "truth", "claimant", "d", "doubted",
                                                         "answerer", "record", "answers")}
    while not st.done.all():
        live = ~st.done
        who = seat_type[rows_all, np.maximum(st.current_player.astype(np.int64), 0)]
        obs = game.observe(st)
        actions = st.legal_action_mask.argmax(axis=1)
        for j, agent in enumerate(lineup):
            idx = np.flatnonzero(live & (who == j))
            if idx.size:
                rng = AgentRNG(st.seed[idx], st.current_player[idx], st.num_decisions[idx])
                actions[idx] = agent.act({k: v[idx] for k, v in obs.items()},
                                         st.legal_action_mask[idx], rng)
        answer = np.flatnonzero(live & (obs["phase"] == R.PHASE_RESPOND))
        if answer.size:
            table = st.table[answer].astype(np.int64)
            rank = st.claim_rank[answer].astype(np.int64)[:, None]
            truth = ((table < 0) | (table == rank) | (table == R.JOKER)).all(axis=1)
            claimant = seat_type[answer, st.claimant[answer].astype(np.int64)]
            sub = {k: v[answer] for k, v in obs.items()}
            log["p"].append(claim_probability(sub, game.rules))
            log["truth"].append(truth)
            log["claimant"].append(claimant)
            cl = st.claimant[answer].astype(np.int64)
            log["record"].append(obs["claims_checked"][answer, cl].sum(axis=1))
            me = st.current_player[answer].astype(np.int64)
            log["answers"].append(obs["checks"][answer, me].sum(axis=1) + obs["claims"][answer, me, 1])
            saved = st.current_player.copy()
            st.current_player[answer] = st.claimant[answer]
            cobs = game.observe(st)
            st.current_player[:] = saved
            csub = {k: v[answer] for k, v in cobs.items()}
            log["d"].append(doubt_probability(csub, game.rules, csub["claim_count"].astype(np.int64),
                                              game.rules.step))
            log["doubted"].append(actions[answer] == R.DISBELIEVE)
            log["answerer"].append(who[answer])
        game.step(st, np.where(live, actions, -1))
    return {k: np.concatenate(v) for k, v in log.items()}


@pytest.fixture(scope="module")
def logged() -> dict[str, np.ndarray]:
    parts = [play_logged(4, 160, 7001), play_logged(5, 100, 7002)]
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def calibration(belief: np.ndarray, outcome: np.ndarray) -> list[tuple[int, float, float]]:
    """(rows, mean belief, share true) per fifth of the belief."""
    bins = np.minimum((belief * 5).astype(int), 4)
    return [(int((bins == i).sum()), float(belief[bins == i].mean()), float(outcome[bins == i].mean()))
            for i in range(5) if (bins == i).any()]


def check_bins(table: list[tuple[int, float, float]], tol: float, what: str,
               need: bool = True) -> None:
    """Every bin with at least ``MIN_ROWS`` rows within ``tol`` (and at least one such bin
    when ``need``)."""
    big = [(n, b, t) for n, b, t in table if n >= MIN_ROWS]
    assert big or not need, (what, table)
    for _n, b, t in big:
        assert abs(b - t) <= tol, (what, table)


def test_claim_belief_is_calibrated_over_all_claims(logged):
    check_bins(calibration(logged["p"], logged["truth"].astype(np.float64)), TOL_ALL, "all")


@pytest.mark.parametrize("kind", range(len(TYPES)))
def test_claim_belief_is_calibrated_per_claimant_type(logged, kind):
    m = (logged["claimant"] == kind) & (logged["record"] >= RECORD)
    belief, truth = logged["p"][m], logged["truth"][m].astype(np.float64)
    assert m.sum() >= 150, f"too few claims by {TYPES[kind]}"
    table = calibration(belief, truth)
    assert abs(belief.mean() - truth.mean()) <= TOL_MEAN, (TYPES[kind], table)
    check_bins(table, TOL_TYPE, TYPES[kind], need=TYPES[kind] != "counting")


def test_doubt_prediction_is_calibrated_over_all_answers(logged):
    check_bins(calibration(logged["d"], logged["doubted"].astype(np.float64)), TOL_DOUBT_ALL, "all")


@pytest.mark.parametrize("kind", range(len(TYPES)))
def test_doubt_prediction_mean_is_calibrated_per_answering_type(logged, kind):
    m = logged["answerer"] == kind
    d, doubted = logged["d"][m], logged["doubted"][m].astype(np.float64)
    table = calibration(d, doubted)
    assert m.sum() >= 300, f"too few answers by {TYPES[kind]}"
    assert abs(d.mean() - doubted.mean()) <= TOL_MEAN, (TYPES[kind], table)


def test_random_claims_believed_likely_are_rarely_what_the_old_model_said(logged):
    """The issue's symptom: 'p >= 0.8' claims by a random claimant were true 15% of the
    time.  Now such beliefs are rare against random (under 3% of its claims)."""
    m = logged["claimant"] == 1
    assert (logged["p"][m] >= 0.8).mean() < 0.03
