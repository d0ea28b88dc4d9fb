"""The compiled RNG (``bluffsim.rng_nb``) equals the numpy and scalar paths bit for bit."""

from __future__ import annotations

import numpy as np

from bluffsim import rng
from bluffsim import rng_nb as nb


def test_words_equal_numpy_on_many_counters() -> None:
    gen = np.random.default_rng(1)
    seeds = gen.integers(0, 2**64 - 1, size=2000, dtype=np.uint64, endpoint=True)
    seeds[:3] = [0, 2**64 - 1, 1]
    streams = gen.integers(0, 5000, size=2000)
    majors = gen.integers(0, 2**40, size=2000)
    minors = gen.integers(0, 2**16, size=2000)
    want = rng.words(seeds, streams, majors, minors)
    got = [nb.word(s, int(t), int(m), int(n)) for s, t, m, n in
           zip(seeds, streams, majors, minors, strict=True)]
    assert [int(g) for g in got] == want.tolist()
    assert int(nb.word(np.uint64(5), 3, 7, 2)) == rng.word(5, 3, 7, 2)


def test_below_and_uniform_equal_numpy() -> None:
    w = rng.words(np.arange(3000, dtype=np.uint64), 9, 4, 1)
    w[:2] = [0, 2**64 - 1]
    for n in (1, 2, 3, 7, 52, 2047):
        want = rng.below(w, n)
        assert [nb.below(x, n) for x in w] == want.tolist()
    a = rng.AgentRNG(np.arange(500), np.arange(500) % 6 - 1, np.arange(500) * 3)
    u = a.uniform(2)
    got = [[nb.uniform(np.uint64(nb.agent_word(np.uint64(b), b % 6 - 1, b * 3, i))) for i in range(2)]
           for b in range(500)]
    assert np.array_equal(np.asarray(got), u)
    want = a.below(np.arange(500) % 11 + 1)
    got = [nb.below(np.uint64(nb.agent_word(np.uint64(b), b % 6 - 1, b * 3, 0)), b % 11 + 1)
           for b in range(500)]
    assert got == want.tolist()


def test_index_bits_equal() -> None:
    assert [nb.index_bits(n) for n in range(1, 70000, 7)] == [
        rng.index_bits(n) for n in range(1, 70000, 7)]


def test_shuffles_equal_numpy_permutations() -> None:
    keys, tmp = np.zeros(256, np.uint64), np.zeros(256, np.uint64)
    counts, out = np.zeros(nb.BUCKETS + 1, np.int64), np.zeros(256, np.int64)
    for n in (1, 2, 5, 12, 52, 60, 80, 200, 256):
        seeds = np.arange(300, dtype=np.uint64) * 7919 + n
        majors = np.arange(300) % 13
        want = rng.permutations(seeds, rng.Stream.DEAL, majors, n)
        for b in range(300):
            nb.permutation_into(seeds[b], rng.Stream.DEAL, int(majors[b]), n, keys, tmp, counts, out)
            assert out[:n].tolist() == want[b].tolist(), (n, b)
    # a shuffle of n items keyed as one of `width` items (ragged permutations)
    nb.shuffle_keys(np.uint64(11), 2, 3, 5, 40, keys, tmp, counts)
    low = (1 << rng.index_bits(40)) - 1
    assert [int(k) & low for k in keys[:5]] == rng.permutation(11, 2, 3, 5, 40)


def test_shuffled_into_deals_a_deck_through_the_permutation() -> None:
    keys, tmp = np.zeros(64, np.uint64), np.zeros(64, np.uint64)
    counts, out = np.zeros(nb.BUCKETS + 1, np.int64), np.zeros(64, np.int8)
    deck = (np.arange(64) * 3 % 61).astype(np.int8)
    for n in (1, 19, 52, 64):
        nb.shuffled_into(np.uint64(n), rng.Stream.DEAL, 4, n, keys, tmp, counts, deck, out)
        assert out[:n].tolist() == deck[rng.permutation(n, rng.Stream.DEAL, 4, n)].tolist()
