"""The float contract (docs/float_contract.md) where a batch could leak into a row: every shipped
``learned`` network's logits and probabilities have the same bits for a row alone as inside a
batch (BLAS's float32 products did not: every row differed), on observations of played games."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import bluffsim
from agents.learned import WEIGHTS_DIR, forward, masked_probs
from tests.games import decision_steps, random_actions

SHIPPED = sorted(p.stem for p in WEIGHTS_DIR.glob("*_*p.npz") if not p.stem.startswith("qdv_small"))


@pytest.mark.parametrize("name", SHIPPED)
def test_learned_logits_do_not_depend_on_the_batch(name: str) -> None:
    game_id, players = name.rsplit("_", 1)
    game = bluffsim.make(game_id, int(players[:-1]))
    agent = agents.make("learned", game)
    st = game.init(np.arange(64, dtype=np.uint64) + 11)
    rows = []
    for obs, mask, _, live in decision_steps(game, st, 60):
        x = agent.observe.to_tensor(game.rules, obs)
        rows.append((x[live], mask[live]))
        game.step(st, random_actions(game, st))
    x = np.concatenate([r[0] for r in rows])
    mask = np.concatenate([r[1] for r in rows])
    assert x.shape[0] > 500 and np.count_nonzero(x) > 0
    whole = forward(agent.layers, x)
    pick = np.random.default_rng(0).choice(x.shape[0], 40, replace=False)
    for i in pick:
        alone = forward(agent.layers, x[i:i + 1])
        assert alone.tobytes() == whole[i:i + 1].tobytes()
        assert (masked_probs(alone, mask[i:i + 1]).tobytes()
                == masked_probs(whole[i:i + 1], mask[i:i + 1]).tobytes())
    # and in a batch of another size, another offset
    assert forward(agent.layers, x[7:300]).tobytes() == whole[7:300].tobytes()
