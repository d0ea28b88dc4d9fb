"""The compiled ``random`` agent picks exactly what the numpy formula picked, for every game."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import bluffsim
from agents.base import nth_legal
from bluffsim.rng import AgentRNG


def numpy_random(legal_mask: np.ndarray, rng: AgentRNG) -> np.ndarray:
    """The former numpy random agent: the n-th legal action, n = rng.below(#legal)."""
    counts = legal_mask.sum(axis=1)
    return nth_legal(legal_mask, rng.below(np.maximum(counts, 1)))


def test_same_choices_as_the_numpy_formula_on_random_masks() -> None:
    gen = np.random.default_rng(3)
    agent = agents.make("random", bluffsim.make("qdv", 4))
    for width in (1, 2, 7, 29, 64):
        mask = gen.random((3000, width)) < gen.random((3000, 1))
        mask[:5] = False  # rows without a legal action give 0
        seeds = gen.integers(0, 2**63, 3000)
        rng = AgentRNG(seeds, gen.integers(-1, 6, 3000), gen.integers(0, 10**6, 3000))
        got = agent.act(None, mask, rng)
        assert got.tolist() == numpy_random(mask, rng).tolist()
        assert (got[:5] == 0).all()
        assert mask[np.arange(3000), got][mask.any(axis=1)].all()
        # strided (a view, as qdv's mask is) and contiguous masks give the same
        wide = np.zeros((3000, width + 3), bool)
        wide[:, :width] = mask
        assert agent.act(None, wide[:, :width], rng).tolist() == got.tolist()


@pytest.mark.parametrize("game_id", bluffsim.list_games())
def test_same_choices_in_play_for_every_game(game_id: str) -> None:
    game = bluffsim.make(game_id, 4)
    agent = agents.make("random", game)
    st = game.init(np.arange(300))
    for _ in range(300):
        if st.done.all():
            break
        rng = AgentRNG(st.seed, st.current_player, st.num_decisions)
        a = agent.act(None, st.legal_action_mask, rng)
        want = numpy_random(np.asarray(st.legal_action_mask), rng)
        live = ~st.done
        assert a[live].tolist() == want[live].tolist()
        game.step(st, np.where(st.done, -1, a))
    assert (st.num_decisions > 0).all()
