"""The counting agent's beliefs (``counting.model_rows``: the compiled policy's own functions)
against independent truths: brute-force enumeration on tiny deals, direct sums over the
posterior, and the model as its docstring states it."""

from __future__ import annotations

import itertools
from collections import Counter
from math import comb

import numpy as np
import pytest

from agents.qdv import counting as C
from agents.qdv import counting_kernel as K
from bluffsim.games.qdv import rules as R
from bluffsim.games.qdv.reference import scenario
from bluffsim.games.qdv.vec import QdvGame

TINY = dict(fruit_multipliers=(1, 2), salads=2, challenge_deck=())


def comb_weight(s, j, q):
    return comb(s, j) * q**j * (1 - q) ** (s - j)


def count_pmf(model: dict[str, np.ndarray], cdf: np.ndarray, size: int) -> np.ndarray:
    """float[B, F, size]: ``P(T = v)`` from a cumulative table over ``H = T − known``."""
    pmf = np.diff(cdf, axis=-1)
    b, f, w = pmf.shape
    out = np.zeros((b, f, size))
    for i, j in itertools.product(range(b), range(f)):
        k = model["known"][i, j]
        out[i, j, k:k + w] = pmf[i, j, :size - k]
    return out


@pytest.mark.parametrize("mine, theirs, centre", [
    (["grape", "apricot x2"], ["grape x2", "salad", "banana"], "cherry x2"),
    (["salad", "cherry"], ["strawberry", "strawberry x2", "cherry x2"], "banana x2"),
])
@pytest.mark.parametrize("step", [0, 1, 2, 4])
def test_distribution_matches_enumeration(mine, theirs, centre, step):
    """The memo rows the policy reads (each fruit's count before any evidence, the others'
    salads counted with probability ``step / SALAD_STEPS``) equal the enumeration of every
    hand the other seat may hold; with no bid yet the posterior is the ``step`` 0 row."""
    ref, s = scenario([theirs, mine], centre, [3, 2], dealer=0, **TINY)
    game = QdvGame(ref.rules)
    obs = game.observe(game.from_reference([s]))
    assert obs["seat"][0] == 1
    q = step / C.SALAD_STEPS
    model = C.model_rows(game, obs, salad_step=step)
    size = 40
    got = count_pmf(model, model["prior"], size)[0]
    pool = list(ref.rules.deck)
    for name in [*mine, centre]:
        pool.remove(R.KIND_INDEX[name])
    want = np.zeros_like(got)
    subsets = list(itertools.combinations(range(len(pool)), len(theirs)))
    for sub in subsets:
        cards = Counter(pool[i] for i in sub)
        seen = cards + Counter(R.KIND_INDEX[x] for x in [*mine, centre] if x != "salad")
        for f in range(R.NUM_FRUITS):
            base = sum(n * R.KIND_MULT[k] for k, n in seen.items() if R.KIND_FRUIT[k] == f)
            for j in range(cards[R.SALAD] + 1):
                want[f, base + j] += comb_weight(cards[R.SALAD], j, q) / len(subsets)
    np.testing.assert_allclose(got, want, atol=1e-12)
    np.testing.assert_allclose(got.sum(axis=1), 1.0)
    if step == 0:
        np.testing.assert_array_equal(model["tilt"], 0.0)
        np.testing.assert_array_equal(model["cdf"], model["prior"])


def played(players: int, games: int,
           steps: int) -> tuple[QdvGame, dict[str, np.ndarray], np.random.Generator]:
    """A qdv engine, the observations of the games still on at every fifth of ``steps`` random
    decisions (of ``games`` games), and the generator that drew them (for further draws)."""
    game = QdvGame(R.Rules.from_options(num_players=players))
    rng = np.random.default_rng(players)
    st = game.init(np.arange(games, dtype=np.uint64))
    seen = []
    for i in range(steps):
        if i % 5 == 4:
            live = np.flatnonzero(~st.done)
            seen.append({k: v[live] for k, v in game.observe(st).items()})
        legal = st.legal_action_mask
        game.step(st, np.where(st.done, legal.argmax(axis=1),
                               (rng.random(legal.shape) * legal).argmax(axis=1)))
    return game, {k: np.concatenate([o[k] for o in seen]) for k in seen[0]}, rng


def stake(loss, tokens, elim_cost):
    """``min(loss, tokens)`` plus ``elim_cost`` if the loss eliminates (module docstring)."""
    return np.minimum(loss, tokens) + elim_cost * ((loss >= tokens) & (loss > 0))


@pytest.mark.parametrize("players", [2, 4, 6])
def test_posterior_gathers_equal_sums_over_the_pmf(players):
    """The policy's threshold queries (``gather``, ``shortfall``, ``short_cost``: gathers in
    the cumulative tables) equal direct sums over the posterior's pmf, stakes and elimination
    included; ``below`` and the mean are the pmf's."""
    game, obs, rng = played(players, games=32, steps=30)
    model = C.model_rows(game, obs)
    pmf, cdf, below, known = model["pmf"], model["cdf"], model["below"], model["known"]
    assert (model["tilt"] != 0).any()
    assert (pmf >= 0).all()
    np.testing.assert_allclose(pmf.sum(axis=-1), 1.0)
    u = np.arange(pmf.shape[-1])
    np.testing.assert_allclose(below[..., 1:], np.cumsum(pmf * u, axis=-1), atol=1e-12)
    counts = known[..., None] + u
    np.testing.assert_allclose(model["mean"], (pmf * counts).sum(-1), atol=1e-9)
    tokens = rng.integers(1, 8, size=len(known))
    w = cdf.shape[-1] - 1
    for b in range(0, len(known), max(len(known) // 40, 1)):
        for f in range(R.NUM_FRUITS):
            for t in range(0, 24, 2):
                short = counts[b, f] < t
                k = int(known[b, f])
                assert K.gather(cdf[b], f, k, t, w) == pytest.approx(pmf[b, f][short].sum(),
                                                                  abs=1e-12)
                assert K.shortfall(cdf[b], below[b], f, k, t, w) == pytest.approx(
                    (pmf[b, f] * np.where(short, t - counts[b, f] + 1, 0)).sum(), abs=1e-9)
                want = (pmf[b, f] * np.where(short, stake(t - counts[b, f] + 1, tokens[b], 3.0),
                                             0.0)).sum()
                got = K.short_cost(cdf[b], below[b], f, k, t, float(tokens[b]), 3.0, w)
                assert got == pytest.approx(want, abs=1e-9)


def docstring_tilts(game: QdvGame, obs: dict[str, np.ndarray]) -> np.ndarray:
    """float[B, F]: the bid-evidence tilt as the module docstring states it, in numpy."""
    rules = game.rules
    m1, v1 = C.card_moments(rules)
    first = min(rules.starting_tokens, (len(rules.deck) - 1) // rules.num_players)
    b, p = obs["tokens"].shape
    out = np.zeros((b, R.NUM_FRUITS))
    for i in range(b):
        me = int(obs["seat"][i])
        hidden = np.maximum(obs["hand_sizes"][i].astype(float)
                            - obs["revealed"][i].sum(axis=1), 0.0)
        hidden[me] = 0.0
        q = hidden / max(hidden.sum(), 1.0)
        bid_on = {(int(j), int(f)) for j, _, f in obs["bid_history"][i] if j >= 0 and j != me}
        for j, f in bid_on:
            bids, support = obs["bid_tally"][i, j, 0], obs["bid_tally"][i, j, 4]
            h = max((obs["hand_sizes"][i, j] + first) / 2, 1.0)
            beta_hat = C.BETA_SCALE * (support - bids * h * m1) / (h * v1)
            beta = np.clip((beta_hat + C.BETA_PRIOR_BIDS * C.BETA_PRIOR)
                           / (bids + C.BETA_PRIOR_BIDS), -1.0, 3.0)
            out[i, f] += np.log1p(q[j] * np.expm1(beta))
    return out


def tilted(prior_cdf: np.ndarray, tilt: np.ndarray) -> np.ndarray:
    """The pmf of ``prior_cdf`` (over ``H``) times ``exp(tilt · H)``, normalised."""
    pmf = np.diff(prior_cdf, axis=-1)
    w = pmf * np.exp(tilt[..., None] * np.arange(pmf.shape[-1]))
    return w / w.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("players", [2, 5])
def test_posterior_is_the_prior_tilted_by_the_bids(players):
    """The posterior of every fruit is its memo row (others' salads count 0) times
    ``exp(tilt · H)``, with the tilt of the module docstring (each seat's ``beta_j`` from its
    bid tally, summed over the seats that bid the fruit this round); without evidence it is
    the memo row."""
    game, obs, _ = played(players, games=64, steps=40)
    model = C.model_rows(game, obs)
    tilt = docstring_tilts(game, obs)
    assert (tilt != 0).sum() > 50
    np.testing.assert_allclose(model["tilt"], tilt, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(model["pmf"], tilted(model["prior"], tilt), atol=1e-12)
    plain = C.model_rows(game, obs, evidence=False)
    np.testing.assert_array_equal(plain["tilt"], 0.0)
    np.testing.assert_array_equal(plain["cdf"], plain["prior"])


@pytest.mark.parametrize("players", [2, 4, 6])
def test_called_posterior_counts_the_bidders_share_of_salads(players):
    """The called posterior of the bid fruit is the memo row whose salad probability is the
    bidder's share of the hidden cards (rounded to 1/``SALAD_STEPS``), tilted as the
    posterior."""
    game, obs, _ = played(players, games=64, steps=30)
    bidding = np.flatnonzero(obs["bidder"] >= 0)
    assert bidding.size > 40
    obs = {k: v[bidding] for k, v in obs.items()}
    model = C.model_rows(game, obs)
    n = bidding.size
    rows = np.arange(n)
    hidden = np.maximum(obs["hand_sizes"].astype(float) - obs["revealed"].sum(axis=2), 0.0)
    hidden[rows, obs["seat"].astype(np.int64)] = 0.0
    share = hidden[rows, obs["bidder"].astype(np.int64)] / np.maximum(hidden.sum(axis=1), 1.0)
    step = np.rint(share * C.SALAD_STEPS).astype(np.int64)
    assert len(set(step)) > 1
    fruit = obs["bid_fruit"].astype(np.int64)
    priors = np.stack([C.model_rows(game, obs, salad_step=k)["prior"][rows, fruit]
                       for k in range(C.SALAD_STEPS + 1)])
    want = tilted(priors[step, rows], model["tilt"][rows, fruit])
    np.testing.assert_allclose(model["called"], want, atol=1e-12)


def test_token_risk_is_the_share_of_token_cards_in_the_rules_deck():
    import agents

    assert agents.make("counting", QdvGame(R.Rules.from_options(num_players=3))).config[
        "token_risk"] == pytest.approx(2 / 12)
    assert agents.make("counting", QdvGame(R.Rules.from_options(
        num_players=3, challenge_deck=()))).config["token_risk"] == 0.0
    assert agents.make("counting", QdvGame(R.Rules.from_options(
        num_players=3, challenge_deck=("token", "skip", "skip", "skip")))).config[
        "token_risk"] == pytest.approx(0.25)
    assert agents.make("counting", QdvGame(R.Rules.from_options(num_players=3)),
                       token_risk=0.0).config["token_risk"] == 0.0
