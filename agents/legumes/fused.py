"""legumes' fused loop: built-in agents' compiled policies inside the engine (``agents.fused``).

``play_seats_kernel`` plays, game after game, up to ``decisions`` decisions with the policy of
the lineup member in the current seat: ``random``, ``heuristic`` (``heuristic_policy``) or
``counting`` (``counting_policy``), each on the observation record the loop fills
(``observe_row``): the very functions the agents' ``act`` runs, so their decisions are the
agents' by construction.  No memo tables: ``grow`` is never asked for.

What the fused loop gains end to end: ``docs/bench.md`` ("Built-in agents in the fused loops").
"""

from __future__ import annotations

from numba import njit

from agents.fused import COUNTING, HEURISTIC, RANDOM, no_policy, play_seats_loop
from agents.legumes import counting as C
from agents.legumes import heuristic as H
from agents.random import RandomAgent
from bluffsim.games.legumes import kernels as KN

# the compiled policies of the heuristic and counting kinds (``agents.policy``)
HEURISTIC_POLICY, COUNTING_POLICY = H.heuristic_policy, C.counting_policy
# agent class -> (policy kind, its parameter row, the ``act`` that runs the same policy)
POLICIES = {RandomAgent: (RANDOM, lambda agent: [], RandomAgent.act),
            H.LegumesHeuristic: (HEURISTIC, H.params_row, H.LegumesHeuristic.act),
            C.LegumesCounting: (COUNTING, C.params_row, C.LegumesCounting.act)}


def contexts(game) -> tuple:
    """``(hctx, cctx)``: nothing for the heuristic; the counting policy's ``context``."""
    return (), C.context(game.rules)


def grow(game) -> None:
    """No memo tables to grow (``counting_policy`` never returns ``MEMO_FULL``)."""


@njit(cache=True)
def play_seats_kernel(args):
    """``agents.fused.play_seats_loop`` with legumes' policies and engine (``args``: its docstring)."""
    return play_seats_loop(HEURISTIC_POLICY, COUNTING_POLICY, no_policy, KN.observe_row,
                           KN.tensor_row, KN.apply, args)
