"""Elementary functions that give the same bits on every CPU: ``exp``, ``log``, ``log1p``,
``expm1``, ``pow``, ``tanh`` and ``sigmoid`` for float64, in plain IEEE arithmetic.

Why.  An agent's decision may not depend on the machine.  Neither
numpy nor the C library guarantees that for these functions: numpy dispatches its own SIMD
``exp``/``log`` on AVX-512 CPUs (4.6% of ``exp`` results differ from libm in the last bit), and
glibc picks an FMA build of its ``exp``, ``log``, ``pow`` ... on CPUs with FMA (53 ``exp`` and
86 ``pow`` results of 100,000 differ between the two builds): measured by
``experiments/determinism/libm_diff.py``, table in docs/float_contract.md.  These functions use only
``+ - * /``, comparisons and exact scaling by powers of two (built from their bits), each
correctly rounded by IEEE 754, in a fixed order; numba does not contract ``a * b + c`` into an
FMA without ``fastmath`` (``tests/test_fmath.py`` checks the machine code), so every x86-64
(and any IEEE 754) CPU computes the same bits, at every batch size.

How.  ``exp``: ``x = (k / 128) ln 2 + r`` (Cody-Waite, ``|r| <= ln 2 / 256``),
``exp(x) = 2^(k // 128) * T[k % 128] * (1 + p(r))`` with ``T`` a table of ``2^(j/128)`` as
double-double and ``p`` the degree-6 Taylor polynomial of ``expm1``.  ``log``:
``x = 2^e m`` with ``m`` in [0.75, 1.5), ``m = c (1 + r)`` with ``c`` a table centre (``c = 1``
next to 1, so small results keep their relative accuracy), ``r`` computed exactly
(Dekker's product), ``log x = e ln 2 + log c + log1p(r)`` with ``log c`` double-double and the
degree-10 series of ``log1p``.  The tables are computed at import with ``decimal`` at 40
digits (correctly rounded, no libm).  ``log1p``/``expm1``/``pow`` reuse the unrounded parts
of ``log``/``exp`` so that they keep their accuracy near 0 and 1.

Accuracy (measured by ``tests/test_fmath.py`` against ``decimal`` at 40 digits on random
inputs over the ranges the agents use; the bounds asserted there): ``exp``, ``log``,
``log1p``, ``expm1`` within 0.52 ulp (correctly rounded on more than 99% of inputs), ``pow``
within 1 ulp for ``|y log x| <= 50``, ``tanh`` within 2 ulp, ``sigmoid`` within 2 ulp.  Results
below 2^-1022 (subnormal) are faithful only.  NaN in, NaN out; overflow gives ``inf``.

Use.  The scalar functions are numba ``njit`` and are called from the agents' kernels; the
``*_u`` names are the same functions as numpy ufuncs (``numba.vectorize``) for the readable
numpy references, so a reference and its kernel compute the same bits on any machine.  The
whole contract, and how it is checked: docs/float_contract.md.  numba's on-disk cache does not
notice a change here in the kernels that call these functions: after editing this file, delete
the caches (``find . -name '*.nbi' -delete``).
"""

from __future__ import annotations

import math
from decimal import Decimal, getcontext
from typing import Any

import numba as nb
import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

from bluffsim.bits_nb import python_twin

# ---------------------------------------------------------------------------------------
# Tables, built once at import in decimal (correctly rounded; no libm)

_CTX_DIGITS = 40
EXP_TABLE_BITS = 7
EXP_N = 1 << EXP_TABLE_BITS          # 128 steps of 2^(j / 128)
LOG_CELLS = 96                        # [0.75, 1.5) in steps of 1/128
LOG_STEP = 1.0 / 128.0
LOG_LOW = 0.75


def _split_decimal(d: Decimal) -> tuple[float, float]:
    """(hi, lo): ``d`` as an unevaluated sum of two doubles, hi = RN(d), lo = RN(d - hi)."""
    hi = float(d)
    return hi, float(d - Decimal(hi))


def _build_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[float, ...]]:
    getcontext().prec = _CTX_DIGITS
    ln2 = Decimal(2).ln()
    two_pow = np.array([_split_decimal((ln2 * j / EXP_N).exp()) for j in range(EXP_N)])
    inv_c = np.empty(LOG_CELLS)
    log_c = np.empty((LOG_CELLS, 2))
    for i in range(LOG_CELLS):
        left = LOG_LOW + i * LOG_STEP
        centre = 1.0 if left in (1.0 - LOG_STEP, 1.0) else left + LOG_STEP / 2
        inv_c[i] = 1.0 / centre
        log_c[i] = _split_decimal(-Decimal(inv_c[i]).ln())   # log c = -log(1/c), exact 1/c used
    ln2_hi = float(ln2)
    ln2_hi = math.ldexp(math.floor(math.ldexp(ln2_hi, 42)), -42)   # 42 bits: e * ln2_hi exact
    ln2_lo = float(ln2 - Decimal(ln2_hi))
    step = ln2 / EXP_N
    step_hi = math.ldexp(math.floor(math.ldexp(float(step), 42)), -42)  # k * step_hi exact, |k| < 2^18
    step_lo = float(step - Decimal(step_hi))
    inv_step = float(EXP_N / ln2)
    return two_pow, inv_c, log_c, (ln2_hi, ln2_lo, step_hi, step_lo, inv_step)


TWO_POW, INV_C, LOG_C, (LN2_HI, LN2_LO, STEP_HI, STEP_LO, INV_STEP) = _build_tables()

EXP_MAX = 709.782712893384          # above: inf
EXP_MIN = -745.1332191019412        # below: 0
SPLITTER = 134217729.0              # 2^27 + 1, Dekker's split

def log_const(x: float) -> float:
    """The natural log of ``x`` correctly rounded, computed in ``decimal`` (for module constants:
    no compiling at import)."""
    getcontext().prec = _CTX_DIGITS
    return float(Decimal(x).ln())


# ---------------------------------------------------------------------------------------
# Exact building blocks


@intrinsic
def _float_bits_llvm(typingctx, x):  # noqa: ANN001, ANN201, ARG001
    """``float_bits`` compiled: an LLVM bitcast."""
    if not isinstance(x, types.Float) or x.bitwidth != 64:
        return None

    def codegen(context, builder, signature, args):  # noqa: ANN001, ANN202, ARG001
        return builder.bitcast(args[0], ir.IntType(64))

    return types.int64(types.float64), codegen


@intrinsic
def _bits_float_llvm(typingctx, i):  # noqa: ANN001, ANN201, ARG001
    """``bits_float`` compiled: an LLVM bitcast."""
    if not isinstance(i, types.Integer):
        return None

    def codegen(context, builder, signature, args):  # noqa: ANN001, ANN202, ARG001
        return builder.bitcast(args[0], ir.DoubleType())

    return types.float64(types.int64), codegen


@python_twin(_float_bits_llvm)
def float_bits(x: float) -> int:
    """int64: the IEEE 754 bit pattern of a float64 (a reinterpretation, no conversion)."""
    return np.float64(x).view(np.int64)


@python_twin(_bits_float_llvm)
def bits_float(i: int) -> float:
    """float64 whose IEEE 754 bit pattern is the int64 ``i``."""
    return np.int64(i).view(np.float64)


@nb.njit(cache=True, inline="always")
def scale2(y: float, m: int) -> float:
    """``y * 2**m`` (``ldexp``): one exact multiplication by a power of two built from its bits
    when ``2**m`` is a normal double, else ``math.ldexp``."""
    if -1022 <= m <= 1023:
        return y * bits_float(np.int64(m + 1023) << 52)
    return math.ldexp(y, m)


@nb.njit(cache=True, inline="always")
def two_sum(a: float, b: float) -> tuple[float, float]:
    """(s, e) with s = RN(a + b) and s + e = a + b exactly (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


@nb.njit(cache=True, inline="always")
def two_prod(a: float, b: float) -> tuple[float, float]:
    """(p, e) with p = RN(a * b) and p + e = a * b exactly (Dekker, no FMA; |a b| < 2^996)."""
    p = a * b
    t = SPLITTER * a
    ah = t - (t - a)
    al = a - ah
    t = SPLITTER * b
    bh = t - (t - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


# ---------------------------------------------------------------------------------------
# exp and its unrounded parts


@nb.njit(cache=True, inline="always")
def exp_step(x: float) -> int:
    """The Cody-Waite step of ``exp``: the integer ``k`` nearest ``x / (ln 2 / 128)``."""
    return math.floor(x * INV_STEP + 0.5)


@nb.njit(cache=True, inline="always")
def pow2(m: int) -> float:
    """``2**m`` for ``-1022 <= m <= 1023``, built from its bits (exact)."""
    return bits_float(np.int64(m + 1023) << 52)


@nb.njit(cache=True, inline="always")
def exp_tail(x: float, tail: float, k: float, t: float, t_lo: float) -> tuple[float, float]:
    """(ph, pl) of ``exp_parts`` for step ``k`` and its table entry ``(t, t_lo)`` = ``TWO_POW[k % 128]``:
    the arithmetic after the table lookup, shared by the scalar functions and ``tanh_inplace``."""
    r = x - k * STEP_HI                    # exact (Sterbenz; k * STEP_HI exact)
    r_lo = tail - k * STEP_LO
    # expm1(r + r_lo) = r + r_lo + q, q the degree-6 tail of the Taylor series
    rr = r + r_lo
    q = rr * rr * (0.5 + rr * (1.0 / 6.0 + rr * (1.0 / 24.0 + rr * (1.0 / 120.0 + rr * (1.0 / 720.0)))))
    ph, p_err = two_prod(t, r)
    pl = p_err + (t * (r_lo + q) + t_lo * (1.0 + rr))
    return ph, pl


@nb.njit(cache=True)
def exp_parts(x: float, tail: float) -> tuple[float, float, float, int]:
    """(t, ph, pl, m): exp(x + tail) = 2^m (t + ph + pl) with t = 2^(j/128) rounded, |ph| < 2^-7 t
    and |pl| <= ulp(ph), accurate to about 2^-60 relative; for finite ``x`` in
    [EXP_MIN, EXP_MAX] and ``|tail| <= 2^-40 |x|``."""
    k = exp_step(x)
    j = int(k) & (EXP_N - 1)
    m = (int(k) - j) >> EXP_TABLE_BITS
    t = TWO_POW[j, 0]
    ph, pl = exp_tail(x, tail, k, t, TWO_POW[j, 1])
    return t, ph, pl, m


@nb.njit(cache=True, inline="always")
def expm1_scaled(t: float, ph: float, pl: float, scale: float) -> float:
    """``scale (t + ph + pl) - 1`` rounded once, from ``exp_parts`` and ``scale = 2^m`` (``|m| <= 58``)."""
    u, v = two_sum(t * scale, -1.0)         # exact: |m| <= 58
    a, b = two_sum(u, ph * scale)
    return a + (b + (v + pl * scale))


@nb.njit(cache=True)
def exp(x: float) -> float:
    """e**x, within 0.52 ulp (module docstring); same bits on every CPU."""
    if x != x:
        return x
    if x > EXP_MAX:
        return math.inf
    if x < EXP_MIN:
        return 0.0
    t, ph, pl, m = exp_parts(x, 0.0)
    return scale2(t + (ph + pl), m)


@nb.njit(cache=True)
def expm1(x: float) -> float:
    """e**x - 1, within 0.52 ulp, accurate near 0; same bits on every CPU."""
    if x != x:
        return x
    if abs(x) < 1e-17:
        return x
    if x > 40.0:
        return exp(x)
    if x < -40.0:
        return -1.0
    t, ph, pl, m = exp_parts(x, 0.0)
    return expm1_scaled(t, ph, pl, pow2(m))


@nb.njit(cache=True)
def sigmoid(z: float) -> float:
    """1 / (1 + e**-z), within 2 ulp; same bits on every CPU."""
    return 1.0 / (1.0 + exp(-z))


@nb.njit(cache=True)
def tanh(x: float) -> float:
    """tanh(x) = expm1(2x) / (expm1(2x) + 2), within 2 ulp; same bits on every CPU."""
    if x != x:
        return x
    a = abs(x)
    if a < 1e-9:
        return x
    if a > 22.0:
        t = 1.0
    else:
        e = expm1(2.0 * a)
        t = e / (e + 2.0)
    return t if x > 0 else -t


@nb.njit(cache=True, error_model="numpy")
def tanh_inplace(v: np.ndarray, n: int, work: np.ndarray) -> None:
    """``v[:n] = tanh(v[:n])``, bit for bit ``tanh`` of each element, in loops without branches
    that the compiler vectorises (the table lookup apart); ``work`` is float64 scratch ``[3, >= n]``.
    IEEE operations give the same bits in a vector register as alone, so this is still the
    contract's ``tanh`` (``tests/test_fmath.py`` compares every path)."""
    step, t, t_lo = work[0], work[1], work[2]
    for i in range(n):
        a = abs(v[i])
        # off the main path a finite stand-in (its result is not used)
        step[i] = exp_step(2.0 * a if (a >= 1e-9) & (a <= 22.0) else 1.0)
    for i in range(n):
        j = np.int64(step[i]) & (EXP_N - 1)
        t[i], t_lo[i] = TWO_POW[j, 0], TWO_POW[j, 1]
    for i in range(n):
        x = v[i]
        a = abs(x)
        main = (a >= 1e-9) & (a <= 22.0)          # false for NaN
        x2 = 2.0 * a if main else 1.0
        k = step[i]
        ph, pl = exp_tail(x2, 0.0, k, t[i], t_lo[i])
        scale = pow2(np.int64(k) >> EXP_TABLE_BITS)     # 0 <= m <= 63 here
        e = expm1_scaled(t[i], ph, pl, scale) if x2 <= 40.0 else (t[i] + (ph + pl)) * scale  # as expm1
        y = e / (e + 2.0) if a <= 22.0 else 1.0
        y = y if x > 0 else -y
        v[i] = y if a >= 1e-9 else x


# ---------------------------------------------------------------------------------------
# log and its unrounded parts


@nb.njit(cache=True)
def log_parts(x: float, x_lo: float) -> tuple[float, float]:
    """(hi, lo): log(x + x_lo) = hi + lo with |lo| <= ulp(hi) for finite positive normal or
    subnormal ``x`` and ``|x_lo| <= 2^-50 x``; hi + lo is accurate to about 2^-62 relative."""
    e0 = 0
    if x < 2.2250738585072014e-308:
        x *= 18014398509481984.0          # 2^54: subnormal inputs become normal
        x_lo *= 18014398509481984.0
        e0 = -54
    bits = float_bits(x)
    e = np.int64((bits >> 52) & 0x7FF) - 1023
    m = bits_float((bits & 0xFFFFFFFFFFFFF) | (np.int64(1023) << 52))   # x = 2^e m, m in [1, 2)
    if m >= 2.0 * LOG_LOW:
        m *= 0.5
        e += 1                            # m in [0.75, 1.5)
    x_lo = scale2(x_lo, -e)               # x_lo on m's scale (exact)
    i = int((m - LOG_LOW) * 128.0)
    inv_c = INV_C[i]
    p, p_lo = two_prod(m, inv_c)
    r = p - 1.0                            # exact (Sterbenz: p in [0.5, 2])
    r_lo = p_lo + x_lo * inv_c
    # log1p(r) - r, degree 10 (|r| <= 2^-7)
    q = r * r * (-0.5 + r * (1.0 / 3.0 + r * (-0.25 + r * (0.2 + r * (-1.0 / 6.0 + r * (
        1.0 / 7.0 + r * (-0.125 + r * (1.0 / 9.0 + r * -0.1))))))))
    fe = float(e + e0)
    w, w_lo = two_sum(fe * LN2_HI, LOG_C[i, 0])
    hi, s_lo = two_sum(w, r)
    lo = s_lo + (w_lo + (fe * LN2_LO + (LOG_C[i, 1] + (r_lo * (1.0 - r) + q))))
    return two_sum(hi, lo)


@nb.njit(cache=True)
def log(x: float) -> float:
    """Natural log, within 0.52 ulp (module docstring); same bits on every CPU."""
    if x != x or x == math.inf:
        return x
    if x < 0.0:
        return math.nan
    if x == 0.0:
        return -math.inf
    hi, lo = log_parts(x, 0.0)
    return hi + lo


@nb.njit(cache=True)
def log1p(x: float) -> float:
    """log(1 + x), within 0.52 ulp, accurate near 0; same bits on every CPU."""
    if x != x or x == math.inf:
        return x
    if x < -1.0:
        return math.nan
    if x == -1.0:
        return -math.inf
    if abs(x) < 1e-17:
        return x
    u, v = two_sum(1.0, x)
    hi, lo = log_parts(u, v)
    return hi + lo


@nb.njit(cache=True)
def pow(x: float, y: float) -> float:  # noqa: A001 - the name of the function it replaces
    """x**y = exp(y log x) with the log's unrounded parts: within 1 ulp for ``|y log x| <= 50``;
    ``x < 0`` only for integer ``y``; same bits on every CPU."""
    if y == 0.0 or x == 1.0:
        return 1.0
    if x != x or y != y:
        return math.nan
    sign = 1.0
    if x < 0.0:
        if y != math.floor(y):
            return math.nan
        x = -x
        if 0.5 * y != math.floor(0.5 * y):
            sign = -1.0
    if x == 0.0:
        return sign * (0.0 if y > 0 else math.inf)
    if x == math.inf:
        return sign * (math.inf if y > 0 else 0.0)
    lh, ll = log_parts(x, 0.0)
    a, a_lo = two_prod(y, lh)
    a_lo += y * ll
    t = a + a_lo
    if t > EXP_MAX:
        return sign * math.inf
    if t < EXP_MIN:
        return sign * 0.0
    t, ph, pl, m = exp_parts(a, a_lo)
    return sign * scale2(t + (ph + pl), m)


# ---------------------------------------------------------------------------------------
# numpy ufuncs of the same functions, for the readable references


class LazyUfunc:
    """A numba ufunc of a scalar ``fmath`` function with float64 signatures, compiled (or loaded
    from numba's cache) on its first call rather than at import."""

    def __init__(self, fn: Any, nargs: int = 1):
        self.fn, self.nargs, self._ufunc = fn, nargs, None
        self.__name__ = fn.__name__ + "_u"
        self.__doc__ = f"``{fn.__name__}`` elementwise on arrays (float64): {fn.__doc__}"

    def __call__(self, *args: Any) -> Any:
        if self._ufunc is None:
            sig = "float64(" + ", ".join(["float64"] * self.nargs) + ")"
            self._ufunc = nb.vectorize([sig], cache=True)(self.fn)
        return self._ufunc(*args)


exp_u = LazyUfunc(exp)
expm1_u = LazyUfunc(expm1)
log_u = LazyUfunc(log)
log1p_u = LazyUfunc(log1p)
tanh_u = LazyUfunc(tanh)
sigmoid_u = LazyUfunc(sigmoid)
pow_u = LazyUfunc(pow, nargs=2)
