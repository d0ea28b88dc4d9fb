"""qdv ``counting``: the compiled decisions (``counting_kernel.decide_kernel``) equal the numpy
reference (``QdvCounting.act_reference``) action for action, and its floating-point building
blocks equal numpy's bit for bit."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import agents
import bluffsim
from agents.combinatorics import LOG_CHOOSE
from agents.qdv import counting as C
from agents.qdv import counting_kernel as K
from bluffsim.games.qdv import rules as R
from bluffsim.rng import AgentRNG

NUMPY_TABLES: dict = {}  # the numpy reference's memo tables, filled by numpy only


@contextmanager
def own_tables() -> Iterator[None]:
    """Run the numpy reference on memo tables of its own (``NUMPY_TABLES``)."""
    saved = C._TABLES
    C._TABLES = NUMPY_TABLES
    try:
        yield
    finally:
        C._TABLES = saved


def reference(agent: C.QdvCounting, obs: dict[str, np.ndarray], mask: np.ndarray) -> np.ndarray:
    """The numpy reference's actions, on its own memo tables."""
    with own_tables():
        return agent.act_reference(obs, mask)


LINEUPS = {
    "counting": lambda p: [("counting", {})] * p,
    "mixed": lambda p: ([("counting", {}), ("heuristic", {}), ("random", {}),
                         ("counting", {"evidence": False}),
                         ("counting", {"spite": 0.0, "elim_cost": 0.5, "token_risk": 0.5}),
                         ("heuristic", {"exact_window": 0.0})] * 2)[:p],
}


@pytest.mark.parametrize("players, lineup, options", [
    (2, "counting", {}), (2, "mixed", {}), (3, "mixed", {"challenge_deck": ()}), (4, "counting", {}),
    (4, "mixed", {}), (5, "mixed", {}), (6, "counting", {"challenge_deck": ()}), (6, "mixed", {}),
])
def test_compiled_actions_equal_the_numpy_reference_on_played_games(players, lineup, options):
    """Every seat's compiled action equals its numpy reference's on every live row of games
    played to the end (each counting seat is compared on every row, whoever moves)."""
    game = bluffsim.make("qdv", num_players=players, **options)
    seats = [agents.make(name, game, **params) for name, params in LINEUPS[lineup](players)]
    counting = [s for s in seats if isinstance(s, C.QdvCounting)]
    st_ = game.init(np.arange(96, dtype=np.uint64) + 101 * players)
    compared = bids = 0
    while not st_.done.all():
        obs = game.observe(st_)
        mask = st_.legal_action_mask
        live = ~st_.done
        rng = AgentRNG(st_.seed, st_.current_player, st_.num_decisions)
        for agent in counting:
            got = agent.act(obs, mask, rng)
            want = reference(agent, obs, mask)
            np.testing.assert_array_equal(got[live], want[live])
        compared += int(live.sum()) * len(counting)
        bids += int((live & (obs["phase"] == R.PHASE_BID)).sum()) * len(counting)
        acts = np.zeros(st_.batch_size, np.int64)
        for s, agent in enumerate(seats):
            acts = np.where(st_.current_player == s, agent.act(obs, mask, rng), acts)
        game.step(st_, np.where(live, acts, -1))
    assert compared > 2000 and bids > 1000


@pytest.mark.parametrize("players", [2, 4, 6])
def test_compiled_actions_equal_the_reference_on_random_tallies_and_stakes(players):
    """On observations whose public tallies, tokens and salads are redrawn at random (so the
    bid-evidence tilts, call rates and stakes take many values), the actions agree."""
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
        np.testing.assert_array_equal(agent.act(fake, mask, None)[live],
                                      reference(agent, fake, mask)[live])
        compared += int((live & (obs["phase"] == R.PHASE_BID)).sum())
        rng = AgentRNG(st_.seed, st_.current_player, st_.num_decisions)
        acts = np.where(st_.current_player % 2 == 0, agent.act(obs, mask, rng),
                        heuristic.act(obs, mask, rng))
        game.step(st_, np.where(live, acts, -1))
    assert compared > 1000


@given(n1=st.integers(0, 5), n2=st.integers(0, 2), n3=st.integers(0, 1), ns=st.integers(0, 4),
       other=st.integers(0, 40), h=st.integers(0, 30), face_up=st.integers(0, 4),
       step=st.integers(0, C.SALAD_STEPS))
def test_compiled_memo_row_equals_numpy_distribution(n1, n2, n3, ns, other, h, face_up, step):
    """``hidden_value_row`` (one class tuple, compiled) equals ``hidden_value_distribution``
    (numpy, batched) bit for bit."""
    total = n1 + n2 + n3 + ns + other
    classes = np.array([[n1, n2, n3, ns, total, min(h, total), face_up]], np.int64)
    salad_p = step / C.SALAD_STEPS
    width = 21
    want = C.hidden_value_distribution(classes, salad_p, width)[0]
    got = np.empty(width)
    comp = (n1 + 1) * (n2 + 1) * (n3 + 1) * (ns + 1)
    K.hidden_value_row(LOG_CHOOSE, n1, n2, n3, ns, total, min(h, total), face_up, salad_p, got,
                       np.empty(comp), np.empty(comp, np.int64), np.empty(comp, np.int64),
                       np.empty(width))
    assert np.array_equal(got, want)


def test_memo_rows_filled_by_the_kernel_equal_numpy_rows():
    """After play, the compiled agent's memo rows equal the numpy memo's rows of the same class
    tuples (cdf and below, bit for bit)."""
    game = bluffsim.make("qdv", num_players=4)
    agent = agents.make("counting", game)
    st_ = game.init(np.arange(128, dtype=np.uint64))
    classes = []
    for _ in range(40):
        obs = game.observe(st_)
        classes.append(C.fruit_classes(obs, game.rules)[0])
        game.step(st_, np.where(st_.done, -1, agent.act(obs, st_.legal_action_mask, None)))
    classes = np.concatenate(classes)
    kernel_tables = C.memo_tables(game.rules)
    checked = np.zeros(len(kernel_tables), np.int64)
    with own_tables():
        for k, table in enumerate(kernel_tables):
            rows = table.lookup(table.keys(classes))
            seen = rows >= 0
            numpy_rows = C.count_table(game.rules, k / C.SALAD_STEPS).rows(classes[seen])
            numpy_table = C.count_table(game.rules, k / C.SALAD_STEPS)
            assert np.array_equal(table.cdf[rows[seen]], numpy_table.cdf[numpy_rows])
            assert np.array_equal(table.below[rows[seen]], numpy_table.below[numpy_rows])
            checked[k] = seen.sum()
    assert checked[0] > 1000 and checked[1:].sum() > 50


@pytest.mark.parametrize("n", [*range(1, 40), 127, 128, 129, 200, 256, 300, 1000, 4099])
def test_pairwise_sum_is_numpys_row_sum(n):
    """``pairwise_sum`` adds in numpy's pairwise order: the same bits as ``ndarray.sum``."""
    gen = np.random.default_rng(n)
    x = gen.normal(size=(16, n)) * gen.choice([1e-6, 1.0, 1e6], size=(16, n))
    want = x.sum(axis=1)
    got = np.array([K.pairwise_sum(row, 0, n) for row in x])
    assert np.array_equal(got, want)


def test_call_logit_is_the_references_and_a_dot_product():
    """The kernel's ``call_logit`` equals the reference's ``call_logit`` bit for bit, which is
    ``features @ CALL_WEIGHTS`` to rounding and gives a row the same bits alone as in a batch,
    on features shaped as the agent builds them."""
    gen = np.random.default_rng(0)
    feats = C.call_features(gen.uniform(0, 1, size=(4096, 6)), gen.uniform(0, 1, size=(4096, 1)),
                            gen.normal(0, 4, size=(4096, 6)))
    want = C.call_logit(feats)
    assert np.allclose(want, feats @ np.asarray(C.CALL_WEIGHTS), rtol=1e-12, atol=1e-12)
    assert np.array_equal(C.call_logit(feats[7:8]), want[7:8])
    got = np.array([[K.call_logit(*f, *C.CALL_WEIGHTS) for f in row] for row in feats])
    assert np.array_equal(got, want)
