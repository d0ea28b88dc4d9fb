"""Exact counting helpers shared by the counting agents: log-binomials and hypergeometric terms.

``log_choose`` is one gather in a precomputed table (``LOG_CHOOSE[n, k + 1]``,
``n, k < 256``; column 0 and ``k > n`` hold ``-inf``), so vectorised callers pay
no per-call factorial arithmetic.  The log-factorials are computed in ``decimal`` and
correctly rounded (no libm ``lgamma``, whose last bits vary with the CPU and the C library),
so the table is the same on every machine.
"""

from __future__ import annotations

import math
from decimal import Context, Decimal

import numpy as np
from numba import njit

from bluffsim import fmath as fm

TABLE_N = 256
_CTX = Context(prec=40)
_LOG_FACT = np.array([float(_CTX.ln(Decimal(math.factorial(n)))) for n in range(TABLE_N)])
_N, _K = np.meshgrid(np.arange(TABLE_N), np.arange(TABLE_N), indexing="ij")
LOG_CHOOSE = np.full((TABLE_N, TABLE_N + 1), -np.inf)
LOG_CHOOSE[:, 1:] = np.where(_K <= _N, _LOG_FACT[_N] - _LOG_FACT[_K] - _LOG_FACT[np.abs(_N - _K)],
                             -np.inf)


def log_choose(n: np.ndarray | int, k: np.ndarray | int) -> np.ndarray:
    """log C(n, k) elementwise; ``-inf`` where ``n < 0``, ``k < 0`` or ``k > n`` (``n < 256``)."""
    n = np.asarray(n, dtype=np.int64)
    col = np.minimum(np.maximum(np.asarray(k, dtype=np.int64) + 1, 0), TABLE_N)
    return LOG_CHOOSE[np.maximum(n, 0), np.where(n < 0, 0, col)]


@njit(cache=True, inline="always")
def log_choose_at(table, n, k):
    """``log_choose`` of one pair inside compiled code, read from ``table`` (``LOG_CHOOSE``)."""
    if n < 0:
        return table[0, 0]
    return table[n, min(max(k + 1, 0), TABLE_N)]


def hypergeom_pmf(pool: np.ndarray, good: np.ndarray, draws: np.ndarray, x: int) -> np.ndarray:
    """P(X = x) for X ~ Hypergeometric(pool, good, draws), vectorised and exact."""
    pool, good, draws = (np.asarray(v, dtype=np.int64) for v in (pool, good, draws))
    return fm.exp_u(log_choose(good, x) + log_choose(pool - good, draws - x)
                  - log_choose(pool, draws))
