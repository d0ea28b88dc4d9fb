"""qdv's fused loop: built-in agents' compiled policies inside the engine (``agents.fused``).

``play_seats_kernel`` plays, game after game, up to ``decisions`` decisions with the
policy of the lineup member in the current seat: ``random`` (``kernels.random_action``,
the same choice as ``agents.random``), ``heuristic`` (``heuristic_kernel``, the same
choice as ``QdvHeuristic``) or ``counting`` (``counting_kernel.decide_row``, the very
function ``QdvCounting.act`` runs on each row, on a one-row observation copied from the
records into its record with the observation's dtypes and shapes, so its decisions are the
agent's by construction).
The counting memo tables are shared by every counting agent of the same rules
(``counting.count_table``); when one runs full the kernel stops and ``agents.fused``
grows them and resumes.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.typed import List

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
    """``(hctx, cctx)``: the deck's kinds and the heuristic's scratch; for counting the record
    ``decide_row`` reads (``counting_kernel.new_scratch``: a one-row observation of the dtypes
    and shapes of ``observe`` that ``counting_action`` fills, the deck's constants and the
    kernel's scratch), the log-binomial table and the memo tables (fetched at each call: the
    tables grow)."""
    rules = game.rules
    p, deck = game.num_players, HK.deck_counts(game._rec)
    memo = memo_tables(rules)
    max_comp = int(np.prod(memo[0].radix[:4]))
    scratch = CK.new_scratch(deck, VALUE, memo[0].strides.astype(np.int64), memo[0].width, p,
                             rules.history_len, game.num_actions, max_comp)
    return (deck, np.empty(KN.F), np.empty((2, KN.F), np.int64)), (scratch, LOG_CHOOSE,
                                                                    *memo_lists(memo))


_LISTS: dict = {}


def memo_lists(memo: tuple) -> tuple:
    """The memo tables' arrays as five typed lists (gkeys, buckets, cdf, below, fill; index =
    salad step), rebuilt only when a table grew (new arrays).  Kept per set of tables: the
    lists hold the arrays, so an array's ``id`` is not reused while its lists are cached."""
    arrays = [[t.gkeys for t in memo], [t.buckets for t in memo], [t.cdf for t in memo],
              [t.below for t in memo], [t.fill for t in memo]]
    key = tuple(id(t) for t in memo)
    ids = tuple(id(a) for group in arrays for a in group)
    hit = _LISTS.get(key)
    if hit is None or hit[0] != ids:
        hit = _LISTS[key] = (ids, tuple(List(group) for group in arrays))
    return hit[1]


def grow(game) -> None:
    """Room for one more row in every counting memo table (as ``QdvCounting.decide_rows``)."""
    for t in memo_tables(game.rules):
        t.room()


@njit(inline="always")
def heuristic_action(g, h, obs, mask, key, r, prow, hctx):
    """``QdvHeuristic``'s choice (``heuristic_kernel``)."""
    deck_counts, exp, scratch = hctx
    return HK.heuristic_action(g, h, r, deck_counts, prow, exp, scratch)


@njit(inline="always")
def counting_action(g, h, obs, mask, key, r, prow, cctx):
    me = np.int64(h.current_player)
    """``QdvCounting``'s choice: ``decide_row`` on a one-row observation copied from the
    records into its record (the fields ``decide_kernel`` copies from a batch);
    ``MEMO_FULL`` when a memo table ran full."""
    scratch, lc, gkeys_t, buckets_t, cdfs, belows, fills = cctx
    o = scratch[0]
    p = r.num_players
    na = r.num_actions
    o.seat[0] = me
    o.phase[0] = h.phase
    for k in range(KN.K):
        o.hand[0, k] = g.hands[me, k]
    for s in range(p):
        o.hand_sizes[0, s] = g.hand_sizes[s]
        o.tokens[0, s] = g.tokens[s]
        o.in_round[0, s] = 1 if g.in_round[s] != 0 else 0
        for k in range(KN.K):
            o.revealed[0, s, k] = g.revealed[s, k]
            o.discarded[0, s, k] = g.discarded[s, k]
        for c in range(BID_TALLY):
            o.bid_tally[0, s, c] = g.bid_tally[s, c]
        for c in range(CALL_TALLY):
            o.call_tally[0, s, c] = g.call_tally[s, c]
    o.direction[0] = g.direction
    o.centre[0] = g.centre
    o.start[0] = g.start
    o.bid_count[0] = g.bid_count
    o.bid_fruit[0] = g.bid_fruit
    o.bidder[0] = g.bidder
    for i in range(r.history_len):
        for c in range(3):
            o.bid_history[0, i, c] = g.bid_history[i, c]
    for i in range(na):
        o.legal[0, i] = 1 if h.mask[i] != 0 else 0
    o.showdown_count[0] = g.showdown_count
    o.call[0] = g.call
    o.caller[0] = g.caller
    a = CK.decide_row(o, lc, prow, gkeys_t, buckets_t, cdfs, belows, fills, r.gain_id, r.punish0)
    if a == -1:
        return np.int64(MEMO_FULL)
    return a if a >= 0 else np.int64(0)


@njit(cache=True)
def play_seats_kernel(data, hot, rules, obs, decisions, counts, seat_agent, kinds, params,
                      round_stop, first_game, resume, pending, net, net_table, obs_size, hctx,
                      cctx):
    """``agents.fused.play_seats_loop`` with qdv's policies, tensor and rules."""
    return play_seats_loop(heuristic_action, counting_action, KN.observe_row, KN.tensor_row,
                           KN.apply, data, hot, rules, obs, decisions, counts, seat_agent, kinds,
                           params, round_stop, first_game, resume, pending, net, net_table,
                           obs_size, hctx, cctx)
