"""``bluffsim.fmath``: accuracy against ``decimal`` at 40 digits, special values, the ufuncs equal
the scalar functions, and no FMA in the machine code (what makes the bits CPU-independent)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from decimal import Context, Decimal

import numpy as np
import pytest

from bluffsim import fmath as fm

CTX = Context(prec=40)


def ulp_error(got: float, exact: Decimal) -> float:
    """(got - exact) in units of the last place of the exact value rounded to a double."""
    return float(CTX.divide(CTX.subtract(Decimal(got), exact), Decimal(math.ulp(float(exact)))))


def d_exp(x: float) -> Decimal:
    return CTX.exp(Decimal(x))


def d_log(x: float) -> Decimal:
    return CTX.ln(Decimal(x))


def d_log1p(x: float) -> Decimal:
    return CTX.ln(CTX.add(1, Decimal(x)))


def d_expm1(x: float) -> Decimal:
    return CTX.subtract(CTX.exp(Decimal(x)), 1)


def d_tanh(x: float) -> Decimal:
    e = CTX.exp(CTX.multiply(2, Decimal(x)))
    return CTX.divide(CTX.subtract(e, 1), CTX.add(e, 1))


RNG = np.random.default_rng(20261201)
N = 3000
# (function, exact, inputs, bound in ulp): the ranges the agents use and the hard spots
CASES = {
    "exp": (fm.exp, d_exp, RNG.uniform(-700, 700, N), 0.52),
    "exp near 0": (fm.exp, d_exp, RNG.uniform(-0.02, 0.02, N), 0.52),
    "log": (fm.log, d_log, np.exp(RNG.uniform(-700, 700, N)), 0.52),
    "log near 1": (fm.log, d_log, 1.0 + RNG.uniform(-0.03, 0.03, N), 0.52),
    "log subnormal": (fm.log, d_log, RNG.uniform(1, 2**40, 200) * 2.0**-1074, 0.52),
    "log1p": (fm.log1p, d_log1p, RNG.uniform(-0.99, 50, N), 0.52),
    "log1p near 0": (fm.log1p, d_log1p, RNG.uniform(-1e-3, 1e-3, N), 0.52),
    "expm1": (fm.expm1, d_expm1, RNG.uniform(-45, 45, N), 0.52),
    "expm1 near 0": (fm.expm1, d_expm1, RNG.uniform(-0.4, 0.4, N), 0.52),
    "tanh": (fm.tanh, d_tanh, RNG.uniform(-6, 6, N), 2.0),
}


@pytest.mark.parametrize("case", CASES)
def test_accuracy_against_decimal(case: str) -> None:
    f, exact, xs, bound = CASES[case]
    errors = np.array([ulp_error(f(float(x)), exact(float(x))) for x in xs])
    assert np.abs(errors).max() <= bound, (case, np.abs(errors).max())
    if bound < 1:  # correctly rounded almost everywhere
        assert np.mean(np.abs(errors) <= 0.5) > 0.99


def test_pow_accuracy_for_integer_and_real_exponents() -> None:
    xs = RNG.uniform(1e-3, 1.0, N)
    ints = RNG.integers(0, 13, N).astype(np.float64)
    reals = RNG.uniform(-7, 7, N)
    err_int = [ulp_error(fm.pow(x, y), CTX.power(Decimal(x), int(y))) for x, y in zip(xs, ints, strict=True)]
    err_real = [ulp_error(fm.pow(x, y), CTX.exp(CTX.multiply(Decimal(y), CTX.ln(Decimal(x)))))
                for x, y in zip(xs, reals, strict=True)]
    assert max(map(abs, err_int)) <= 1.0
    assert max(map(abs, err_real)) <= 1.0


def test_sigmoid_accuracy() -> None:
    zs = RNG.uniform(-30, 30, N)
    errs = [ulp_error(fm.sigmoid(z), CTX.divide(1, CTX.add(1, CTX.exp(Decimal(-z))))) for z in zs]
    assert max(map(abs, errs)) <= 2.0


def test_special_values() -> None:
    inf, nan = math.inf, math.nan
    assert fm.exp(0.0) == 1.0 and fm.exp(-inf) == 0.0 and fm.exp(inf) == inf
    assert fm.exp(710.0) == inf and fm.exp(-746.0) == 0.0 and math.isnan(fm.exp(nan))
    assert fm.exp(1.0) == math.e
    assert fm.log(1.0) == 0.0 and fm.log(0.0) == -inf and fm.log(inf) == inf
    assert math.isnan(fm.log(-1.0)) and math.isnan(fm.log(nan))
    assert fm.log(math.e) == 1.0 and fm.log(2.0) == math.log(2.0)
    assert fm.log1p(0.0) == 0.0 and fm.log1p(-1.0) == -inf and math.isnan(fm.log1p(-2.0))
    assert fm.log1p(1e-300) == 1e-300 and fm.expm1(1e-300) == 1e-300
    assert fm.expm1(0.0) == 0.0 and fm.expm1(-inf) == -1.0 and fm.expm1(inf) == inf
    assert fm.tanh(0.0) == 0.0 and fm.tanh(50.0) == 1.0 and fm.tanh(-50.0) == -1.0
    assert fm.pow(0.3, 0.0) == 1.0 and fm.pow(0.0, 2.0) == 0.0 and fm.pow(0.0, -1.0) == inf
    assert fm.pow(-2.0, 3.0) == -8.0 and fm.pow(-2.0, 2.0) == 4.0 and math.isnan(fm.pow(-2.0, 0.5))
    assert fm.pow(2.0, 10.0) == 1024.0 and fm.pow(10.0, 400.0) == inf


def test_exact_powers_of_two_and_integers() -> None:
    for k in range(-60, 61):
        assert fm.pow(2.0, float(k)) == 2.0**k
        assert fm.log(2.0**k) == float(CTX.multiply(k, CTX.ln(2)))
    for n in range(1, 30):
        assert fm.pow(float(n), 2.0) == float(n * n)


@pytest.mark.parametrize("name", ["exp", "expm1", "log", "log1p", "tanh", "sigmoid"])
def test_ufuncs_equal_the_scalar_functions(name: str) -> None:
    xs = RNG.uniform(-20, 20, 500)
    if name.startswith("log"):
        xs = np.abs(xs)
    scalar = getattr(fm, name)
    ufunc = getattr(fm, name + "_u")
    want = np.array([scalar(float(x)) for x in xs])
    np.testing.assert_array_equal(ufunc(xs), want)
    assert ufunc(xs).tobytes() == want.tobytes()


def test_tanh_inplace_is_tanh_bit_for_bit() -> None:
    """The vectorised ``tanh_inplace`` (the learned networks' hidden layers) against the scalar
    ``tanh`` on each of its paths: tiny (returned as is), the expm1 range, the exp range
    (|x| in (20, 22]), saturated, ±0, ±inf and NaN, and a length that is not a multiple of any
    vector width."""
    xs = np.concatenate([RNG.normal(0, 3, 2001), RNG.uniform(19.5, 22.5, 300), RNG.normal(0, 1e-8, 50),
                         [0.0, -0.0, math.nan, math.inf, -math.inf, 1e-9, -1e-9, 0.99e-9, 20.0,
                          np.nextafter(20.0, 21.0), 22.0, np.nextafter(22.0, 23.0), -22.0, 5e-324,
                          -5e-324, 700.0, -1e300]])
    got = xs.copy()
    fm.tanh_inplace(got, got.size, np.empty((3, got.size)))
    want = np.array([fm.tanh(float(x)) for x in xs])
    assert got.tobytes() == want.tobytes()
    part = xs[:37].copy()
    fm.tanh_inplace(part, 20, np.empty((3, 20)))      # only the first n change
    assert part[:20].tobytes() == want[:20].tobytes() and part[20:].tobytes() == xs[20:37].tobytes()


def test_pow_ufunc_broadcasts_integer_exponents() -> None:
    base = RNG.uniform(0, 1, (40, 1))
    k = np.arange(5)[None, :]
    want = np.array([[fm.pow(float(b), float(j)) for j in range(5)] for b in base[:, 0]])
    assert fm.pow_u(base, k).tobytes() == want.tobytes()


ASM_PROBE = """
import json
from bluffsim import fmath as fm
import numpy as np
for f in (fm.exp, fm.log, fm.log1p, fm.expm1, fm.tanh, fm.pow, fm.sigmoid):
    f(0.5) if f is not fm.pow else f(0.5, 3.0)
fm.tanh_inplace(np.ones(9), 9, np.empty((3, 9)))
from agents import learned
learned.forward([(np.ones((3, 4), np.float32), np.ones(4, np.float32)),
                 (np.ones((4, 2), np.float32), np.ones(2, np.float32))], np.ones((2, 3)))
print(json.dumps({f.__name__: "\\n".join(f.inspect_asm().values())
                  for f in (fm.exp, fm.log, fm.log1p, fm.expm1, fm.tanh, fm.pow, fm.sigmoid,
                            fm.tanh_inplace, learned._forward_kernel)}))
"""


def test_machine_code_has_no_fused_multiply_add(tmp_path) -> None:
    """numba must not contract ``a * b + c`` into an FMA: an FMA rounds once where the
    reference rounds twice, and CPUs without FMA would compute other bits.  Compiled in a
    fresh process with an empty cache (numba cannot show the machine code of cached functions)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", ASM_PROBE], env=env, capture_output=True,
                         text=True, check=True).stdout
    asm = json.loads(out.strip().splitlines()[-1])
    assert set(asm) == {"exp", "log", "log1p", "expm1", "tanh", "pow", "sigmoid", "tanh_inplace",
                        "_forward_kernel"}  # the learned network's sums, weighted_sums
    assert "mulpd" in asm["tanh_inplace"]  # packed: it is vectorised (at any vector width)
    for name, code in asm.items():
        assert "mulsd" in code or "vmulsd" in code or "mulpd" in code, name  # real code, not a stub
        for fused in ("fmadd", "fmsub", "fnmadd", "fnmsub"):
            assert fused not in code, (name, fused)
