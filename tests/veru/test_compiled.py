"""What is particular to the compiled veru engine (the rest is in ``tests/test_compiled.py``, run
over every compiled game): the compiled tensor equals ``observe.to_tensor`` with timeouts and
gadgets, the tests' scripted deal equals the seeded one, and an illegal action is refused
before any game moves while ``timeout`` (never in the mask) is accepted."""

from __future__ import annotations

import numpy as np
import pytest

from bluffsim import rng
from bluffsim.games.veru import kernels as KN
from bluffsim.games.veru import observe as O
from bluffsim.games.veru import rules as R
from bluffsim.games.veru.vec import VeruGame
from tests.games import random_actions, same_games

GADGETS = dict(joker_swap_seats=(0, 2), check_seats=(1, 2), ace_hint_seats=(0, 1), jokers=6)


@pytest.mark.parametrize(("players", "options"), [(3, {}), (5, GADGETS), (6, GADGETS)])
def test_compiled_tensor_equals_observe_to_tensor(players: int, options: dict) -> None:
    rules = R.Rules(num_players=players, endgame_limit=40, **options)
    game = VeruGame(rules)
    st = game.init(np.arange(200))
    timeouts = 0
    for i in range(2000):
        if i % 7 == 0:
            want = O.to_tensor(rules, game.observe(st))
            np.testing.assert_array_equal(game.observation_tensor(st), want)
        if st.done.all():
            break
        a = random_actions(game, st)
        late = ~st.done & (np.arange(200) % 13 == i % 13)  # a few timeouts too
        a[late] = R.TIMEOUT
        timeouts += int(late.sum())
        game.step(st, a)
    assert st.done.all() and timeouts > 0
    np.testing.assert_array_equal(game.observation_tensor(st), O.to_tensor(rules, game.observe(st)))


@pytest.mark.parametrize("players", [3, 6])
def test_the_scripted_deal_kernel_deals_like_the_seeded_shuffle(players: int) -> None:
    """``kernels.deal_kernel`` (the tests' scripted deals) given each seed's own shuffle gives
    exactly ``init``'s games."""
    game = VeruGame(R.Rules(num_players=players, jokers=5))
    seeds = np.arange(300)
    st = game.empty_state(seeds.astype(np.uint64))
    orders = rng.permutations(seeds, rng.Stream.DEAL, 0, 52)
    KN.deal_kernel(st.data, st.hot, game._rec, np.arange(seeds.size), orders)
    assert same_games(st, game.init(seeds))


def test_an_illegal_action_is_refused_before_any_game_moves() -> None:
    """The compiled step checks every game first: the first illegal one is named, nothing is
    applied; ``timeout`` (never in the mask) is accepted in a running game."""
    from bluffsim.api import IllegalActionError

    game = VeruGame(R.Rules(num_players=4))
    st = game.init(np.arange(4))
    before = st.copy()
    a = random_actions(game, st)
    a[2] = R.DONE  # nobody may say "done" before putting a card
    a[3] = 99
    with pytest.raises(IllegalActionError, match="batch index 2"):
        game.step(st, a)
    assert same_games(st, before)
    a[2], a[3] = R.TIMEOUT, R.TIMEOUT
    game.step(st, a)
    assert (st.timeouts[[2, 3]].sum(axis=1) == 1).all() and (st.num_decisions == 1).all()
