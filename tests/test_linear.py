"""agents.linear: the counting agents' weighted sums, in a fixed order of additions."""

from __future__ import annotations

import numpy as np

from agents.linear import linear


def test_one_and_several_weight_vectors_are_dot_products_added_left_to_right():
    gen = np.random.default_rng(5)
    x = gen.normal(size=(300, 29))
    w = gen.normal(size=(2, 29))
    both = linear(x, w)
    assert both.shape == (300, 2)
    for k in range(2):
        assert np.array_equal(both[:, k], linear(x, w[k]))
        assert np.allclose(both[:, k], x @ w[k], rtol=1e-12, atol=1e-12)
    manual = x[:, 0] * w[0, 0]
    for f in range(1, 29):
        manual = manual + x[:, f] * w[0, f]
    assert np.array_equal(both[:, 0], manual)


def test_a_row_has_the_same_bits_alone_and_in_any_batch():
    gen = np.random.default_rng(6)
    x = gen.normal(size=(5000, 20)) * gen.choice([1e-3, 1.0, 1e3], size=(5000, 20))
    w = gen.normal(size=20)
    full = linear(x, w)
    for n in (1, 3, 17, 1024):
        assert np.array_equal(linear(x[:n], w), full[:n])
    assert np.array_equal(linear(x[4321:4322], w), full[4321:4322])
