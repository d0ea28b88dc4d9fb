"""The counting agent's count distribution equals brute-force enumeration on tiny deals."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from agents.qdv.counting import Counts, count_distribution, count_table, fruit_classes
from bluffsim.games.qdv import rules as R
from bluffsim.games.qdv.reference import scenario
from bluffsim.games.qdv.vec import QdvGame

TINY = dict(fruit_multipliers=(1, 2), salads=2, challenge_deck=())


def comb_weight(s, j, q):
    from math import comb

    return comb(s, j) * q**j * (1 - q) ** (s - j)


@pytest.mark.parametrize("mine, theirs, centre", [
    (["grape", "apricot x2"], ["grape x2", "salad", "banana"], "cherry x2"),
    (["salad", "cherry"], ["strawberry", "strawberry x2", "cherry x2"], "banana x2"),
])
@pytest.mark.parametrize("q", [0.5, 0.25])
def test_distribution_matches_enumeration(mine, theirs, centre, q):
    ref, s = scenario([theirs, mine], centre, [3, 2], dealer=0, **TINY)
    obs = QdvGame(ref.rules).observe(QdvGame(ref.rules).from_reference([s]))
    assert obs["seat"][0] == 1
    got = count_distribution(obs, ref.rules, salad_p=q)[0]
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
                want[f, min(base + j, want.shape[1] - 1)] += (
                    comb_weight(cards[R.SALAD], j, q) / len(subsets))
    np.testing.assert_allclose(got, want, atol=1e-12)
    np.testing.assert_allclose(got.sum(axis=1), 1.0)


def played(players: int, games: int,
           steps: int) -> tuple[QdvGame, dict[str, np.ndarray], np.random.Generator]:
    """A qdv engine, the observations of ``games`` games after ``steps`` random decisions, and
    the generator that drew them (for further draws)."""
    game = QdvGame(R.Rules.from_options(num_players=players))
    rng = np.random.default_rng(players)
    st = game.init(np.arange(games, dtype=np.uint64))
    for _ in range(steps):
        legal = st.legal_action_mask
        game.step(st, np.where(st.done, legal.argmax(axis=1),
                               (rng.random(legal.shape) * legal).argmax(axis=1)))
    return game, game.observe(st), rng


@pytest.mark.parametrize("players", [2, 4, 6])
def test_threshold_queries_equal_sums_over_the_distribution(players):
    """``Counts`` answers from the memo's cumulative tables what the full pmf gives by summing."""
    game, obs, _ = played(players, games=64, steps=25)
    dist = count_distribution(obs, game.rules)                           # [B, F, V]
    table = count_table(game.rules, 0.5)
    classes, known = fruit_classes(obs, game.rules)
    counts = Counts(table, table.rows(classes), known)
    v = np.arange(dist.shape[2])
    for t in range(dist.shape[2]):
        below = v < t
        np.testing.assert_allclose(counts.less(np.full((64, 1), t)), (dist * below).sum(axis=2),
                                   atol=1e-12)
        np.testing.assert_allclose(counts.shortfall(np.full((64, 1), t)),
                                   (dist * np.where(below, t - v + 1, 0)).sum(axis=2), atol=1e-9)
        np.testing.assert_allclose(counts.excess(np.full((64, 1), t)),
                                   (dist * np.where(below, 0, v - t + 1)).sum(axis=2), atol=1e-9)
    np.testing.assert_allclose(counts.mean(), dist @ v, atol=1e-9)


@pytest.mark.parametrize("players", [2, 5])
def test_posterior_gathers_equal_sums_over_the_tilted_pmf(players):
    """The bid-conditioned posterior's threshold queries (cumulative tables and gathers) equal
    the direct sums over its pmf, stakes and elimination included."""
    from agents.qdv.counting import posterior, stake

    game, obs, rng = played(players, games=128, steps=40)
    post = posterior(obs, game.rules)
    assert post.tilt is not None and (post.tilt != 0).any()
    np.testing.assert_allclose(post.pmf.sum(axis=-1), 1.0)
    np.testing.assert_allclose(post.mean(), (post.pmf * post.values).sum(axis=-1), atol=1e-9)
    tokens = rng.integers(1, 8, size=(128, 1))
    for t in range(0, 20):
        target = np.full((128, 1), t)
        short = post.values < t
        np.testing.assert_allclose(post.prob_less(target), (post.pmf * short).sum(-1), atol=1e-12)
        want = (post.pmf * np.where(short, stake(t - post.values + 1, tokens[:, :, None], 3.0),
                                    0.0)).sum(-1)
        np.testing.assert_allclose(post.short_cost(target, tokens, 3.0), want, atol=1e-9)


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
