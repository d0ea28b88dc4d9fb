"""qdv's fused loop: built-in agents' compiled policies inside the engine (``agents.fused``).

``play_seats_kernel`` plays, game after game, up to ``decisions`` decisions with the policy of
the lineup member in the current seat, each on the observation record the loop fills
(``agents.policy``): ``random``, ``heuristic`` (``heuristic.heuristic_policy``) or ``counting``
(``counting_kernel.counting_policy``) — the very functions the agents' ``act`` runs.  The
counting memo tables are shared by every counting agent of the same rules
(``counting.count_table``); when one runs full the kernel stops and ``agents.fused`` grows
them and resumes.
"""

from __future__ import annotations

from numba import njit

from agents.fused import COUNTING, HEURISTIC, RANDOM, no_policy, play_seats_loop
from agents.qdv import counting_kernel as CK
from agents.qdv import heuristic as H
from agents.qdv.counting import QdvCounting, memo_tables
from agents.random import RandomAgent
from bluffsim.games.qdv import kernels as KN

# the compiled policies of the heuristic and counting kinds (``agents.policy``)
HEURISTIC_POLICY, COUNTING_POLICY = H.heuristic_policy, CK.counting_policy
# agent class -> (policy kind, its parameter row, the ``act`` that runs the same policy)
POLICIES = {RandomAgent: (RANDOM, lambda agent: [], RandomAgent.act),
            H.QdvHeuristic: (HEURISTIC, H.QdvHeuristic.params_row, H.QdvHeuristic.act),
            QdvCounting: (COUNTING, QdvCounting.kernel_params, QdvCounting.act)}


def contexts(game) -> tuple:
    """``(hctx, cctx)``: the policies' ``ctx`` (``heuristic.contexts``,
    ``QdvCounting.contexts``), fetched at each call: the memo tables grow."""
    return H.contexts(game.rules), QdvCounting(game).contexts()


def grow(game) -> None:
    """Room for one more row in every counting memo table (as ``QdvCounting.act``)."""
    for t in memo_tables(game.rules):
        t.room()


@njit(cache=True)
def play_seats_kernel(args):
    """``agents.fused.play_seats_loop`` with qdv's policies and engine (``args``: its docstring)."""
    return play_seats_loop(HEURISTIC_POLICY, COUNTING_POLICY, no_policy, KN.observe_row,
                           KN.tensor_row, KN.apply, args)
