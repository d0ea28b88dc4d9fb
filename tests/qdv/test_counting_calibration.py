"""Calibration of the qdv counting agent's beliefs against the truth, per opponent type.

Scripted scenarios: a 2-player round (``scenario``, random hands and centre)
where the opponent has just made its first bid with its real policy (random or
heuristic); and my posterior of the bid fruit's card count
(``P(T >= k)`` for every threshold) is set against the true count in belief
bins.  The opponent's public bid tally is the one its own policy produces on
these deals (its mean own support behind a bid), which is what the online
behaviour model reads.

Logged games: counting against random and against heuristic tables at 2 and 4
players (``experiments/fit_qdv_counting.logged``); at every bidding decision of
the counting seat, its belief that the standing bid's card count holds
(``P(T >= b)``) against the truth read from the state, grouped by the type of
the seat that made the standing bid.

The beliefs are the compiled policy's own (``counting.model_rows`` runs the functions it
decides with).

Tolerances: every belief bin with at least ``MIN_BIN`` samples must have its mean
belief within ``TOL`` of the observed frequency (the binomial standard error of
a bin of 100 is at most 0.05).
"""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.qdv import counting as C
from agents.qdv.common import VALUE
from bluffsim.games.qdv import rules as R
from bluffsim.games.qdv.reference import scenario
from bluffsim.games.qdv.vec import QdvGame
from bluffsim.rng import AgentRNG
from tests.scripts import load_script

TOL = 0.10
MIN_BIN = 100

F = load_script("fit_qdv_counting.py")

def bins_ok(belief: np.ndarray, truth: np.ndarray) -> list[tuple]:
    """Calibration rows that break the tolerance (empty when calibrated)."""
    rows = F.calibration_table(belief, truth.astype(float), bins=10)
    return [r for r in rows if r[2] >= MIN_BIN and abs(r[3] - r[4]) > TOL]


def scripted(opponent: str, deals: int = 600, seed: int = 3):
    """(beliefs, truths, posterior means, true counts): P(T >= k), k = 1..14, of the bid fruit
    over scripted deals where the opponent bid first."""
    rules = R.Rules.from_options(num_players=2)
    rng = np.random.default_rng(seed)
    states = []
    for _ in range(deals):
        cards = [R.KIND_NAMES[k] for k in rng.permutation(np.asarray(rules.deck))]
        centre = next(c for c in cards[18:] if c != "salad")
        _, s = scenario([cards[:9], cards[9:18]], centre, [9, 9], dealer=1,
                        seed=int(rng.integers(1 << 30)))
        states.append(s)
    game = QdvGame(rules)
    st = game.from_reference(states)
    agent = agents.make(opponent, game)
    obs = game.observe(st)
    assert (obs["seat"] == 0).all()
    act = agent.act(obs, st.legal_action_mask, AgentRNG(st.seed, st.current_player,
                                                         st.num_decisions))
    game.step(st, act)
    keep = np.flatnonzero((act < R.VRAI) & (st.current_player == 1) & (st.phase == R.PHASE_BID))
    me = {k: v[keep] for k, v in game.observe(st).items()}
    fruit = me["bid_fruit"].astype(np.int64)
    n = keep.size
    # the opponent's public record: its own support behind the bids it makes on these deals
    own = (st.hands[keep, 0].astype(np.int64) @ VALUE)[np.arange(n), fruit]
    tally = me["bid_tally"].copy()
    tally[:, 0, 0] = 40
    tally[:, 0, 4] = int(round(40 * own.mean()))
    me["bid_tally"] = tally
    truth = F.true_counts(st, keep)[np.arange(n), fruit]
    model = C.model_rows(game, me)
    pmf, values = F.bid_fruit_counts(model, me)
    ks = np.arange(1, 15)
    belief = np.stack([(pmf * (values >= k)).sum(axis=1) for k in ks], axis=1)
    return belief.ravel(), (truth[:, None] >= ks[None, :]).ravel(), model["mean"][np.arange(n),
                                                                                 fruit], truth


@pytest.mark.parametrize("opponent", ["random", "heuristic"])
def test_scripted_bid_posterior_is_calibrated(opponent):
    belief, truth, mean, count = scripted(opponent)
    assert belief.size > 1000
    assert bins_ok(belief, truth) == []
    assert abs(mean.mean() - count.mean()) < 0.25


def test_scripted_heuristic_bid_is_evidence():
    """A heuristic's bid raises the bid fruit's expected count; the prior alone misses it."""
    _, _, mean, count = scripted("heuristic")
    _, _, mean_r, count_r = scripted("random")
    assert count.mean() > count_r.mean() + 0.5       # the heuristic's bids do reflect its hand
    assert mean.mean() > mean_r.mean() + 0.5          # and the posterior follows


@pytest.fixture(scope="module")
def logs():
    out = {}
    for players in (2, 4):
        for opp in ("random", "heuristic"):
            lineup = [("counting", {})] + [(opp, {})] * (players - 1)
            out[players, opp] = F.logged(players, lineup, 60, 11 + players)
    return out


@pytest.mark.parametrize("opponent", ["random", "heuristic"])
def test_logged_bid_truth_beliefs_are_calibrated(logs, opponent):
    beliefs, truths = [], []
    for (_, opp), d in logs.items():
        if opp != opponent:
            continue
        b, t = F.true_beliefs(d)
        sel = np.concatenate(d["bidder_type"]) == opponent
        beliefs.append(b[sel])
        truths.append(t[sel])
    belief, truth = np.concatenate(beliefs), np.concatenate(truths)
    assert belief.size > 500
    assert bins_ok(belief, truth) == []
