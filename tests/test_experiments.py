"""Every experiment config in experiments/ is valid and runnable as is."""

from pathlib import Path

import numpy as np
import pytest

from bluffsim.tournament import play_shard
from bluffsim.tournament.runner import schedule_of
from bluffsim.tournament.sweep import Sweep, load_plan

# train_*.toml are `bluffsim train` configs, checked in tests/test_learn.py
CONFIGS = sorted(p for p in (Path(__file__).resolve().parents[1] / "experiments").glob("*.toml")
                 if not p.name.startswith("train_"))


@pytest.mark.parametrize("path", CONFIGS, ids=[p.stem for p in CONFIGS])
def test_experiment_config_loads_and_plays(path):
    plan = load_plan(path).with_overrides(games=8, batch=8)
    # a sweep: every point was validated on load; play its first and last points
    for exp in (plan.points[0], plan.points[-1]) if isinstance(plan, Sweep) else (plan,):
        check_plays(exp)


def check_plays(exp):
    games, _ = play_shard(exp, 0)
    assert games["game"].nunique() == min(8, exp.shard_games)
    # the agents the schedule seats in these games (all of the lineup; a pool's first lineups)
    seated = schedule_of(exp).seat_lineup(np.arange(games["game"].nunique()))
    assert set(games["agent"]) == {exp.labels[j] for j in np.unique(seated)}
