"""How much the platform's float math differs from itself: the numbers behind docs/float_contract.md.

Two comparisons on the same ``--n`` inputs per function (seeded, uniform over a range where
the function is finite):

* **numpy vs the C library**: numpy's (possibly SIMD) ufunc against Python's ``math`` (the C
  library) element by element;
* **the C library's FMA vs SSE2 builds**: ``math`` in this process against ``math`` in a child
  process started with ``GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA`` (glibc then picks its
  baseline builds).

A result "differs" when its bits differ.  Where glibc ignores ``GLIBC_TUNABLES`` (another C
library, a setuid process) the child uses the same build and the last column reads 0.

Prints a markdown table (function, inputs, numpy differs, FMA vs SSE2 differs) headed by the
command, date, machine and versions::

    python experiments/determinism/libm_diff.py [--n 100000]

Which results differ depends on the CPU (numpy's SIMD target, glibc's choice of build) and on
the numpy and glibc versions: that is the point — ``bluffsim.fmath`` depends on none of them.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import subprocess
import sys

import numpy as np

# function -> (numpy ufunc name, math function name, input range)
FUNCTIONS = {
    "exp": ("exp", "exp", (-700.0, 700.0)),
    "log": ("log", "log", (1e-300, 1e300)),
    "log1p": ("log1p", "log1p", (-0.999, 1e6)),
    "expm1": ("expm1", "expm1", (-700.0, 700.0)),
    "tanh": ("tanh", "tanh", (-20.0, 20.0)),
    "pow": ("power", "pow", (0.0, 10.0)),
}


def inputs(name: str, n: int) -> np.ndarray:
    """float64[n] (float64[n, 2] for pow: base and exponent): the seeded inputs of ``name``."""
    lo, hi = FUNCTIONS[name][2]
    gen = np.random.default_rng(sum(map(ord, name)))
    if name == "pow":
        return np.stack([gen.uniform(lo, hi, n), gen.uniform(-30.0, 30.0, n)], axis=1)
    if name == "log":
        return np.exp(gen.uniform(math.log(lo), math.log(hi), n))
    return gen.uniform(lo, hi, n)


def libm_bits(name: str, x: np.ndarray) -> list[int]:
    """The C library's results of ``name`` on ``x`` as 64-bit patterns."""
    f = getattr(math, FUNCTIONS[name][1])
    vals = [f(a, b) for a, b in x] if x.ndim == 2 else [f(v) for v in x]
    return np.asarray(vals, dtype=np.float64).view(np.uint64).tolist()


def numpy_bits(name: str, x: np.ndarray) -> np.ndarray:
    """numpy's results of ``name`` on ``x`` as 64-bit patterns."""
    f = getattr(np, FUNCTIONS[name][0])
    return (f(x[:, 0], x[:, 1]) if x.ndim == 2 else f(x)).view(np.uint64)


def child_libm(n: int) -> dict[str, list[int]]:
    """``libm_bits`` of every function, computed in a child with glibc's baseline builds."""
    env = {**os.environ, "GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX2,-FMA"}
    out = subprocess.run([sys.executable, __file__, "--n", str(n), "--child"], env=env,
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def cpu_text() -> str:
    """The CPU's model name, whether it has AVX-512 (``avx512f``) and its cores, from
    ``/proc/cpuinfo`` where there is one."""
    try:
        lines = open("/proc/cpuinfo", encoding="utf-8").read().splitlines()
    except OSError:
        return f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores"
    model = next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("model name")),
                 platform.machine())
    flags = next((ln.split(":", 1)[1].split() for ln in lines if ln.startswith("flags")), [])
    return f"{model} ({'AVX-512' if 'avx512f' in flags else 'no AVX-512'}), {os.cpu_count()} cores"


def main() -> None:
    """Print the table (or, with ``--child``, this process's C-library bits as JSON)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000, help="inputs per function")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps({f: libm_bits(f, inputs(f, args.n)) for f in FUNCTIONS}))
        return
    baseline = child_libm(args.n)
    cpu = cpu_text()
    print(f"`python experiments/determinism/libm_diff.py --n {args.n}` — "
          f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, {cpu}, "
          f"{platform.libc_ver()[0]} {platform.libc_ver()[1]}, Python {platform.python_version()}, "
          f"numpy {np.__version__}\n")
    print("| function | inputs | numpy ≠ C library | C library FMA build ≠ SSE2 build |")
    print("|---|---:|---:|---:|")
    for f in FUNCTIONS:
        x = inputs(f, args.n)
        mine = np.asarray(libm_bits(f, x), dtype=np.uint64)
        npy = int((numpy_bits(f, x) != mine).sum())
        fma = int((np.asarray(baseline[f], dtype=np.uint64) != mine).sum())
        print(f"| `{f}` | {args.n:,} | {npy:,} ({npy / args.n:.2%}) | {fma:,} ({fma / args.n:.3%}) |")


if __name__ == "__main__":
    main()
