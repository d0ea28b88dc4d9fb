"""A process that has loaded JAX (multithreaded: forking it may deadlock a child) runs its
local worker pool from a fork server, and plays the same games as a fresh process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bluffsim.tournament.executors import pool_start_method

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = """
import json, sys, tempfile, warnings
from pathlib import Path
if sys.argv[1] == "jax":
    import jax  # noqa: F401  (a notebook that trained an agent)
warnings.simplefilter("error", RuntimeWarning)  # os.fork() with JAX loaded warns
from bluffsim.tournament.config import load_raw, parse_config
from bluffsim.tournament.executors import pool_start_method
from bluffsim.tournament.experiment import run_experiment
from bluffsim.results import results_digest
raw = load_raw("experiments/quickstart.toml")
with tempfile.TemporaryDirectory() as tmp:
    raw["experiment"]["games"] = 40
    raw["run"].update(workers=2, shard_games=10, plots=False, out=str(Path(tmp) / "q"))
    run_experiment(parse_config(raw), progress=False)
    print(json.dumps({"method": pool_start_method(), "digest": results_digest(Path(tmp) / "q")}))
"""


def play(mode: str) -> dict:
    done = subprocess.run([sys.executable, "-c", SCRIPT, mode], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_without_jax_the_platform_default_is_kept() -> None:
    if "jax" in sys.modules:
        pytest.skip("this test process has loaded JAX")
    assert pool_start_method() is None


def test_a_process_with_jax_uses_a_fork_server_and_plays_the_same_games() -> None:
    pytest.importorskip("jax", reason="needs the 'learn' extra")
    with_jax, plain = play("jax"), play("plain")
    assert with_jax["method"] == "forkserver" and plain["method"] is None
    assert with_jax["digest"] == plain["digest"]
