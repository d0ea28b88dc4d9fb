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
from agents.fused import COUNTING, HEURISTIC, RANDOM
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


def tables(game) -> tuple:
    """The arrays ``play_seats_kernel`` reads after its arguments: the deck's kinds, then the
    counting agent's constants and memo tables (fetched at each call: the tables grow)."""
    rules = game.rules
    memo = memo_tables(rules)
    max_comp = int(np.prod(memo[0].radix[:4]))
    return (HK.deck_counts(game._rec), VALUE, memo[0].strides.astype(np.int64), LOG_CHOOSE,
            tuple(t.gkeys for t in memo), tuple(t.buckets for t in memo),
            tuple(t.cdf for t in memo), tuple(t.below for t in memo),
            tuple(t.fill for t in memo), max_comp)


def grow(game) -> None:
    """Room for one more row in every counting memo table (as ``QdvCounting.decide_rows``)."""
    for t in memo_tables(game.rules):
        t.room()


@njit(cache=True)
def play_seats_kernel(data, hot, rules, decisions, counts, seat_agent, kinds, params,
                      round_stop, first_game, resume, deck_counts, value, strides, lc, gkeys_t,
                      buckets_t, cdfs, belows, fills, max_comp):
    """Each running game from ``first_game`` on advances up to ``decisions`` decisions in a
    row (stopping when it is over, and when a round ends if ``round_stop``), each decision
    by the compiled policy of ``kinds[j]`` with ``params[j]``, ``j = seat_agent[b, current
    seat]``: the same game as that many ``step`` calls with the agents' ``act``.  ``counts``
    gets (decisions made, rounds finished, games ended) added; ``round_over`` is left set
    on games whose last round ended during the call (with ``resume``, ``first_game`` keeps
    its flag: the call resumes one a memo table stopped; its decision budget restarts).
    Returns -1; or ``b`` when game ``b``'s policy chose an illegal action; or ``-2 - b``
    when a counting memo table ran full at game ``b`` (nothing applied there either)."""
    r = rules[0]
    na = r.num_actions
    p = r.num_players
    exp = np.empty(KN.F)
    scratch = np.empty((2, KN.F), np.int64)
    # a one-row observation for ``decide_kernel`` (the dtypes and shapes of ``observe``)
    o_seat = np.empty(1, np.int8)
    o_phase = np.empty(1, np.int8)
    o_hand = np.empty((1, KN.K), np.int8)
    o_sizes = np.empty((1, p), np.int8)
    o_tokens = np.empty((1, p), np.int32)
    o_in = np.empty((1, p), np.bool_)
    o_dir = np.empty(1, np.int8)
    o_centre = np.empty(1, np.int8)
    o_start = np.empty(1, np.int8)
    o_count = np.empty(1, np.int8)
    o_fruit = np.empty(1, np.int8)
    o_bidder = np.empty(1, np.int8)
    o_hist = np.empty((1, r.history_len, 3), np.int8)
    o_rev = np.empty((1, p, KN.K), np.int8)
    o_dis = np.empty((1, p, KN.K), np.int8)
    o_btally = np.empty((1, p, BID_TALLY), np.int32)
    o_ctally = np.empty((1, p, CALL_TALLY), np.int32)
    o_legal = np.empty((1, na), np.bool_)
    o_sc = np.empty(1, np.int8)
    o_call = np.empty(1, np.int8)
    o_caller = np.empty(1, np.int8)
    o_out = np.zeros(1, np.int64)
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
        start_rounds = h.num_rounds
        for _ in range(decisions):
            j = seat_agent[b, h.current_player]
            kind = kinds[j]
            if kind == RANDOM:
                a = KN.random_action(g, h, r)
            elif kind == HEURISTIC:
                a = HK.heuristic_action(g, h, r, deck_counts, params[j], exp, scratch)
            elif kind == COUNTING:
                me = np.int64(h.current_player)
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
                    o_seat, o_phase, o_hand, o_sizes, o_tokens, o_in, o_dir, o_centre, o_start,
                    o_count, o_fruit, o_bidder, o_hist, o_rev, o_dis, o_btally, o_ctally,
                    o_legal, deck_counts, value, strides, lc, params[j], gkeys_t, buckets_t,
                    cdfs, belows, fills, max_comp, o_sc, o_call, o_caller, r.gain_id,
                    r.punish0, 0, o_out)
                if full >= 0:
                    code = -2 - b
                    break
                a = o_out[0]
            else:
                a = np.int64(-1)
            if a < 0 or a >= na or not h.mask[a]:
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

