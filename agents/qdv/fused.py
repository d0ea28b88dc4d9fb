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
from agents.qdv.counting_kernel import counting_policy
from agents.qdv.heuristic import heuristic_policy
from bluffsim.games.qdv import kernels as KN


@njit(cache=True)
def play_seats_kernel(args):
    """``agents.fused.play_seats_loop`` with qdv's heuristic and counting policies."""
    return play_seats_loop(heuristic_policy, counting_policy, no_policy, KN.observe_row,
                           KN.tensor_row, KN.apply, args)
