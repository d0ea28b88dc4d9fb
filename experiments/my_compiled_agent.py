"""An example of your own compiled agent (``docs/writing_an_agent.md``): a qdv player that calls
``menteur`` when the standing bid exceeds what it can count on by more than ``margin``, and
otherwise raises the standing fruit by one (or plays a random legal action when it cannot).

It is one numba function on the observation record (``agents.policy``), so ``bluffsim run``
plays it inside the fused loop beside the engine and the built-in agents:

    bluffsim run experiments/compiled_agent.toml
"""

import numpy as np
from numba import njit

from agents import CompiledAgent
from agents.base import probability, real
from agents.random import random_policy
from bluffsim.games.qdv import rules as R


@njit(cache=True)
def doubter_policy(obs, mask, key, r, params, ctx):
    """Call when the bid is above my count of its fruit plus ``share`` per hidden card by more
    than ``margin``; else raise the fruit by one; else a random legal action."""
    margin, share = params[0], params[1]
    if obs.phase != R.PHASE_BID:
        return random_policy(obs, mask, key, r, params, ctx)
    fruit = max(np.int64(obs.bid_fruit), 0)
    mine = np.int64(obs.hand[R.SALAD])  # my salads count for any fruit I declare
    for m in range(R.MAX_MULT):
        mine += np.int64(obs.hand[fruit * R.MAX_MULT + m]) * (m + 1)
    hidden = np.int64(0)
    for s in range(r.num_players):  # per-seat fields are sized to the largest table
        if s != obs.seat:
            hidden += obs.hand_sizes[s]
    if mask[R.MENTEUR] and obs.bid_count > mine + share * hidden + margin:
        return np.int64(R.MENTEUR)
    if mask[fruit]:  # "+1 <fruit>"
        return np.int64(fruit)
    return random_policy(obs, mask, key, r, params, ctx)


class Doubter(CompiledAgent):
    name = "doubter"
    games = ("qdv",)
    params = {"margin": 1.0, "share": 0.3}
    spec = {"margin": real(doc="call when the bid exceeds my count by more than this"),
            "share": probability("what each hidden card adds to a fruit's count")}
    policy = doubter_policy
