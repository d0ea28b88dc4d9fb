"""legumes' fused loop: built-in agents' compiled policies inside the engine (``agents.fused``).

``play_seats_kernel`` plays, game after game, up to ``decisions`` decisions with the
policy of the lineup member in the current seat: ``random`` (``kernels.random_action``,
the same choice as ``agents.random``, from the seat's agent stream key hashed once per
game), ``heuristic`` (``heuristic_kernel``, the same choice as ``LegumesHeuristic``) or
``counting``: ``LegumesCounting.act`` step by step, its base heuristic
(``accuse_at=99, accuse_rate=0``) by ``heuristic_kernel``, then the very kernels the agent
runs (``counting_kernel.lie_kernel`` on a planned play, ``judge_kernel`` where accusing is
legal) on a one-row observation copied from the records with the observation's dtypes and
shapes, so its decisions are the agent's by construction.  No memo tables: ``grow`` is
never asked for.

What the fused loop gains end to end: ``docs/bench.md`` ("Built-in agents in the fused loops").
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit

from agents.fused import COUNTING, HEURISTIC, RANDOM, observation_rows, play_seats_loop
from agents.legumes import counting as C
from agents.legumes import counting_kernel as CK
from agents.legumes import heuristic_kernel as HK
from agents.legumes.heuristic import LegumesHeuristic
from agents.random import RandomAgent
from bluffsim.games.legumes import kernels as KN
from bluffsim.games.legumes import rules as R

# the counting agent's row: its base heuristic's ``HK.PARAMS`` row, then these (``spite``
# is ``spite2`` at 2 players, as ``LegumesCounting.judge_rows`` picks it)
COUNTING_PARAMS = ("spite", "urgent_at", "tempo", "margin", "double_below", "accept_below",
                   "trap_rate", "trap_pile", "keep_margin")
NH = len(HK.PARAMS)
(SPITE, URGENT_AT, TEMPO, MARGIN, DOUBLE_BELOW, ACCEPT_BELOW, TRAP_RATE, TRAP_PILE,
 LIE_KEEP_MARGIN) = range(NH, NH + len(COUNTING_PARAMS))


def _counting_params(agent: C.LegumesCounting) -> list[float]:
    c = agent.config
    spite = c["spite2"] if agent.game.rules.num_players == 2 else c["spite"]
    return HK.params_row(agent._base) + [float(spite)] + [float(c[n])
                                                          for n in COUNTING_PARAMS[1:]]


# the observation keys ``counting_action`` copies from the records, in its context's order
OBSERVATION_KEYS = (
    "seat", "phase", "hand", "hand_sizes", "called", "direction", "face_down_count", "last_owner",
    "last_called", "my_face_down", "face_up", "discard_size", "discard_revealed", "pending",
    "num_rounds", "my_discard", "fd_claims", "accused_tally", "accuser_tally", "shown_tally",
    "drawn_tally")

# agent class -> (policy kind, its parameter row, the ``act`` the policy equals)
POLICIES = {RandomAgent: (RANDOM, lambda agent: [], RandomAgent.act),
            LegumesHeuristic: (HEURISTIC, HK.params_row, LegumesHeuristic.act),
            C.LegumesCounting: (COUNTING, _counting_params, C.LegumesCounting.act)}


@lru_cache(maxsize=64)
def _penalty(rules: R.Rules) -> np.ndarray:
    """float64[T]: the cards an accused lie makes its owner draw, per type (the agent's
    ``_penalty``)."""
    lie = rules.action_lie_penalty
    return np.concatenate([C.NUMBER, [0, lie, lie, lie]]).astype(np.float64)


def contexts(game) -> tuple:
    """``(hctx, cctx)``: nothing for the heuristic; for counting a one-row observation (the
    dtypes and shapes of ``observe``) that ``counting_action`` fills, then the counting agent's
    card totals, claim weights, lie penalties and card points (as
    ``LegumesCounting.judge_rows`` passes them)."""
    rules = game.rules
    ws = observation_rows(game, OBSERVATION_KEYS) + (
        np.empty((1, KN.A), np.bool_), np.empty(1, np.bool_), np.empty(1, np.bool_),
        np.empty(1, np.bool_), np.zeros(1, np.int64), np.zeros(1, np.int64), np.zeros((1, 3)))
    return (), ws + (C._total_cards(rules), C.CLAIM_WEIGHTS, _penalty(rules), C.POINTS)


def grow(game) -> None:
    """No memo tables to grow (``counting_action`` never returns ``MEMO_FULL``)."""


@njit(cache=True)
def heuristic_action(g, h, obs, mask, key, r, prow, hctx):
    """``LegumesHeuristic``'s choice (``heuristic_kernel``)."""
    return HK.heuristic_action(g, h, r, prow)


@njit(inline="always")
def counting_action(g, h, obs, mask, key, r, prm, cctx):
    me = np.int64(h.current_player)
    """``LegumesCounting``'s choice: its base heuristic, then, when that plays a card (a lie
    may replace it) or may accuse, the agent's own ``lie_kernel``/``judge_kernel`` on a
    one-row observation copied from the records."""
    (o_seat, o_phase, o_hand, o_sizes, o_called, o_direction, o_fd_count, o_last_owner,
     o_last_called, o_my_fd, o_face_up, o_discard_size, o_disc_rev, o_pending, o_rounds,
     o_my_disc, o_fd_claims, o_accused, o_accuser, o_shown, o_drawn, o_legal, o_keep,
     o_double, o_facing, o_out, o_rows, o_beliefs, total, weights, penalty, points) = cctx
    p = r.num_players
    T, V = KN.T, KN.V
    a = HK.heuristic_action(g, h, r, prm)
    lie = (h.phase == KN.PH_PLAY and a >= KN.PLAY0 and a < KN.PLAY0 + T)
    judge = h.mask[KN.ACCUSE] != 0
    if not (lie or judge):
        return a
    o_seat[0] = me
    o_phase[0] = h.phase
    size = 0
    discard = 0
    for t in range(T):
        o_hand[0, t] = g.hands[me, t]
        o_my_fd[0, t] = g.fd_by_owner[me, t]
        o_face_up[0, t] = g.face_up[t]
        o_disc_rev[0, t] = g.discard_revealed[t]
        o_my_disc[0, t] = g.my_discard[me, t]
        size += np.int64(g.hands[me, t])
        discard += g.discard[t]
    o_discard_size[0] = discard
    for q in range(p):
        o_sizes[0, q] = g.hand_sizes[q]
        o_drawn[0, q] = g.drawn_tally[q]
        for v in range(V):
            o_fd_claims[0, q, v] = g.fd_claims[q, v]
        for c in range(3):
            o_accused[0, q, c] = g.accused_tally[q, c]
            o_accuser[0, q, c] = g.accuser_tally[q, c]
        for c in range(4):
            o_shown[0, q, c] = g.shown_tally[q, c]
    o_called[0] = g.called
    o_direction[0] = g.direction
    o_fd_count[0] = g.fd_count
    o_last_owner[0] = g.last_owner
    o_last_called[0] = g.last_called
    o_pending[0] = g.pending
    o_rounds[0] = h.num_rounds
    o_out[0] = a
    if lie:
        for k in range(KN.A):
            o_legal[0, k] = h.mask[k] != 0
        o_keep[0] = HK.keeps(g, r, me, size, prm[HK.KEEP_MARGIN])
        CK.lie_kernel(o_hand, o_phase, o_called, o_seat, o_direction, o_accuser, o_rounds,
                      o_discard_size, o_fd_count, o_face_up, o_sizes, o_legal, prm[TRAP_RATE],
                      prm[TRAP_PILE], prm[LIE_KEEP_MARGIN], o_keep, o_out)
    if judge:
        o_double[0] = h.mask[KN.ACCUSE_DOUBLE] != 0
        o_facing[0] = h.mask[KN.ACCEPT] != 0
        CK.judge_kernel(total, weights, penalty, points, o_hand, o_my_fd, o_face_up, o_disc_rev,
                        o_my_disc, o_sizes, o_last_owner, o_last_called, o_accused, o_accuser,
                        o_shown, o_drawn, o_fd_claims, o_rounds, o_fd_count, o_pending,
                        o_discard_size, o_seat, o_double, o_facing, o_rows, prm[SPITE],
                        prm[URGENT_AT], prm[TEMPO], prm[MARGIN], prm[DOUBLE_BELOW],
                        prm[ACCEPT_BELOW], o_out, o_beliefs)
    return o_out[0]


@njit(cache=True)
def play_seats_kernel(data, hot, rules, obs, decisions, counts, seat_agent, kinds, params,
                      round_stop, first_game, resume, pending, net, net_table, obs_size, hctx,
                      cctx):
    """``agents.fused.play_seats_loop`` with legumes' policies, tensor and rules."""
    return play_seats_loop(heuristic_action, counting_action, KN.observe_row, KN.tensor_row,
                           KN.apply, data, hot, rules, obs, decisions, counts, seat_agent, kinds,
                           params, round_stop, first_game, resume, pending, net, net_table,
                           obs_size, hctx, cctx)
