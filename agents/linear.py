"""Weighted sums of model features for the counting agents' logistic models, added in a fixed order.

``features @ weights`` through BLAS adds the terms in an order that depends on the
batch size, the thread count and the CPU's kernels, so a row's last bit could change
with the batch it sits in; the compiled kernels could not match it on every machine.
``linear`` adds left to right, one term at a time, as the kernels do.
"""

from __future__ import annotations

import numpy as np


def linear(features: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """float64[B] (``weights`` float[F]) or float64[B, K] (``weights`` float[K, F]):
    ``features @ weights`` (resp. ``features @ weights.T``) of float[B, F] features, each sum
    ``x0 w0 + x1 w1 + …`` added left to right."""
    w = np.asarray(weights, dtype=np.float64)
    wt = w[:, None] if w.ndim == 1 else w.T          # [F, K]
    acc = features[:, :1] * wt[0]
    for k in range(1, wt.shape[0]):
        acc = acc + features[:, k:k + 1] * wt[k]
    return acc[:, 0] if w.ndim == 1 else acc
