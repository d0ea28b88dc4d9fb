"""veru's fused loop: built-in agents' compiled policies inside the engine (``agents.fused``).

``play_seats_kernel`` plays, game after game, up to ``decisions`` decisions with the
policy of the lineup member in the current seat: ``random`` (``kernels.random_action``,
the same choice as ``agents.random``, from the seat's agent stream key hashed once per
game), ``heuristic`` (``heuristic_kernel``, the same choice as ``VeruHeuristic``) or
``counting`` (``counting_kernel.decide_kernel``, the very kernel ``VeruCounting.act`` runs,
on a one-row observation copied from the records with the observation's dtypes and shapes
(``counting.KERNEL_FIELDS``), so its decisions are the agent's by construction).  No memo
tables: ``grow`` is never asked for.

What the fused loop gains end to end: ``docs/bench.md`` ("Built-in agents in the fused loops").
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.combinatorics import LOG_CHOOSE
from agents.fused import COUNTING, HEURISTIC, RANDOM, observation_rows, play_seats_loop
from agents.random import RandomAgent
from agents.veru import counting as C
from agents.veru import counting_kernel as CK
from agents.veru import heuristic_kernel as HK
from agents.veru.heuristic import VeruHeuristic
from bluffsim.games.veru import kernels as KN


def _heuristic_params(agent: VeruHeuristic) -> list[float]:
    return [float(agent.config[n]) for n in HK.PARAMS]


# agent class -> (policy kind, its parameter row, the ``act`` the policy equals)
POLICIES = {RandomAgent: (RANDOM, lambda agent: [], RandomAgent.act),
            VeruHeuristic: (HEURISTIC, _heuristic_params, VeruHeuristic.act),
            C.VeruCounting: (COUNTING, C.VeruCounting.kernel_params, C.VeruCounting.act)}


def contexts(game) -> tuple:
    """``(hctx, cctx)``: nothing for the heuristic; for counting a one-row observation (the dtypes
    and shapes of ``observe``) that ``counting_action`` fills, then the counting agent's
    log-binomial table and model weights (as ``VeruCounting.decide_rows`` passes them)."""
    ws = observation_rows(game, C.KERNEL_FIELDS) + (np.zeros(1, np.int64), np.empty((0, 3)))
    tables = (LOG_CHOOSE, C._weights(C.HONESTY_WEIGHTS, len(C.HONESTY_FEATURES)),
              C._weights(C.DOUBT_WEIGHTS, len(C.DOUBT_FEATURES)),
              C._weights(C.FITTING_WEIGHTS, len(C.FITTING_FEATURES)))
    return (), ws + tables


def grow(game) -> None:
    """No memo tables to grow (``counting_action`` never returns ``MEMO_FULL``)."""


@njit(cache=True)
def heuristic_action(g, h, obs, mask, key, r, prow, hctx):
    """``VeruHeuristic``'s choice (``heuristic_kernel``)."""
    return HK.heuristic_action(g, h, r, prow)


@njit(inline="always")
def counting_action(g, h, obs, mask, key, r, prow, cctx):
    me = np.int64(h.current_player)
    """``VeruCounting``'s choice: ``decide_kernel`` on a one-row observation copied from the
    records."""
    (o_seat, o_phase, o_hand, o_sizes, o_out, o_closed, o_claimant, o_rank, o_count, o_put,
     o_table, o_banks, o_bank, o_seen, o_hidden, o_rounds, o_claims, o_cards, o_checked,
     o_checks, o_result, no_probs, lc, hon_w, doubt_w, fit_w) = cctx
    p = r.num_players
    o_seat[0] = me
    o_phase[0] = h.phase
    hidden = 0
    for t in range(KN.T):
        o_hand[0, t] = g.hands[me, t]
        o_table[0, t] = KN.claim_count(g, t) if g.claimant == me else 0
        o_bank[0, t] = g.bank[me, t]
        o_seen[0, t] = g.discard_seen[t]
        hidden += g.discard_hidden[t]
    o_hidden[0] = hidden
    for k in range(KN.N):
        o_closed[0, k] = g.closed[k] != 0
    for q in range(p):
        o_sizes[0, q] = g.hand_sizes[q]
        o_out[0, q] = g.out[q] != 0
        size = 0
        for t in range(KN.T):
            size += g.bank[q, t]
        o_banks[0, q] = size
        o_cards[0, q] = g.cards_claimed[q]
        for c in range(2):
            o_claims[0, q, c] = g.claims[q, c]
            o_checked[0, q, c] = g.claim_checks[q, c]
        for c in range(4):
            o_checks[0, q, c] = g.checks[q, c]
    o_claimant[0] = g.claimant
    o_rank[0] = g.claim_rank
    o_count[0] = g.table_n
    o_put[0] = g.put_count
    o_rounds[0] = h.num_rounds
    o_result[0] = 0
    CK.decide_kernel(o_seat, o_phase, o_hand, o_sizes, o_out, o_closed, o_claimant, o_rank,
                     o_count, o_put, o_table, o_banks, o_bank, o_seen, o_hidden, o_rounds,
                     o_claims, o_cards, o_checked, o_checks, r.jokers, r.step, lc, hon_w,
                     doubt_w, fit_w, prow, o_result, no_probs)
    return o_result[0]


@njit(cache=True)
def play_seats_kernel(data, hot, rules, obs, decisions, counts, seat_agent, kinds, params,
                      round_stop, first_game, resume, pending, net, net_table, obs_size, hctx,
                      cctx):
    """``agents.fused.play_seats_loop`` with veru's policies, tensor and rules."""
    return play_seats_loop(heuristic_action, counting_action, KN.observe_row, KN.tensor_row,
                           KN.apply, data, hot, rules, obs, decisions, counts, seat_agent, kinds,
                           params, round_stop, first_game, resume, pending, net, net_table,
                           obs_size, hctx, cctx)
