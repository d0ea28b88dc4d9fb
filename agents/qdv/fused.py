"""qdv's fused loop: built-in agents' compiled policies inside the engine (``agents.fused``).

``play_seats_kernel`` plays, game after game, up to ``decisions`` decisions with the
policy of the lineup member in the current seat: ``random`` (``kernels.random_action``,
the same choice as ``agents.random``) or ``heuristic`` (``heuristic_kernel``, the same
choice as ``QdvHeuristic``).  ``counting`` has no policy here yet (its kernel decides
from observation arrays and grows memo tables between calls): a lineup with it is
stepped by the runner as before.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.fused import HEURISTIC, RANDOM
from agents.qdv import heuristic_kernel as HK
from agents.qdv.heuristic import QdvHeuristic
from agents.random import RandomAgent
from bluffsim.games.qdv import kernels as KN

# agent class -> (policy kind, its parameters in kernel order, the ``act`` the policy equals)
POLICIES = {RandomAgent: (RANDOM, (), RandomAgent.act),
            QdvHeuristic: (HEURISTIC, HK.PARAMS, QdvHeuristic.act)}


def tables(game) -> tuple[np.ndarray, ...]:
    """The constant arrays ``play_seats_kernel`` reads after its arguments: the deck's kinds."""
    return (HK.deck_counts(game._rec),)


@njit(cache=True)
def play_seats_kernel(data, hot, rules, decisions, counts, seat_agent, kinds, params,
                      round_stop, deck_counts):
    """Each running game advances up to ``decisions`` decisions in a row (stopping when it is
    over, and when a round ends if ``round_stop``), each decision by the compiled policy of
    ``kinds[j]`` with ``params[j]``, ``j = seat_agent[b, current seat]``: the same game as
    that many ``step`` calls with the agents' ``act``.  ``counts`` gets (decisions made,
    rounds finished, games ended); ``round_over`` is left set on games whose last round
    ended during the call.  Returns the first game whose policy chose an illegal action
    (the kernel stops there, nothing applied) or -1."""
    r = rules[0]
    na = r.num_actions
    exp = np.empty(KN.F)
    scratch = np.empty((2, KN.F), np.int64)
    made = 0
    rounds = 0
    ended = 0
    bad = -1
    for b in range(data.shape[0]):
        g = data[b]
        h = hot[b]
        h.round_over = 0
        if h.terminated or h.truncated:
            continue
        start_rounds = h.num_rounds
        for _ in range(decisions):
            j = seat_agent[b, h.current_player]
            kind = kinds[j]
            if kind == RANDOM:
                a = KN.random_action(g, h, r)
            elif kind == HEURISTIC:
                a = HK.heuristic_action(g, h, r, deck_counts, params[j], exp, scratch)
            else:
                a = np.int64(-1)
            if a < 0 or a >= na or not h.mask[a]:
                bad = b
                break
            KN.apply(g, h, r, a)
            made += 1
            if h.terminated or h.truncated:
                ended += 1
                break
            if round_stop and h.round_over:
                break
        rounds += h.num_rounds - start_rounds
        if bad >= 0:
            break
    counts[0] = made
    counts[1] = rounds
    counts[2] = ended
    return bad
