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

from agents.fused import no_policy, play_seats_loop
from agents.qdv.counting import QdvCounting
from agents.qdv.heuristic import QdvHeuristic
from bluffsim.games.qdv import kernels as KN

# the built-in agents of the heuristic and counting kinds and their policies (``agents.policy``)
HEURISTIC_AGENT, COUNTING_AGENT = QdvHeuristic, QdvCounting
HEURISTIC_POLICY, COUNTING_POLICY = QdvHeuristic.policy, QdvCounting.policy


@njit(cache=True)
def play_seats_kernel(args):
    """``agents.fused.play_seats_loop`` with qdv's policies and engine (``args``: its docstring)."""
    return play_seats_loop(HEURISTIC_POLICY, COUNTING_POLICY, no_policy, KN.observe_row,
                           KN.tensor_row, KN.apply, args)
