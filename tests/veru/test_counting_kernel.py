"""veru ``counting``: the compiled decisions (``counting_kernel.decide_kernel``) equal the numpy
reference (``VeruCounting.act_reference``) action for action, its probabilities equal the
numpy models' bit for bit, and its floating-point building blocks equal numpy's."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import bluffsim
from agents.linear import linear
from agents.veru import counting as C
from agents.veru import counting_kernel as K
from agents.veru.heuristic import VeruHeuristic
from bluffsim.games.veru import rules as R
from bluffsim.rng import AgentRNG
from tests.games import decision_steps

LINEUPS = {
    "counting": lambda p: [("counting", {})] * p,
    "mixed": lambda p: ([("counting", {}), ("heuristic", {}), ("random", {}),
                         ("counting", {"lie_margin": 0.5, "add_margin": 0.3}),
                         ("heuristic", {"bluff": 1.0, "trust": 1.0}),
                         ("counting", {"open_value": 0.5, "rival": 1.0, "lie_margin": -0.5})] * 2)[:p],
}


def model_probabilities(agent: C.VeruCounting, obs: dict[str, np.ndarray],
                        mask: np.ndarray) -> np.ndarray:
    """float64[B, 3]: the numpy models' probabilities laid out as ``decide_rows`` writes them
    (respond rows: claim true, next doubts one card; pad rows: next doubts now, padded)."""
    rules = agent.game.rules
    b = obs["phase"].shape[0]
    probs = np.full((b, 3), np.nan)
    resp = np.flatnonzero(obs["phase"] == R.PHASE_RESPOND)
    if resp.size:
        sub = agent.subset(obs, resp)
        probs[resp, 0] = C.claim_probability(sub, rules)
        probs[resp, 1] = C.doubt_probability(sub, rules, np.ones(resp.size, np.int64), rules.step)
    heur = VeruHeuristic(agent.game, bluff=0.0).act(
        obs, mask, AgentRNG(np.zeros(b, np.uint64), np.zeros(b, np.int64), np.zeros(b, np.uint64)))
    stop = np.flatnonzero((obs["phase"] == R.PHASE_PUT) & (heur == R.DONE))
    if stop.size:
        sub = agent.subset(obs, stop)
        k = sub["claim_count"].astype(np.int64)
        probs[stop, 1] = C.doubt_probability(sub, rules, k, rules.step)
        probs[stop, 2] = C.doubt_probability(sub, rules, k + 1, rules.step)
    return probs


def assert_same(agent: C.VeruCounting, obs: dict[str, np.ndarray], mask: np.ndarray,
                rng: AgentRNG | None = None) -> tuple[int, int]:
    """Compiled and numpy actions equal on every row, and the probabilities bit for bit;
    returns (respond rows, pad rows) compared."""
    probs = np.full((obs["phase"].shape[0], 3), np.nan)
    got = agent.decide_rows(obs, probs)
    np.testing.assert_array_equal(got, agent.act_reference(obs, mask, rng))
    np.testing.assert_array_equal(agent.act(obs, mask, rng), got)
    want = model_probabilities(agent, obs, mask)
    np.testing.assert_array_equal(probs, want)   # NaN where no model ran, in both
    return (int((obs["phase"] == R.PHASE_RESPOND).sum()),
            int((~np.isnan(want[:, 2])).sum()))


@pytest.mark.parametrize("players, lineup, options", [
    (3, "counting", {"jokers": 0}), (3, "mixed", {}), (4, "counting", {}), (4, "mixed", {"jokers": 0}),
    (5, "mixed", {"turn_order": "counterclockwise"}), (6, "counting", {}), (6, "mixed", {}),
])
def test_compiled_actions_equal_the_numpy_reference_on_played_games(players, lineup, options):
    """Every counting seat's compiled action equals its numpy reference's on every row of played
    games (whoever moves; 800 steps, most games to the end), and its claim and doubt
    probabilities bit for bit."""
    game = bluffsim.make("veru", num_players=players, **options)
    seats = [agents.make(name, game, **params) for name, params in LINEUPS[lineup](players)]
    counting = [s for s in seats if isinstance(s, C.VeruCounting)]
    st_ = game.init(np.arange(48, dtype=np.uint64) + 101 * players)
    responds = pads = rows = 0
    for obs, mask, rng, live in decision_steps(game, st_, 800):
        for agent in counting:
            r, p = assert_same(agent, obs, mask, rng)
            responds, pads = responds + r, pads + p
        rows += int(live.sum())
        acts = np.zeros(st_.batch_size, np.int64)
        for s, agent in enumerate(seats):
            acts = np.where(st_.current_player == s, agent.act(obs, mask, rng), acts)
        game.step(st_, np.where(live, acts, -1))
    assert st_.done.sum() > 10
    assert rows > 3000 and responds > 1000 and pads > 100


@pytest.mark.parametrize("players", [3, 4, 6])
def test_compiled_actions_equal_the_reference_on_random_tallies_and_subsets(players):
    """On observations whose public tallies, Banks, hand sizes and hidden discards are redrawn
    at random (so every model input takes many values), taken whole and as random row subsets
    of 1-9 rows (a row's bits must not depend on the batch around it), the actions and probabilities
    agree."""
    game = bluffsim.make("veru", num_players=players)
    agent = agents.make("counting", game)
    heuristic = agents.make("heuristic", game)
    gen = np.random.default_rng(players)
    st_ = game.init(np.arange(256, dtype=np.uint64) + 7)
    responds = pads = 0
    for obs, mask, rng, live in decision_steps(game, st_, 40):
        b, p = obs["hand_sizes"].shape
        fake = {k: v.copy() for k, v in obs.items()}
        for key in ("claims_checked", "claims", "checks"):
            fake[key] = gen.integers(0, 25, size=obs[key].shape).astype(obs[key].dtype)
        fake["cards_claimed"] = (fake["claims"].sum(axis=2) * gen.uniform(1, 3, size=(b, p))).astype(
            np.int32)
        fake["bank_sizes"] = gen.integers(0, 6, size=(b, p)).astype(np.int8)
        fake["hand_sizes"] = np.maximum(obs["hand_sizes"] + gen.integers(-3, 4, size=(b, p)),
                                        0).astype(np.int8)
        fake["discard_hidden"] = gen.integers(0, 12, size=b).astype(np.int8)
        fake["num_rounds"] = gen.integers(0, 60, size=b).astype(np.int32)
        r, q = assert_same(agent, fake, mask)
        responds, pads = responds + r, pads + q
        for size in range(1, 10):
            rows = np.sort(gen.choice(b, size=size, replace=False))
            assert_same(agent, {k: v[rows] for k, v in fake.items()}, mask[rows])
        acts = np.where(st_.current_player % 2 == 0, agent.act(obs, mask, rng),
                        heuristic.act(obs, mask, rng))
        game.step(st_, np.where(live, acts, -1))
    assert responds > 1000 and pads > 50


@pytest.mark.parametrize("m", [5, 14, 20])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 7, 31, 1024, 20001])
def test_linear_is_a_dot_product_whose_rows_do_not_depend_on_the_batch(m, n):
    """``agents.linear`` (the models' weighted sums) is ``features @ weights`` to rounding,
    gives every row the same bits alone as in a batch of ``n`` (BLAS does not), and the
    kernel's ``linear_row`` equals it bit for bit, for the three models' sizes."""
    gen = np.random.default_rng(1000 * m + n)
    x = gen.normal(size=(n, m)) * gen.choice([1e-3, 1.0, 1e3], size=(n, m))
    w = gen.normal(size=m) * gen.choice([1e-2, 1.0, 10.0], size=m)
    got = linear(x, w)
    assert np.allclose(got, x @ w, rtol=1e-12, atol=1e-9)
    rows = np.unique(gen.integers(0, n, size=min(n, 40)))
    assert np.array_equal(np.concatenate([linear(x[i:i + 1], w) for i in rows]), got[rows])
    assert np.array_equal(np.array([K.linear_row(x[i], w, m) for i in rows]), got[rows])


def test_compiled_smooth_pmf_equals_numpy():
    """The per-row ``smooth_pmf`` (exp of log-binomials) equals numpy's on a grid of pools,
    fractional fitting counts, draws and values, bit for bit."""
    pools, goods, draws, xs = [], [], [], []
    gen = np.random.default_rng(3)
    for pool in range(1, 60):
        for _ in range(20):
            pools.append(pool)
            goods.append(gen.uniform(0, pool))
            draws.append(int(gen.integers(0, pool + 1)))
            xs.append(int(gen.integers(0, 3)))
    pools, goods, draws = np.array(pools), np.array(goods), np.array(draws)
    for x in range(3):
        sel = np.array(xs) == x
        want = C.smooth_pmf(pools[sel], goods[sel], draws[sel], x)
        got = np.array([K.smooth_pmf(C.LOG_CHOOSE, int(pl), g, int(d), x)
                        for pl, g, d in zip(pools[sel], goods[sel], draws[sel], strict=True)])
        assert np.array_equal(got, want) and sel.sum() > 300
