"""The differential helper (``tests.games.assert_same_game``) fails on any difference between the
engines, whether it takes the quick path (a few rows, compared as Python lists) or compares
field by field: a result field, a legal action or one observation value changed on the fast side
is an ``AssertionError`` naming it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.games import CASE_IDS, CASES, Case, assert_same_game, random_actions


class ChangedObservation:
    """The game ``game`` whose observation has ``key`` changed by one at row ``row``."""

    def __init__(self, game: Any, key: str, row: int):
        self.game, self.key, self.row = game, key, row

    def observe(self, st: Any) -> dict[str, np.ndarray]:
        obs = {k: np.array(v) for k, v in self.game.observe(st).items()}
        flat = obs[self.key][self.row].reshape(-1)
        flat[0] = not flat[0] if flat.dtype == np.bool_ else flat[0] + 1
        obs[self.key][self.row] = flat.reshape(obs[self.key][self.row].shape)
        return obs


def played(case: Case, batch: int) -> tuple[Any, Any, Any, list]:
    """Both engines after three random decisions of ``batch`` games, checked equal."""
    game = case.make()
    ref = case.reference.ReferenceGame(game.rules)
    seeds = np.arange(batch) + 11
    st, rstates = game.init(seeds), [ref.new_game(int(s)) for s in seeds]
    for _ in range(3):
        actions = random_actions(game, st)
        for b in np.flatnonzero(~st.done):
            ref.apply(rstates[b], int(actions[b]))
        game.step(st, actions)
    assert_same_game(game, ref, st, rstates)
    return game, ref, st, rstates


@pytest.mark.parametrize("batch", [1, 9])
@pytest.mark.parametrize("case", CASES[:1] + [c for c in CASES if c.game_id == "veru"][:1],
                         ids=CASE_IDS[:1] + [str(c) for c in CASES if c.game_id == "veru"][:1])
def test_a_changed_field_mask_or_observation_fails_on_both_paths(case: Case, batch: int) -> None:
    game, ref, st, rstates = played(case, batch)
    row = batch - 1
    changed = st.copy()
    changed.hot["num_decisions"][row] += 1
    with pytest.raises(AssertionError, match="num_decisions"):
        assert_same_game(game, ref, changed, rstates)
    changed = st.copy()
    mask = changed.hot["mask"][row]
    mask[np.flatnonzero(mask == 0)[0]] = 1
    with pytest.raises(AssertionError, match="legal actions"):
        assert_same_game(game, ref, changed, rstates)
    for key in ("seat", list(game.observe(st))[-1]):
        with pytest.raises(AssertionError, match=f"key {key}"):
            assert_same_game(ChangedObservation(game, key, row), ref, st, rstates)
    assert_same_game(game, ref, st, rstates, observations=False)
