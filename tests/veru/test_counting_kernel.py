"""veru ``counting``: the one compiled policy decides the same wherever it runs — as the fused
loop calls it on the record it fills from the engine, and as ``act`` on the batched observation,
on the whole batch or on any subset of its rows — and its floating-point building blocks equal
numpy's (``agents.linear``, ``agents.combinatorics``) bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import bluffsim
from agents.combinatorics import LOG_CHOOSE, hypergeom_pmf
from agents.linear import linear
from agents.veru import counting as C
from bluffsim.games.veru import rules as R
from bluffsim.rng import AgentRNG
from tests.fused import policy_on_states
from tests.games import decision_steps

LINEUPS = {
    "counting": lambda p: [("counting", {})] * p,
    "mixed": lambda p: ([("counting", {}), ("heuristic", {}), ("random", {}),
                         ("counting", {"lie_margin": 0.5, "add_margin": 0.3}),
                         ("heuristic", {"bluff": 1.0, "trust": 1.0}),
                         ("counting", {"open_value": 0.5, "rival": 1.0, "lie_margin": -0.5})] * 2)[:p],
}


def model_rows(obs: dict[str, np.ndarray], live: np.ndarray) -> tuple[int, int]:
    """(respond rows, pad rows) among the running games: the rows the expected-value rules
    decide (a putting turn with a claim started and no true card left pads or stops)."""
    rows = np.arange(obs["phase"].shape[0])
    rank = np.maximum(obs["claim_rank"].astype(np.int64), 0)
    no_true = (obs["hand"][rows, rank] == 0) & (obs["hand"][:, R.JOKER] == 0)
    pad = live & (obs["phase"] == R.PHASE_PUT) & no_true & (obs["put_count"] > 0)
    return int((live & (obs["phase"] == R.PHASE_RESPOND)).sum()), int(pad.sum())


@pytest.mark.parametrize("players, lineup, options", [
    (3, "counting", {"jokers": 0}), (3, "mixed", {}), (4, "counting", {}), (4, "mixed", {"jokers": 0}),
    (5, "mixed", {"turn_order": "counterclockwise"}), (6, "counting", {}), (6, "mixed", {}),
])
def test_the_fused_policy_decides_as_act_on_played_games(players, lineup, options):
    """Every counting seat's policy, on the record the fused loop fills from the engine, makes
    the action ``act`` makes from the batched observation, a legal one, on every running row of
    played games (whoever moves; 800 steps, most games to the end)."""
    game = bluffsim.make("veru", num_players=players, **options)
    seats = [agents.make(name, game, **params) for name, params in LINEUPS[lineup](players)]
    counting = [(s, policy_on_states(game, C.counting_policy, s.params_row(), C.context()))
                for s in seats if isinstance(s, C.VeruCounting)]
    st_ = game.init(np.arange(48, dtype=np.uint64) + 101 * players)
    responds = pads = rows = 0
    for obs, mask, rng, live in decision_steps(game, st_, 800):
        for agent, fused in counting:
            got = agent.act(obs, mask, rng)
            np.testing.assert_array_equal(fused(st_)[live], got[live])
            assert mask[np.flatnonzero(live), got[live]].all()
        r, p = model_rows(obs, live)
        responds, pads, rows = responds + r, pads + p, rows + int(live.sum())
        acts = np.zeros(st_.batch_size, np.int64)
        for s, agent in enumerate(seats):
            acts = np.where(st_.current_player == s, agent.act(obs, mask, rng), acts)
        game.step(st_, np.where(live, acts, -1))
    assert st_.done.sum() > 10
    assert rows > 3000 and responds > 1000 and pads > 100


@pytest.mark.parametrize("players", [3, 4, 6])
def test_a_row_decides_the_same_in_any_batch_on_random_tallies(players):
    """On observations whose public tallies, Banks, hand sizes and hidden discards are redrawn
    at random (so every model input takes many values), every row decides the same taken with
    the whole batch and within random row subsets of 1-9 rows (a row's bits must not depend on
    the batch around it), and the model probabilities of a row are those of the batch."""
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
        whole = agent.act(fake, mask, rng)
        probs = C.model_rows(fake, game.rules)[0]
        r, q = model_rows(fake, live)
        responds, pads = responds + r, pads + q
        for size in range(1, 10):
            rows = np.sort(gen.choice(b, size=size, replace=False))
            sub = {k: v[rows] for k, v in fake.items()}
            sub_rng = AgentRNG(st_.seed[rows], st_.current_player[rows], st_.num_decisions[rows])
            np.testing.assert_array_equal(agent.act(sub, mask[rows], sub_rng), whole[rows])
            np.testing.assert_array_equal(C.model_rows(sub, game.rules)[0], probs[rows])
        acts = np.where(st_.current_player % 2 == 0, agent.act(obs, mask, rng),
                        heuristic.act(obs, mask, rng))
        game.step(st_, np.where(live, acts, -1))
    assert responds > 1000 and pads > 50


@pytest.mark.parametrize("m", [5, 14, 20])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 7, 31, 1024, 20001])
def test_linear_is_a_dot_product_whose_rows_do_not_depend_on_the_batch(m, n):
    """``agents.linear`` (the models' weighted sums) is ``features @ weights`` to rounding,
    gives every row the same bits alone as in a batch of ``n`` (BLAS does not), and the
    policy's ``linear_row`` equals it bit for bit, for the three models' sizes."""
    gen = np.random.default_rng(1000 * m + n)
    x = gen.normal(size=(n, m)) * gen.choice([1e-3, 1.0, 1e3], size=(n, m))
    w = gen.normal(size=m) * gen.choice([1e-2, 1.0, 10.0], size=m)
    got = linear(x, w)
    assert np.allclose(got, x @ w, rtol=1e-12, atol=1e-9)
    rows = np.unique(gen.integers(0, n, size=min(n, 40)))
    assert np.array_equal(np.concatenate([linear(x[i:i + 1], w) for i in rows]), got[rows])
    assert np.array_equal(np.array([C.linear_row(x[i], w, m) for i in rows]), got[rows])


def test_compiled_smooth_pmf_equals_numpy():
    """The policy's ``smooth_pmf`` (exp of log-binomials, linear between a fractional fitting
    count's integer neighbours) equals numpy's ``hypergeom_pmf`` so interpolated, on a grid of
    pools, fractional fitting counts, draws and values, bit for bit."""
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
        lo = np.floor(goods[sel])
        w = goods[sel] - lo
        lo = lo.astype(np.int64)
        want = ((1 - w) * hypergeom_pmf(pools[sel], lo, draws[sel], x)
                + w * hypergeom_pmf(pools[sel], lo + 1, draws[sel], x))
        got = np.array([C.smooth_pmf(LOG_CHOOSE, int(pl), g, int(d), x)
                        for pl, g, d in zip(pools[sel], goods[sel], draws[sel], strict=True)])
        assert np.array_equal(got, want) and sel.sum() > 300
