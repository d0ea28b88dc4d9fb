"""veru's fused loop: built-in agents' compiled policies inside the engine (``agents.fused``).

``play_seats_kernel`` plays, game after game, up to ``decisions`` decisions with the
policy of the lineup member in the current seat: ``random`` (``agents.random.random_policy``),
``heuristic`` (``heuristic.heuristic_policy``) or ``counting`` (``counting.counting_policy``),
each on the observation record the loop fills (``kernels.observe_row``): the very functions
the agents' ``act`` runs.  No memo tables: ``grow`` is never asked for.

What the fused loop gains end to end: ``docs/bench.md`` ("Built-in agents in the fused loops").
"""

from __future__ import annotations

from numba import njit

from agents.fused import no_policy, play_seats_loop
from agents.veru.counting import counting_policy
from agents.veru.heuristic import heuristic_policy
from bluffsim.games.veru import kernels as KN


@njit(cache=True)
def play_seats_kernel(args):
    """``agents.fused.play_seats_loop`` with veru's heuristic and counting policies."""
    return play_seats_loop(heuristic_policy, counting_policy, no_policy, KN.observe_row,
                           KN.tensor_row, KN.apply, args)
