"""veru agents keep working with the extended observation (issue 12 point 11).

The heuristic without its record rules (``record=0``) reads no tally, and an observation
without the memory fields counts as one that remembers nothing: its decisions on an
observation without the new keys are those on the full observation with ``my_out`` and
``known_in_hand`` zeroed.  (Until issue 15 its decisions did not depend on the new keys at
all, for the default heuristic and for counting; issue 15 makes counting read the per-seat
tallies — ``test_counting_reads_the_tallies`` — and gives the heuristic rules of thumb
that read the checked claims (on by default) and, in its impossibility check, the cards it
remembers elsewhere (``my_out``, ``known_in_hand``) — ``test_heuristic_reads_the_memory``:
the premise changed.)
"""

from __future__ import annotations

import numpy as np
import pytest

import agents
import bluffsim
from bluffsim.rng import AgentRNG
from tests.games import decision_steps

NEW_KEYS = ("my_out", "known_in_hand", "claims", "cards_claimed", "claims_checked", "checks",
            "pickups", "timeouts", "swaps_made")
MEMORY = ("my_out", "known_in_hand")


def forget(obs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The observation with the memory fields zeroed (a seat that remembers nothing)."""
    return {k: (np.zeros_like(v) if k in MEMORY else v) for k, v in obs.items()}


@pytest.mark.parametrize("name, params", [("heuristic", {"record": 0})])
def test_veru_agents_decide_the_same_without_the_new_observation_fields(name, params):
    """Dropping the issue-12 fields decides as remembering nothing (memory zeroed)."""
    game = bluffsim.make("veru", 4, joker_swap_seats=(1,), check_seats=(2,))
    agent = agents.make(name, game, **params)
    st = game.init(np.arange(64))
    compared = 0
    for obs, mask, rng, live in decision_steps(game, st, 150):
        assert set(NEW_KEYS) <= set(obs)
        old = {k: v for k, v in obs.items() if k not in NEW_KEYS}
        full = agent.act(forget(obs), mask, rng)
        rng = AgentRNG(st.seed, st.current_player, st.num_decisions)
        trimmed = agent.act(old, mask, rng)
        np.testing.assert_array_equal(full[live], trimmed[live])
        assert st.legal_action_mask[np.flatnonzero(live), full[live]].all()
        compared += int(live.sum())
        game.step(st, np.where(live, full, -1))
    assert compared > 1000


def test_heuristic_reads_the_memory():
    """Issue 15: the heuristic's impossibility check counts the cards it remembers elsewhere
    (its own out unseen, cards known in a hand), so some decisions change without them."""
    game = bluffsim.make("veru", 4)
    agent = agents.make("heuristic", game, record=0)
    st = game.init(np.arange(64))
    changed = 0
    for obs, mask, rng, live in decision_steps(game, st, 400):
        full = agent.act(obs, mask, rng)
        rng = AgentRNG(st.seed, st.current_player, st.num_decisions)
        blind = agent.act(forget(obs), mask, rng)
        changed += int((full[live] != blind[live]).sum())
        game.step(st, np.where(live, full, -1))
    assert changed > 0


def test_counting_reads_the_tallies():
    """Issue 15: counting's per-seat model is fitted online from the tallies, so some
    decisions change when they are replaced by those of a seat never checked."""
    game = bluffsim.make("veru", 4)
    agent = agents.make("counting", game)
    st = game.init(np.arange(64))
    changed = 0
    for obs, mask, rng, live in decision_steps(game, st, 300):
        blank = {k: (np.zeros_like(v) if k in NEW_KEYS[2:] else v) for k, v in obs.items()}
        full = agent.act(obs, mask, rng)
        trimmed = agent.act(blank, mask, rng)
        changed += int((full[live] != trimmed[live]).sum())
        assert st.legal_action_mask[np.flatnonzero(live), trimmed[live]].all()
        game.step(st, np.where(live, full, -1))
    assert changed > 20
