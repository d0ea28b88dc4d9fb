"""Counter-based randomness: scalar and vectorised paths agree bit for bit."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from bluffsim import rng


@given(seed=st.integers(0, 2**64 - 1), stream=st.integers(0, 5000),
       major=st.integers(0, 2**40), minor=st.integers(0, 2**16))
def test_scalar_and_vectorised_words_are_identical(seed, stream, major, minor) -> None:
    v = rng.words(np.array([seed], np.uint64), stream, major, minor)
    assert int(v[0]) == rng.word(seed, stream, major, minor)


@given(seed=st.integers(0, 2**63), n=st.integers(1, 200), major=st.integers(0, 10**6))
def test_scalar_and_vectorised_permutations_are_identical(seed, n, major) -> None:
    vec = rng.permutations(np.array([seed, seed + 1], np.uint64), 1, major, n)
    assert vec[0].tolist() == rng.permutation(seed, 1, major, n)
    assert sorted(vec[1].tolist()) == list(range(n))


@given(w=st.integers(0, 2**64 - 1), n=st.integers(1, 2047))
def test_below_is_in_range_and_identical(w, n) -> None:
    v = rng.below(np.array([w], np.uint64), n)
    assert 0 <= v[0] < n and int(v[0]) == rng.below_scalar(w, n)


def test_a_value_does_not_depend_on_batch_position() -> None:
    seeds = np.arange(100, dtype=np.uint64)
    batch = rng.words(seeds, 3, 7, 2)
    alone = [int(rng.words(np.array([s], np.uint64), 3, 7, 2)[0]) for s in seeds[::17]]
    assert batch[::17].tolist() == alone


def test_streams_and_counters_differ() -> None:
    a = rng.word(1, 1, 0, 0)
    assert len({a, rng.word(1, 2, 0, 0), rng.word(1, 1, 1, 0), rng.word(1, 1, 0, 1),
                rng.word(2, 1, 0, 0)}) == 5


def test_shuffles_are_uniform_enough() -> None:
    perms = rng.permutations(np.arange(20000, dtype=np.uint64), 9, 0, 4)
    first = np.bincount(perms[:, 0], minlength=4) / 20000
    assert np.allclose(first, 0.25, atol=0.02)
    below = rng.below(rng.words(np.arange(30000, dtype=np.uint64), 5, 0, 0), 3)
    assert np.allclose(np.bincount(below) / 30000, 1 / 3, atol=0.02)
