"""veru's fused loop: built-in agents' compiled policies inside the engine (``agents.fused``).

``play_seats_kernel`` plays, game after game, up to ``decisions`` decisions with the
policy of the lineup member in the current seat: ``random`` (``kernels.random_action``,
the same choice as ``agents.random``, from the seat's agent stream key hashed once per
game) or ``heuristic`` (``heuristic_kernel``, the same choice as ``VeruHeuristic``).
No memo tables: ``tables`` is empty and ``grow`` never called.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.fused import HEURISTIC, RANDOM
from agents.random import RandomAgent
from agents.veru import heuristic_kernel as HK
from agents.veru.heuristic import VeruHeuristic
from bluffsim import rng_nb as rn
from bluffsim.games.veru import kernels as KN


def _heuristic_params(agent: VeruHeuristic) -> list[float]:
    return [float(agent.config[n]) for n in HK.PARAMS]


# agent class -> (policy kind, its parameter row, the ``act`` the policy equals)
POLICIES = {RandomAgent: (RANDOM, lambda agent: [], RandomAgent.act),
            VeruHeuristic: (HEURISTIC, _heuristic_params, VeruHeuristic.act)}


def tables(game) -> tuple:
    """The arrays ``play_seats_kernel`` reads after its arguments: none."""
    return ()


def grow(game) -> None:
    """No memo tables to grow (``play_seats_kernel`` never asks)."""


@njit(cache=True)
def play_seats_kernel(data, hot, rules, decisions, counts, seat_agent, kinds, params,
                      round_stop, first_game, resume):
    """Each running game from ``first_game`` on advances up to ``decisions`` decisions in a
    row (stopping when it is over, and when a round ends if ``round_stop``), each decision
    by the compiled policy of ``kinds[j]`` with ``params[j]``, ``j = seat_agent[b, current
    seat]``: the same game as that many ``step`` calls with the agents' ``act``.  ``counts``
    gets (decisions made, rounds finished, games ended) added; ``round_over`` is left set
    on games whose last round ended during the call (with ``resume``, ``first_game`` keeps
    its flag).  Returns -1, or ``b`` when game ``b``'s policy chose an illegal action
    (nothing applied there)."""
    r = rules[0]
    p = r.num_players
    keys = np.empty(KN.P_MAX, np.uint64)  # each seat's agent stream key in the current game
    made = 0
    rounds = 0
    ended = 0
    code = -1
    for b in range(first_game, data.shape[0]):
        g = data[b]
        h = hot[b]
        if not (resume and b == first_game):
            h.round_over = 0
        if h.terminated or h.truncated:
            continue
        for s in range(p):
            keys[s] = rn.agent_key(h.seed, s)
        start_rounds = h.num_rounds
        for _ in range(decisions):
            me = np.int64(h.current_player)
            j = seat_agent[b, me]
            kind = kinds[j]
            if kind == RANDOM:
                a = np.int64(KN.random_action(g, h, r, keys[me]))
            elif kind == HEURISTIC:
                a = HK.heuristic_action(g, h, r, params[j])
            else:
                a = np.int64(-1)
            if a < 0 or a >= KN.A or not h.mask[a]:
                code = b
                break
            KN.apply(g, h, r, a)
            made += 1
            if h.terminated or h.truncated:
                ended += 1
                break
            if round_stop and h.round_over:
                break
        rounds += h.num_rounds - start_rounds
        if code != -1:
            break
    counts[0] += made
    counts[1] += rounds
    counts[2] += ended
    return code
