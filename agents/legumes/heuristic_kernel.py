"""The legumes ``heuristic`` compiled: one game's decision read from the engine's records.

``heuristic_action(g, h, r, params)`` returns, for the current player of the game held in
the records ``g`` (``kernels.STATE_DTYPE``) and ``h`` (``kernels.HOT_DTYPE``, whose legal
mask is up to date), exactly the action ``LegumesHeuristic.act``
(``agents/legumes/heuristic.py``, the readable specification) returns from the structured
observation: the same opening, playing, shedding, accusing and last-card rules with
numpy's tie breaks (``argmax``/``argmin``: the first extreme), and the same uniform of the
agent's stream (``AgentRNG.uniform(1)``: word 0 of (game seed, ``Stream.AGENT + seat``,
decision)), drawn only where ``u < accuse_rate`` can decide (a draw has no side effect).
No exp/log/pow: the float comparisons are ``u < accuse_rate`` and integers against the
integer-valued parameters (exact in float64).  ``params`` is float64[4] in
``PARAMS`` order (``params_row``); ``KEEP_MARGIN`` (a class attribute, None = never keep at
3+ players) is NaN for None.  ``tests/test_fused_legumes.py`` checks the two agree action
for action.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from bluffsim import rng_nb as rn
from bluffsim.games import drivers as DR
from bluffsim.games.legumes import rules as R

# the agent's parameters in the order of the ``params`` row handed to the kernel (the last
# is the class attribute ``KEEP_MARGIN``, not a config entry)
PARAMS = ("accuse_at", "double_at", "accuse_rate", "KEEP_MARGIN")
ACCUSE_AT, DOUBLE_AT, ACCUSE_RATE, KEEP_MARGIN = range(len(PARAMS))

T = R.NUM_TYPES
V = R.NUM_VEG
BOMB, CHOICE, DOUBLE = R.BOMB, R.CHOICE, R.DOUBLE
OPEN0, PLAY0, ACCUSE, ACCUSE_DOUBLE, CHOICE0 = R.OPEN0, R.PLAY0, R.ACCUSE, R.ACCUSE_DOUBLE, R.CHOICE0
REVERSE_ID, ACCEPT, REVERSE_PLAY0 = R.REVERSE_ID, R.ACCEPT, R.REVERSE_PLAY0
PH_OPEN = R.PHASE_OPEN
POINTS = np.asarray(R.CARD_POINTS, dtype=np.int64)
# heuristic.LIE_RANK / KEEP_LIE_RANK (Bomb, Choice, Reverse, Double) and the action-card tail
# of SHED_RANK / KEEP_SHED_RANK (the vegetables rank by their number in both)
LIE_RANK = np.asarray([1, 2, 0, 3], np.int64)
KEEP_LIE_RANK = np.asarray([-1, 2, 0, -1], np.int64)
SHED_ACTION = np.asarray([10, 12, 13, 14], np.int64)
KEEP_SHED_ACTION = np.asarray([0, 12, 13, 0], np.int64)
INT_MAX = np.iinfo(np.int64).max


def params_row(agent) -> list[float]:
    """The ``params`` row of a ``LegumesHeuristic`` (``PARAMS`` order; KEEP_MARGIN None -> NaN)."""
    keep = agent.KEEP_MARGIN
    return [float(agent.config[n]) for n in PARAMS[:KEEP_MARGIN]] + [
        math.nan if keep is None else float(keep)]


@njit(cache=True)
def keeps(g, r, me, size, keep_margin):
    """``LegumesHeuristic.keeps``: always at 2 players; at 3+ when ``keep_margin`` is set
    (not NaN) and my hand is at most the smallest other hand plus it."""
    p = r.num_players
    if p <= 2:
        return True
    if np.isnan(keep_margin):
        return False
    smallest = INT_MAX
    for s in range(p):
        if s != me and g.hand_sizes[s] < smallest:
            smallest = np.int64(g.hand_sizes[s])
    return size <= smallest + keep_margin


@njit(cache=True)
def facing_last_card(g, h, r, me, hand_row, size, many, double_at):
    """``LegumesHeuristic.facing_last_card``: accept only when sure to finish second at a
    table of 3+ (or when accusing is not legal); otherwise accuse, doubled at ``double_at``
    or at 2 players with the Double as my last card."""
    p = r.num_players
    m = h.mask
    pend = np.int64(g.pending)
    rival = INT_MAX
    for s in range(p):
        if s != me and s != pend and g.hand_sizes[s] < rival:
            rival = np.int64(g.hand_sizes[s])
    score = 0
    for t in range(T):
        score += np.int64(hand_row[t]) * POINTS[t]
    sure_second = p >= 3 and score <= rival
    if sure_second or not m[ACCUSE]:
        return np.int64(ACCEPT)
    last_double = p == 2 and np.int64(hand_row[DOUBLE]) == size
    if m[ACCUSE_DOUBLE] and (many >= double_at or last_double):
        return np.int64(ACCUSE_DOUBLE)
    return np.int64(ACCUSE)


@njit(cache=True, inline="always")
def veg_count(hand_row, v):
    """Cards of vegetable ``v`` in a hand (heuristic ``per_veg``)."""
    return np.int64(hand_row[3 * v]) + np.int64(hand_row[3 * v + 1]) + np.int64(hand_row[3 * v + 2])


@njit(cache=True, inline="always")
def veg_top(hand_row, v):
    """The highest held card of vegetable ``v`` (type offset 0..2), -1 if none (``top``)."""
    if hand_row[3 * v + 2] > 0:
        return 2
    if hand_row[3 * v + 1] > 0:
        return 1
    if hand_row[3 * v] > 0:
        return 0
    return -1


@njit(cache=True)
def heuristic_action(g, h, r, params):
    """``LegumesHeuristic.act`` for game (``g``, ``h``)."""
    me = max(np.int64(h.current_player), 0)
    hand_row = g.hands[me]
    m = h.mask
    best = 0  # the first vegetable I hold most of
    best_n = veg_count(hand_row, 0)
    for v in range(1, V):
        n = veg_count(hand_row, v)
        if n > best_n:
            best, best_n = v, n
    top_best = veg_top(hand_row, best)
    if h.phase == PH_OPEN:
        if top_best >= 0:
            card = best * 3 + top_best
        else:
            card = 0
            for t in range(1, T):
                if hand_row[t] > hand_row[card]:
                    card = t
        return np.int64(OPEN0 + card * V + best)
    size = 0
    for t in range(T):
        size += np.int64(hand_row[t])
    # playing
    if m[REVERSE_ID] and size == 1:
        play = np.int64(REVERSE_ID)
    elif size == 1 and hand_row[CHOICE] == 1:
        play = np.int64(CHOICE0 + best)
    else:
        called = max(np.int64(g.called), 0)
        top_called = veg_top(hand_row, called)
        if top_called >= 0:
            play = np.int64(PLAY0 + called * 3 + top_called)
        elif hand_row[CHOICE] > 0 and best_n >= 2:
            play = np.int64(CHOICE0 + best)
        else:
            keep = keeps(g, r, me, size, params[KEEP_MARGIN])
            worst = -1
            worst_v = np.int64(-1)
            for t in range(T):  # first maximum of the shed ranks of legal ``reverse <card>``
                if m[REVERSE_PLAY0 + t]:
                    if t < BOMB:
                        v_ = np.int64(t % 3 + 1)
                    elif keep:
                        v_ = KEEP_SHED_ACTION[t - BOMB]
                    else:
                        v_ = SHED_ACTION[t - BOMB]
                    if worst < 0 or v_ > worst_v:
                        worst, worst_v = t, v_
            if worst >= 0:
                play = np.int64(REVERSE_PLAY0 + worst)
            else:
                # a lie: the first action card of the highest lie rank held, else the first
                # cheapest vegetable, else the first most plentiful card
                lie = -1
                lie_v = np.int64(-1)
                for i in range(4):
                    if hand_row[BOMB + i] > 0:
                        v_ = KEEP_LIE_RANK[i] if keep else LIE_RANK[i]
                        if v_ > lie_v:
                            lie, lie_v = BOMB + i, v_
                if lie < 0:
                    cheap_v = 99
                    for t in range(BOMB):
                        if hand_row[t] > 0 and t % 3 + 1 < cheap_v:
                            lie, cheap_v = t, t % 3 + 1
                if lie < 0:
                    lie = 0
                    for t in range(1, T):
                        if hand_row[t] > hand_row[lie]:
                            lie = t
                play = np.int64(PLAY0 + lie)
    last_veg = max(np.int64(g.last_called), 0)
    many = veg_count(hand_row, last_veg)
    if m[ACCEPT]:
        return facing_last_card(g, h, r, me, hand_row, size, many, params[DOUBLE_AT])
    if not m[ACCUSE]:
        return play
    # a Bomb would hand me the pile: only when it is no bigger than the accused's hand
    pile = np.int64(g.fd_count)
    for t in range(T):
        pile += np.int64(g.discard[t]) + np.int64(g.face_up[t])
    if pile > np.int64(g.hand_sizes[max(np.int64(g.last_owner), 0)]):
        return play
    accuse = many >= params[ACCUSE_AT]
    if not accuse and params[ACCUSE_RATE] > 0.0:  # u >= 0: no draw can decide otherwise
        sub = rn.major_key(rn.agent_key(h.seed, np.int64(h.current_player)),
                           np.int64(h.num_decisions))
        accuse = rn.uniform(rn.minor_word(sub, 0)) < params[ACCUSE_RATE]
    if not accuse:
        return play
    if m[ACCUSE_DOUBLE] and many >= params[DOUBLE_AT]:
        return np.int64(ACCUSE_DOUBLE)
    return np.int64(ACCUSE)


@njit(cache=True)
def act_kernel(data, hot, rules, params, out):
    """``out[b]``: ``heuristic_action`` of every running game of the batch (-1 once over)."""
    DR.act_loop(heuristic_action, data, hot, rules, params, out)
