"""qdv's fused loop: built-in agents' compiled policies inside the engine (``agents.fused``).

``play_seats_kernel`` plays, game after game, up to ``decisions`` decisions with the
policy of the lineup member in the current seat: ``random`` (``kernels.random_action``,
the same choice as ``agents.random``), ``heuristic`` (``heuristic_kernel``, the same
choice as ``QdvHeuristic``) or ``counting`` (``counting_kernel.decide_kernel``, the very
kernel ``QdvCounting.act`` runs, on a one-row observation copied from the records with
the observation's dtypes and shapes, so its decisions are the agent's by construction).
The counting memo tables are shared by every counting agent of the same rules
(``counting.count_table``); when one runs full the kernel stops and ``agents.fused``
grows them and resumes.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.combinatorics import LOG_CHOOSE
from agents.fused import COUNTING, HEURISTIC, MEMO_FULL, RANDOM, play_seats_loop
from agents.qdv import counting_kernel as CK
from agents.qdv import heuristic_kernel as HK
from agents.qdv.common import VALUE
from agents.qdv.counting import QdvCounting, memo_tables
from agents.qdv.heuristic import QdvHeuristic
from agents.random import RandomAgent
from bluffsim.games.qdv import kernels as KN
from bluffsim.games.qdv import rules as R

BID_TALLY, CALL_TALLY = R.BID_TALLY, R.CALL_TALLY


def _heuristic_params(agent: QdvHeuristic) -> list[float]:
    return [float(agent.config[n]) for n in HK.PARAMS]


# agent class -> (policy kind, its parameter row, the ``act`` the policy equals)
POLICIES = {RandomAgent: (RANDOM, lambda agent: [], RandomAgent.act),
            QdvHeuristic: (HEURISTIC, _heuristic_params, QdvHeuristic.act),
            QdvCounting: (COUNTING, QdvCounting.kernel_params, QdvCounting.act)}


def contexts(game) -> tuple:
    """``(hctx, cctx)``: the deck's kinds and the heuristic's scratch; for counting a one-row
    observation (the dtypes and shapes of ``observe``) that ``counting_action`` fills, then the
    deck's kinds, the counting agent's constants and memo tables (fetched at each call: the
    tables grow) and ``decide_kernel``'s scratch record."""
    rules = game.rules
    p, deck = game.num_players, HK.deck_counts(game._rec)
    memo = memo_tables(rules)
    max_comp = int(np.prod(memo[0].radix[:4]))
    ws = (np.empty(1, np.int8), np.empty(1, np.int8), np.empty((1, KN.K), np.int8),
          np.empty((1, p), np.int8), np.empty((1, p), np.int32), np.empty((1, p), np.bool_),
          np.empty(1, np.int8), np.empty(1, np.int8), np.empty(1, np.int8),
          np.empty(1, np.int8), np.empty(1, np.int8), np.empty(1, np.int8),
          np.empty((1, rules.history_len, 3), np.int8), np.empty((1, p, KN.K), np.int8),
          np.empty((1, p, KN.K), np.int8), np.empty((1, p, BID_TALLY), np.int32),
          np.empty((1, p, CALL_TALLY), np.int32), np.empty((1, game.num_actions), np.bool_),
          np.empty(1, np.int8), np.empty(1, np.int8), np.empty(1, np.int8),
          np.zeros(1, np.int64))
    tables = (deck, VALUE, memo[0].strides.astype(np.int64), LOG_CHOOSE,
              tuple(t.gkeys for t in memo), tuple(t.buckets for t in memo),
              tuple(t.cdf for t in memo), tuple(t.below for t in memo),
              tuple(t.fill for t in memo),
              CK.new_scratch(deck.size, memo[0].width, p, game.num_actions, max_comp))
    return (deck, np.empty(KN.F), np.empty((2, KN.F), np.int64)), ws + tables


def grow(game) -> None:
    """Room for one more row in every counting memo table (as ``QdvCounting.decide_rows``)."""
    for t in memo_tables(game.rules):
        t.room()


@njit(cache=True)
def random_action(g, h, r, seat_key):
    """The ``random`` agent's choice (``kernels.random_action`` finds the seat's stream itself)."""
    return KN.random_action(g, h, r)


@njit(cache=True)
def heuristic_action(g, h, r, prow, hctx):
    """``QdvHeuristic``'s choice (``heuristic_kernel``)."""
    deck_counts, exp, scratch = hctx
    return HK.heuristic_action(g, h, r, deck_counts, prow, exp, scratch)


@njit(inline="always")
def counting_action(g, h, r, me, prow, cctx):
    """``QdvCounting``'s choice: ``decide_kernel`` on a one-row observation copied from the
    records; ``MEMO_FULL`` when a memo table ran full."""
    (o_seat, o_phase, o_hand, o_sizes, o_tokens, o_in, o_dir, o_centre, o_start, o_count,
     o_fruit, o_bidder, o_hist, o_rev, o_dis, o_btally, o_ctally, o_legal, o_sc, o_call,
     o_caller, o_out, deck_counts, value, strides, lc, gkeys_t, buckets_t, cdfs, belows, fills,
     scratch) = cctx
    p = r.num_players
    na = r.num_actions
    o_seat[0] = me
    o_phase[0] = h.phase
    for k in range(KN.K):
        o_hand[0, k] = g.hands[me, k]
    for s in range(p):
        o_sizes[0, s] = g.hand_sizes[s]
        o_tokens[0, s] = g.tokens[s]
        o_in[0, s] = g.in_round[s] != 0
        for k in range(KN.K):
            o_rev[0, s, k] = g.revealed[s, k]
            o_dis[0, s, k] = g.discarded[s, k]
        for c in range(BID_TALLY):
            o_btally[0, s, c] = g.bid_tally[s, c]
        for c in range(CALL_TALLY):
            o_ctally[0, s, c] = g.call_tally[s, c]
    o_dir[0] = g.direction
    o_centre[0] = g.centre
    o_start[0] = g.start
    o_count[0] = g.bid_count
    o_fruit[0] = g.bid_fruit
    o_bidder[0] = g.bidder
    for i in range(r.history_len):
        for c in range(3):
            o_hist[0, i, c] = g.bid_history[i, c]
    for i in range(na):
        o_legal[0, i] = h.mask[i] != 0
    o_sc[0] = g.showdown_count
    o_call[0] = g.call
    o_caller[0] = g.caller
    o_out[0] = 0
    full = CK.decide_kernel(
        o_seat, o_phase, o_hand, o_sizes, o_tokens, o_in, o_dir, o_centre, o_start, o_count,
        o_fruit, o_bidder, o_hist, o_rev, o_dis, o_btally, o_ctally, o_legal, deck_counts, value,
        strides, lc, prow, gkeys_t, buckets_t, cdfs, belows, fills, scratch, o_sc, o_call,
        o_caller, r.gain_id, r.punish0, 0, o_out)
    if full >= 0:
        return np.int64(MEMO_FULL)
    return o_out[0]


@njit(cache=True)
def play_seats_kernel(data, hot, rules, decisions, counts, seat_agent, kinds, params,
                      round_stop, first_game, resume, pending, net, net_table, obs_size, hctx,
                      cctx):
    """``agents.fused.play_seats_loop`` with qdv's policies, tensor and rules."""
    return play_seats_loop(random_action, heuristic_action, counting_action, KN.tensor_row,
                           KN.apply, data, hot, rules, decisions, counts, seat_agent, kinds,
                           params, round_stop, first_game, resume, pending, net, net_table,
                           obs_size, hctx, cctx)
