"""``experiments/determinism/libm_diff.py`` (the table of docs/float_contract.md) prints one row
per function with counts within the inputs, and its inputs are seeded (the same twice)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "experiments" / "determinism" / "libm_diff.py"


def test_the_table_has_a_row_per_function_with_counts_within_the_inputs():
    out = subprocess.run([sys.executable, str(SCRIPT), "--n", "500"], capture_output=True,
                         text=True, check=True, timeout=120).stdout
    assert out.startswith("`python experiments/determinism/libm_diff.py --n 500`")
    rows = re.findall(r"^\| `(\w+)` \| 500 \| ([\d,]+) \([\d.]+%\) \| ([\d,]+) \([\d.]+%\) \|$", out, re.M)
    assert [r[0] for r in rows] == ["exp", "log", "log1p", "expm1", "tanh", "pow"]
    assert all(0 <= int(a.replace(",", "")) <= 500 and 0 <= int(b.replace(",", "")) <= 500
               for _, a, b in rows)


def test_inputs_are_seeded_and_inside_each_range():
    import importlib.util

    spec = importlib.util.spec_from_file_location("libm_diff", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for name, (_, _, (lo, hi)) in mod.FUNCTIONS.items():
        x = mod.inputs(name, 1000)
        assert np.array_equal(x, mod.inputs(name, 1000))
        base = x[:, 0] if x.ndim == 2 else x
        assert base.min() >= lo * (1 - 1e-12) and base.max() <= hi * (1 + 1e-12), name
