"""Without numba's JIT (``NUMBA_DISABLE_JIT=1``, to step through a kernel in a debugger) the
engines and the fused agents run as plain Python and play exactly the games they play compiled;
the LLVM intrinsics' Python twins give the intrinsics' results."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pandas as pd
import pytest

from bluffsim import bits_nb, fmath
from bluffsim.cli import main

ROOT = Path(__file__).resolve().parents[1]


def config(tmp_path: Path, game: str) -> Path:
    """Six games of counting, heuristic and random (every fused agent kind but learned)."""
    path = tmp_path / f"{game}.toml"
    path.write_text(f"""[experiment]
name = "no_jit"
game = "{game}"
players = 3
games = 6
seed = 5

[[seats]]
agent = "counting"

[[seats]]
agent = "heuristic"

[[seats]]
agent = "random"
""", encoding="utf-8")
    return path


@pytest.mark.slow
@pytest.mark.parametrize("game", ["qdv", "legumes", "veru"])
def test_a_run_without_the_jit_plays_the_compiled_games(tmp_path, game) -> None:
    cfg = config(tmp_path, game)
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1",
           "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    plain = subprocess.run([sys.executable, "-m", "bluffsim.cli", "run", str(cfg), "--out",
                            str(tmp_path / "plain"), "--quiet"], capture_output=True, text=True,
                           env=env, timeout=300)
    assert plain.returncode == 0, plain.stderr[-2000:]
    assert main(["run", str(cfg), "--out", str(tmp_path / "compiled"), "--quiet"]) == 0
    a = pd.read_parquet(tmp_path / "plain" / "games.parquet")
    b = pd.read_parquet(tmp_path / "compiled" / "games.parquet")
    assert len(a) == 18
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "plain" / "rounds.parquet"),
                                  pd.read_parquet(tmp_path / "compiled" / "rounds.parquet"))


WORDS = np.random.default_rng(3).integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max,
                                          200, dtype=np.int64)


@numba.njit
def _compiled_bits(words: np.ndarray, floats: np.ndarray, bytes_: np.ndarray, out: np.ndarray,
                   fout: np.ndarray) -> None:
    for i in range(words.size):
        out[i, 0] = bits_nb._ctpop(words[i])
        out[i, 1] = bits_nb._cttz(words[i])
        out[i, 2] = fmath.float_bits(floats[i])
        fout[i] = fmath.bits_float(words[i])
    for i in range(bytes_.size - 8):
        out[i, 3] = np.int64(bits_nb._load_u64(bytes_, i))


def test_the_python_twins_of_the_intrinsics_give_the_intrinsics_results() -> None:
    words = np.concatenate([WORDS, [0, 1, -1, np.iinfo(np.int64).min]]).astype(np.int64)
    floats = np.random.default_rng(4).standard_normal(words.size) * 1e10
    floats[:4] = [0.0, -0.0, np.inf, 5e-324]
    raw = np.random.default_rng(5).integers(0, 256, words.size + 8, dtype=np.uint8)
    out = np.zeros((words.size, 4), np.int64)
    fout = np.zeros(words.size)
    _compiled_bits(words, floats, raw, out, fout)
    for i, w in enumerate(words):
        assert bits_nb._ctpop(w) == out[i, 0]
        assert bits_nb._cttz(w) == out[i, 1]
        assert fmath.float_bits(floats[i]) == out[i, 2]
        assert np.float64(fmath.bits_float(w)).tobytes() == np.float64(fout[i]).tobytes()
        if i < raw.size - 8:
            assert int(bits_nb._load_u64(raw, i)) == int(out[i, 3]) & bits_nb.WORD
    assert bits_nb._cttz(0) == 64 and bits_nb._ctpop(-1) == 64
