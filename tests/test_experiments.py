"""Every experiment config in experiments/ is valid and runnable as is."""

from pathlib import Path

import pytest

from bluffsim.tournament import load_config, play_shard

# train_*.toml are `bluffsim train` configs, checked in tests/test_learn.py
CONFIGS = sorted(p for p in (Path(__file__).resolve().parents[1] / "experiments").glob("*.toml")
                 if not p.name.startswith("train_"))


@pytest.mark.parametrize("path", CONFIGS, ids=[p.stem for p in CONFIGS])
def test_experiment_config_loads_and_plays(path):
    exp = load_config(path).with_overrides(games=8, batch=8)
    games, _ = play_shard(exp, 0)
    assert games["game"].nunique() == min(8, exp.shard_games)
    assert set(games["agent"]) == set(exp.labels)
