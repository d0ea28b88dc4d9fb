"""``[run]`` keys declared once (issue 14 point 4): validation, dump and CLI flags derive from ``RUN``."""

from __future__ import annotations

import dataclasses

import pytest

from bluffsim.cli import build_parser
from bluffsim.tournament.config import RUN, ConfigError, Experiment, parse_config

BASE = {"experiment": {"game": "qdv", "players": 2, "games": 10},
        "seats": [{"agent": "random"}, {"agent": "random"}]}


def test_run_keys_are_the_experiment_fields_with_their_defaults() -> None:
    """Every declared key is an ``Experiment`` field with the declared default, and is dumped."""
    fields = {f.name: f.default for f in dataclasses.fields(Experiment)}
    exp = parse_config(BASE)
    text = exp.to_toml().split("[run]")[1]
    for key in RUN:
        assert fields[key.name] == key.default, key.name
        assert getattr(exp, key.name) == key.default, key.name
        assert (f"\n{key.name} = " in text) == (key.default is not None), key.name


@pytest.mark.parametrize("key", [k for k in RUN if k.name != "lineups"], ids=lambda k: k.name)
def test_every_run_key_refuses_a_bad_value_naming_it(key) -> None:
    """A value of the wrong type raises ``ConfigError`` naming ``run.<key>`` and the allowed values."""
    bad = 1.5 if isinstance(key.default, str) else "x"
    with pytest.raises(ConfigError, match=rf"run\.{key.name} = .* is invalid; allowed: "):
        parse_config({**BASE, "run": {key.name: bad}})


def test_the_run_flags_override_their_keys() -> None:
    """The CLI keeps --batch, --workers, --executor, --address, --out and --no-plots."""
    from bluffsim.tournament.config import run_overrides

    args = build_parser().parse_args(["run", "x.toml", "--batch", "7", "--workers", "2", "--executor",
                                      "dask", "--address", "tcp://h:1", "--out", "o", "--no-plots"])
    assert run_overrides(args) == {"batch": 7, "workers": 2, "executor": "dask",
                                   "address": "tcp://h:1", "out": "o", "plots": False}
    none = run_overrides(build_parser().parse_args(["run", "x.toml"]))
    assert set(none.values()) == {None}
