"""Tournaments: TOML experiment configs, schedules, batched play, executors and results.

``bluffsim run experiments/<x>.toml`` = ``load_config`` -> ``run_experiment``.
"""

from bluffsim.tournament.config import ConfigError, Experiment, load_config, parse_config
from bluffsim.tournament.experiment import build_report, run_experiment
from bluffsim.tournament.runner import AgentFailure, play_shard
from bluffsim.tournament.schedule import Schedule

__all__ = ["AgentFailure", "ConfigError", "Experiment", "Schedule", "build_report", "load_config",
           "parse_config", "play_shard", "run_experiment"]
