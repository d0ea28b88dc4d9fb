"""qdv ``counting``: the compiled policy's decisions and building blocks against independent
truths.  Each decision is the first best action of expected values that equal the expected
values summed directly over the model's beliefs (stakes, spite, salads, token risk, the call
model); the memo rows are the exact hypergeometric distributions of their class tuples; the
memo is only a cache (cold tables, growing tables, one row alone or in a batch: the same
actions); the floating-point building blocks add in the order they state."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from math import comb, fsum

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import agents
import bluffsim
from agents.combinatorics import LOG_CHOOSE
from agents.policy import observation_records
from agents.qdv import counting as C
from agents.qdv import counting_kernel as K
from agents.qdv.common import VALUE
from agents.qdv.heuristic import declare_salads
from bluffsim.games.qdv import rules as R
from bluffsim.rng import AgentRNG


@contextmanager
def cold_tables() -> Iterator[None]:
    """Run on empty memo tables of their own (filled and grown from scratch)."""
    saved = C._TABLES
    C._TABLES = {}
    try:
        yield
    finally:
        C._TABLES = saved


def stake(loss, tokens, elim_cost):
    """``min(loss, tokens)`` plus ``elim_cost`` if the loss eliminates (module docstring)."""
    return np.minimum(loss, tokens) + elim_cost * ((loss >= tokens) & (loss > 0))


def next_seats(obs: dict[str, np.ndarray]) -> np.ndarray:
    """int[B]: the next seat in turn order still in the round."""
    out = obs["seat"].astype(np.int64).copy()
    for i in range(out.size):
        p = obs["in_round"].shape[1]
        for k in range(1, p):
            cand = (int(obs["seat"][i]) + int(obs["direction"][i]) * k) % p
            if obs["in_round"][i, cand]:
                out[i] = cand
                break
    return out


def direct_values(agent: C.QdvCounting, obs: dict[str, np.ndarray], legal: np.ndarray,
                  model: dict[str, np.ndarray]) -> np.ndarray:
    """float[B, A]: the expected value of every legal bidding action (-inf elsewhere) as the
    module docstring states it, summed directly over the model's posterior (``pmf``), called
    posterior (``called``) and the logistic call model, in numpy."""
    c = agent.config
    game = agent.game
    b = legal.shape[0]
    rows = np.arange(b)
    seat = obs["seat"].astype(np.int64)
    tokens = obs["tokens"].astype(float)
    mine = tokens[rows, seat][:, None]
    m = obs["hand"][:, R.SALAD].astype(np.int64)[:, None]
    spite = c["spite"] / np.maximum(obs["in_round"].sum(axis=1) - 1, 1)[:, None]
    ec = c["elim_cost"]
    bid = obs["bid_count"].astype(np.int64)[:, None]
    fruit = np.maximum(obs["bid_fruit"].astype(np.int64), 0)
    theirs = tokens[rows, np.maximum(obs["bidder"].astype(np.int64), 0)][:, None]
    counts = model["known"][..., None] + np.arange(model["pmf"].shape[-1])       # [B, F, W]
    t, pmf = counts[rows, fruit], model["pmf"][rows, fruit]
    value = np.full(legal.shape, -np.inf)
    v_m = np.where(t >= bid, -stake(t - bid + 1, mine, ec), spite * stake(bid - t + 1, theirs, ec))
    value[:, R.MENTEUR] = (model["called"] * v_m).sum(axis=1)
    exact = (t <= bid) & (t >= bid - m)
    v_v = np.where(exact, 1.0, -stake(np.where(t > bid, t - bid, bid - m - t) + 1, mine, ec))
    value[:, R.VRAI] = (pmf * v_v).sum(axis=1)
    # the call model's features: 1, logit P(bid false), logit of the next seat's call rate,
    # the bid minus the next seat's view of my posterior mean
    nxt = next_seats(obs)
    calls = obs["call_tally"][rows, nxt].astype(float)
    rate = ((calls[:, R.MENTEUR_RIGHT] + calls[:, R.MENTEUR_WRONG]
             + C.CALL_RATE_WEIGHT * C.CALL_RATE_PRIOR)
            / (calls.sum(axis=1) + obs["bid_tally"][rows, nxt, 0] + C.CALL_RATE_WEIGHT))

    def logit(p):
        p = np.clip(p, 1e-4, 1 - 1e-4)
        return np.log(p / (1 - p))

    m1, _ = C.card_moments(game.rules)
    seen_next = (model["mean"] - obs["hand"].astype(float) @ VALUE
                 + obs["hand_sizes"][rows, seat][:, None] * m1)
    start = obs["start"].astype(np.int64)
    for a in range(2 * R.NUM_FRUITS):
        f, raise_by = a % R.NUM_FRUITS, a // R.NUM_FRUITS + 1
        target = bid[:, 0] + raise_by - m[:, 0]
        short = counts[:, f] < target[:, None]
        p_false = (model["pmf"][:, f] * short).sum(axis=1)
        feats = np.stack([np.ones(b), logit(p_false), logit(rate),
                          bid[:, 0] + raise_by - seen_next[:, f]], axis=1)
        np.testing.assert_allclose(model["features"][:, a], feats, rtol=1e-9, atol=1e-9)
        p_call = 1 / (1 + np.exp(-(feats @ np.asarray(C.CALL_WEIGHTS))))
        loss = (model["pmf"][:, f] * np.where(short, stake(target[:, None] - counts[:, f] + 1,
                                                           mine, ec), 0.0)).sum(axis=1)
        to_start = (start - fruit) % R.NUM_FRUITS
        crosses = (f != fruit) & (to_start >= 1) & (to_start <= (f - fruit) % R.NUM_FRUITS)
        risk = c["token_risk"] * crosses * stake(1.0, mine[:, 0], ec)
        value[:, a] = -p_call * loss - risk
    return np.where(legal, value, -np.inf)


def check_decisions(agent: C.QdvCounting, obs: dict[str, np.ndarray], legal: np.ndarray,
                    live: np.ndarray) -> tuple[int, int]:
    """Check the agent's action on every live row against the truth of its phase; returns
    (rows checked, bidding rows)."""
    game = agent.game
    got = agent.act(obs, legal, None)
    phase = obs["phase"]
    # salads as the heuristic declares them; the exact-call reward punishes the nearest
    # opponent after me left with 1 token, else gains 1
    records = observation_records(game, obs)
    for i in np.flatnonzero(live & (phase == R.PHASE_SALADS)):
        assert got[i] == declare_salads(records[i])
    for i in np.flatnonzero(live & (phase == R.PHASE_REWARD)):
        p, me = obs["tokens"].shape[1], int(obs["seat"][i])
        want = next((game.rules.punish0 + k - 1 for k in range(1, p)
                     if obs["tokens"][i, (me + k) % p] == 1
                     and legal[i, game.rules.punish0 + k - 1]), game.rules.gain_id)
        assert got[i] == want
    counted = np.flatnonzero(live & ((phase == R.PHASE_BID) | (phase == R.PHASE_START)))
    sub = {k: v[counted] for k, v in obs.items()}
    model = C.model_rows(game, sub, legal[counted], **agent.config)
    start = sub["phase"] == R.PHASE_START
    # the start: the fruit with the largest expected count
    np.testing.assert_array_equal(got[counted[start]],
                                  R.START0 + model["mean"][start].argmax(axis=1))
    # bidding: the first best of the policy's expected values, which are the direct sums
    bidding = ~start
    na = game.num_actions
    values = model["values"][bidding]
    np.testing.assert_array_equal(got[counted[bidding]], values.argmax(axis=1))
    sel = {k: v[bidding] for k, v in sub.items()}
    want = direct_values(agent, sel, legal[counted[bidding], :na],
                         {k: v[bidding] for k, v in model.items()})
    np.testing.assert_array_equal(np.isfinite(values), np.isfinite(want))
    np.testing.assert_allclose(values[np.isfinite(want)], want[np.isfinite(want)], rtol=1e-9,
                               atol=1e-9)
    return int(live.sum()), int(bidding.sum())


LINEUPS = {
    "counting": lambda p: [("counting", {})] * p,
    "mixed": lambda p: ([("counting", {}), ("heuristic", {}), ("random", {}),
                         ("counting", {"evidence": False}),
                         ("counting", {"spite": 0.0, "elim_cost": 0.5, "token_risk": 0.5}),
                         ("heuristic", {"exact_window": 0.0})] * 2)[:p],
}


@pytest.mark.slow  # (tests/conftest.py's SLOW_TESTS named its numpy-reference predecessor)
@pytest.mark.parametrize("players, lineup, options", [
    (2, "counting", {}), (2, "mixed", {}), (3, "mixed", {"challenge_deck": ()}), (4, "counting", {}),
    (4, "mixed", {}), (5, "mixed", {}), (6, "counting", {"challenge_deck": ()}), (6, "mixed", {}),
])
def test_decisions_are_the_best_expected_values_on_played_games(players, lineup, options):
    """On every live row of games played to the end, every counting seat's action (whoever
    moves) is the rule of its phase; a bid or call the first best of expected values equal to
    the direct sums over its beliefs (``direct_values``).  The memo is a cache: on cold tables
    that grow as they fill, and one row at a time, the actions are the same."""
    game = bluffsim.make("qdv", num_players=players, **options)
    seats = [agents.make(name, game, **params) for name, params in LINEUPS[lineup](players)]
    counting = list({repr(sorted(s.config.items())): s for s in seats  # one per configuration
                     if isinstance(s, C.QdvCounting)}.values())
    st_ = game.init(np.arange(96, dtype=np.uint64) + 101 * players)
    compared = bids = turn = 0
    while not st_.done.all():
        obs = game.observe(st_)
        mask = st_.legal_action_mask
        live = ~st_.done
        rng = AgentRNG(st_.seed, st_.current_player, st_.num_decisions)
        for agent in counting:
            n, nb = check_decisions(agent, obs, mask, live)
            compared += n
            bids += nb
        warm = counting[0].act(obs, mask, rng)
        if turn % 7 == 0:
            with cold_tables():
                np.testing.assert_array_equal(counting[0].act(obs, mask, rng)[live], warm[live])
            for i in np.flatnonzero(live)[:8]:
                one = {k: v[i:i + 1] for k, v in obs.items()}
                assert counting[0].act(one, mask[i:i + 1], None)[0] == warm[i]
        turn += 1
        acts = np.zeros(st_.batch_size, np.int64)
        for s, agent in enumerate(seats):
            acts = np.where(st_.current_player == s, agent.act(obs, mask, rng), acts)
        game.step(st_, np.where(live, acts, -1))
    assert compared > 2000 and bids > 1000


@pytest.mark.parametrize("players", [2, 4, 6])
def test_decisions_are_the_best_expected_values_on_random_tallies_and_stakes(players):
    """On observations whose public tallies, tokens and salads are redrawn at random (so the
    bid-evidence tilts, call rates and stakes take many values), the decisions are still the
    best expected values of the direct sums."""
    game = bluffsim.make("qdv", num_players=players)
    agent = agents.make("counting", game)
    heuristic = agents.make("heuristic", game)
    gen = np.random.default_rng(players)
    st_ = game.init(np.arange(256, dtype=np.uint64) + 7)
    compared = 0
    for _ in range(30):
        obs = game.observe(st_)
        mask = st_.legal_action_mask
        live = ~st_.done
        fake = dict(obs)
        b, p = obs["tokens"].shape
        bids = gen.integers(0, 30, size=(b, p))
        tally = obs["bid_tally"].copy()
        tally[:, :, 0] = bids
        tally[:, :, 4] = (bids * gen.uniform(0, 3, size=(b, p))).astype(tally.dtype)
        fake["bid_tally"] = tally
        fake["call_tally"] = gen.integers(0, 12, size=obs["call_tally"].shape).astype(
            obs["call_tally"].dtype)
        fake["tokens"] = np.where(obs["tokens"] > 0, gen.integers(1, 4, size=(b, p)),
                                  0).astype(obs["tokens"].dtype)
        hand = obs["hand"].copy()
        hand[:, R.SALAD] = np.minimum(hand[:, R.SALAD], gen.integers(0, 3, size=b))
        fake["hand"] = hand
        compared += check_decisions(agent, fake, mask, live)[1]
        rng = AgentRNG(st_.seed, st_.current_player, st_.num_decisions)
        acts = np.where(st_.current_player % 2 == 0, agent.act(obs, mask, rng),
                        heuristic.act(obs, mask, rng))
        game.step(st_, np.where(live, acts, -1))
    assert compared > 1000


def exact_hidden_pmf(n1: int, n2: int, n3: int, ns: int, total: int, h: int, face_up: int,
                     q: float, width: int) -> np.ndarray:
    """float[W]: the hidden value of ``h`` cards drawn from the pool (fruit ×1, ×2, ×3,
    salads, the rest), each drawn or face-up salad counting with probability ``q``, values
    ``>= W - 1`` folded into the last bin: exact integer binomials, one correctly rounded
    division each, summed exactly (``fsum``)."""
    other = total - n1 - n2 - n3 - ns
    draws = comb(total, h)
    terms: list[list[float]] = [[] for _ in range(width)]
    for k1 in range(n1 + 1):
        for k2 in range(n2 + 1):
            for k3 in range(n3 + 1):
                for ks in range(ns + 1):
                    rest = h - k1 - k2 - k3 - ks
                    if not 0 <= rest <= other:
                        continue
                    p = comb(n1, k1) * comb(n2, k2) * comb(n3, k3) * comb(ns, ks) * comb(other,
                                                                                        rest)
                    s = ks + face_up
                    for j in range(s + 1):
                        terms[min(k1 + 2 * k2 + 3 * k3 + j, width - 1)].append(
                            p / draws * comb(s, j) * q**j * (1 - q) ** (s - j))
    return np.array([fsum(t) for t in terms])


@given(n1=st.integers(0, 5), n2=st.integers(0, 2), n3=st.integers(0, 1), ns=st.integers(0, 4),
       other=st.integers(0, 40), h=st.integers(0, 30), face_up=st.integers(0, 4),
       step=st.integers(0, C.SALAD_STEPS))
def test_compiled_memo_row_is_the_exact_distribution(n1, n2, n3, ns, other, h, face_up, step):
    """``hidden_value_row`` (one class tuple, what the memo stores) equals the exact
    hypergeometric distribution of the hidden value."""
    total = n1 + n2 + n3 + ns + other
    salad_p = step / C.SALAD_STEPS
    width = 21
    want = exact_hidden_pmf(n1, n2, n3, ns, total, min(h, total), face_up, salad_p, width)
    got = np.empty(width)
    comp = (n1 + 1) * (n2 + 1) * (n3 + 1) * (ns + 1)
    K.hidden_value_row(LOG_CHOOSE, n1, n2, n3, ns, total, min(h, total), face_up, salad_p, got,
                       np.empty(comp), np.empty(comp, np.int64), np.empty(comp, np.int64),
                       np.empty(width), width)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def memo_entries(table: C.CountTable) -> tuple[np.ndarray, np.ndarray]:
    """(class tuples int64[N, 7], memo rows int64[N]) of every tuple stored in ``table``."""
    slots = np.flatnonzero(table.gkeys >= 0)
    slot, inner = np.nonzero(table.buckets[slots] >= 0)
    keys = table.gkeys[slots[slot]] * table.inner + inner
    rows = table.buckets[slots[slot], inner].astype(np.int64)
    classes = (keys[:, None] // table.strides[None, :]) % table.radix[None, :]
    return classes, rows


def test_memo_rows_filled_by_the_policy_are_exact():
    """After play, every memo row the policy filled (a sample of each table: cdf and below)
    is the exact distribution of its class tuple, and each tuple's key is its own."""
    game = bluffsim.make("qdv", num_players=4)
    agent = agents.make("counting", game)
    st_ = game.init(np.arange(128, dtype=np.uint64))
    with cold_tables():
        for _ in range(40):
            obs = game.observe(st_)
            game.step(st_, np.where(st_.done, -1, agent.act(obs, st_.legal_action_mask, None)))
        tables = C.memo_tables(game.rules)
        gen = np.random.default_rng(0)
        checked = np.zeros(len(tables), np.int64)
        for k, table in enumerate(tables):
            classes, rows = memo_entries(table)
            assert np.array_equal(np.sort(rows), np.arange(table.size))
            for i in gen.permutation(rows.size)[:150]:
                n1, n2, n3, ns, total, h, face_up = (int(x) for x in classes[i])
                pmf = exact_hidden_pmf(n1, n2, n3, ns, total, h, face_up, k / C.SALAD_STEPS,
                                       table.width)
                np.testing.assert_allclose(np.diff(table.cdf[rows[i]]), pmf, atol=1e-12)
                np.testing.assert_allclose(table.below[rows[i], 1:],
                                           np.cumsum(pmf * np.arange(table.width)), atol=1e-11)
                checked[k] += 1
    assert checked[0] == 150 and checked[1:].sum() > 50


@pytest.mark.parametrize("n", [1, 2, 7, 8, 9, 31, 129, 1000])
def test_ordered_sum_adds_first_to_last(n):
    """``ordered_sum`` adds in index order: the same bits as the last of ``np.cumsum``."""
    gen = np.random.default_rng(n)
    x = gen.normal(size=(16, n)) * gen.choice([1e-6, 1.0, 1e6], size=(16, n))
    got = np.array([K.ordered_sum(row, n) for row in x])
    assert np.array_equal(got, np.cumsum(x, axis=1)[:, -1])


def test_call_model_is_a_logistic_dot_product():
    """``p_call`` is the logistic of ``x0 w0 + x1 w1 + x2 w2 + x3 w3`` (``features @
    CALL_WEIGHTS`` to rounding), the same bits for a row alone as in a batch."""
    gen = np.random.default_rng(0)
    feats = np.stack([np.ones(4096), gen.normal(0, 3, 4096), gen.normal(0, 2, 4096),
                      gen.normal(0, 4, 4096)], axis=1)
    w = np.asarray(C.CALL_WEIGHTS)
    p = C.p_call(feats)
    np.testing.assert_allclose(p, 1 / (1 + np.exp(-(feats @ w))), rtol=1e-12)
    assert np.array_equal(C.p_call(feats[7:8]), p[7:8])
