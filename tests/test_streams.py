"""Random-stream ids in one place (issue 14 point 4): ``bluffsim.rng.Stream`` names every id."""

from __future__ import annotations

import pytest

from bluffsim import rng


def test_stream_ids_are_pinned_and_distinct() -> None:
    """The ids key every result file: their values never change, and no two streams share one."""
    ids = {k: v for k, v in vars(rng.Stream).items() if k.isupper()}
    assert ids == {"DEAL": 1, "CHALLENGE_DECK": 2, "EFFECT": 3, "OPENER": 4, "JOKER": 5,
                   "RESHUFFLE": 6, "SCHEDULE": 7, "POOL": 8, "AGENT": 1000, "MIX": 4242,
                   "RESEED": 4343, "ABR_EVAL": 4444, "RESPONSE": 4545}
    assert len(set(ids.values())) == len(ids)
    assert max(v for k, v in ids.items() if k != "AGENT" and v < 1000) < rng.Stream.AGENT


def test_every_module_stream_constant_is_a_named_id() -> None:
    """The modules' own stream constants are the ``Stream`` names (legumes' reference keeps its
    local name until its engine port lands; it must equal ``Stream.RESHUFFLE``)."""
    from bluffsim import learn, rng_nb
    from bluffsim.games.legumes import reference as legumes_ref
    from bluffsim.games.veru import reference as veru_ref
    from bluffsim.tournament import pool, schedule

    assert schedule.SCHEDULE_STREAM == rng.Stream.SCHEDULE
    assert pool.POOL_STREAM == rng.Stream.POOL
    assert learn.MIX_STREAM == rng.Stream.MIX
    assert veru_ref.JOKER_STREAM == rng.Stream.JOKER
    assert legumes_ref.RESHUFFLE_STREAM == rng.Stream.RESHUFFLE
    assert rng_nb.AGENT == rng.Stream.AGENT


def test_the_training_stream_constant_is_a_named_id() -> None:
    """PPO's reseed stream (the ``learn`` extra: skipped without JAX) is ``Stream.RESEED``."""
    pytest.importorskip("jax")
    from bluffsim.learn import ppo

    assert ppo.RESEED_STREAM == rng.Stream.RESEED
    assert ppo.RESPONSE_STREAM == rng.Stream.RESPONSE
    from bluffsim import abr

    assert abr.EVAL_STREAM == rng.Stream.ABR_EVAL
