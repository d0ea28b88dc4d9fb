"""The pinned determinism check (``experiments/determinism/check.py``) on this machine, with numpy's
native SIMD dispatch and again with every dispatched target above the baseline (AVX2, AVX-512)
and glibc's FMA/AVX2 math turned off: the tournaments' content hashes equal the pinned ones
in both, at both batch sizes."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from tests.scripts import EXPERIMENTS, load_script

CHECK = EXPERIMENTS / "determinism" / "check.py"


def numpy_dispatch_targets() -> list[str]:
    """numpy's dispatched CPU targets above its baseline (e.g. X86_V3 = AVX2, X86_V4 = AVX-512)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from numpy._core._multiarray_umath import __cpu_dispatch__
    return list(__cpu_dispatch__)


def run_check(env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(CHECK)], env={**os.environ, **env},
                          capture_output=True, text=True, timeout=900,
                          cwd=Path(__file__).resolve().parents[1])


def test_pinned_hashes_with_native_numpy_dispatch() -> None:
    done = run_check({"NPY_DISABLE_CPU_FEATURES": ""})
    assert done.returncode == 0, done.stderr[-3000:]
    assert "every digest matches" in done.stdout


def test_pinned_hashes_with_simd_and_fma_math_disabled() -> None:
    targets = numpy_dispatch_targets()
    if not targets:
        pytest.skip("this numpy build dispatches no SIMD targets above its baseline")
    env = {"NPY_DISABLE_CPU_FEATURES": " ".join(targets),
           "GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX2,-FMA,-AVX512F"}
    probe = subprocess.run([sys.executable, "-W", "ignore", "-c",
                            "from numpy._core._multiarray_umath import __cpu_features__ as f;"
                            "print(' '.join(k for k, v in f.items() if v))"],
                           env={**os.environ, **env}, capture_output=True, text=True, check=True)
    # the disabled targets really are off in the child (e.g. X86_V4, i.e. AVX512_SKX)
    assert not set(targets) & set(probe.stdout.split()), probe.stdout
    done = run_check(env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "every digest matches" in done.stdout


def test_a_changed_digest_is_reported() -> None:
    check = load_script("determinism/check.py")
    got = {"qdv": {"7": {"games": "a" * 64, "rounds": "b" * 64}}}
    pinned = {"qdv": {"games": "a" * 64, "rounds": "c" * 64}}
    assert check.mismatches(got, pinned) == [f"qdv batch 7 rounds.parquet: {'b' * 16} != pinned "
                                             f"{'c' * 16}"]
    assert check.mismatches(got, {"qdv": {"games": "a" * 64, "rounds": "b" * 64}}) == []
