"""The legumes ``counting`` accusation rule compiled with numba: one loop over the rows.

``judge_kernel`` computes, per row where accusing is legal, exactly what the numpy
reference (``claim_features`` -> ``claim_beliefs`` -> ``LegumesCounting.judge_numpy``)
computes: the unseen pool, the 29 features, the three beliefs and the decision.
``tests/legumes/test_counting_kernel.py`` checks that both agree on logged games.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.combinatorics import LOG_CHOOSE, TABLE_N
from bluffsim import fmath as fm

BOMB, CHOICE, REVERSE, DOUBLE = 18, 19, 20, 21
ACCUSE, ACCUSE_DOUBLE, ACCEPT = 154, 155, 163


@njit(cache=True)
def _log_choose(table, n, k):
    if n < 0:
        return table[0, 0]
    col = min(max(k + 1, 0), TABLE_N)
    return table[n, col]


@njit(cache=True)
def _held(table, pool_size, good, hand):
    h = min(hand, pool_size)
    p_none = fm.exp(_log_choose(table, pool_size - good, h) - _log_choose(table, pool_size, h))
    return min(max(1.0 - p_none, 0.0), 1.0)


@njit(cache=True)
def _logit(p):
    p = min(max(p, 1e-3), 1 - 1e-3)
    return fm.log(p / (1 - p))


@njit(cache=True)
def features_row(table, total, hand, my_fd, face_up, disc_rev, my_disc, hand_sizes, owner, veg,
                 accused, accuser, shown, drawn_t, fd_claims, rounds, fd_count, pending, x, pool):
    """Fill ``pool`` (int64[T]) and ``x`` (float64[F]) for one row (``claim_features``)."""
    u = 0
    for t in range(total.size):
        v = total[t] - (np.int64(hand[t]) + np.int64(my_fd[t]) + np.int64(face_up[t])
                        + np.int64(disc_rev[t]) + np.int64(my_disc[t]))
        pool[t] = v if v > 0 else 0
        u += pool[t]
    n_v = pool[veg * 3] + pool[veg * 3 + 1] + pool[veg * 3 + 2]
    h = np.int64(hand_sizes[owner]) + 1
    hold = _held(table, u, n_v, h)
    lh = _logit(hold)
    lhold = fm.log(max(hold, 1e-3))
    t_true, t_lie = np.int64(accused[owner, 0]), np.int64(accused[owner, 1])
    t_bomb = np.int64(accused[owner, 2])
    n_acc = t_true + t_lie + t_bomb
    accuses = np.int64(accuser[owner, 0]) + np.int64(accuser[owner, 1]) + np.int64(accuser[owner, 2])
    truth = fm.log((t_true + 1.0) / (t_lie + t_bomb + 1.0))
    acc_rate = fm.log((accuses + 0.5) / (rounds + 2.0))
    t_n = min(t_true, 8) / 4.0
    l_n = min(t_lie + t_bomb, 8) / 4.0
    a_n = min(accuses, 16) / 8.0
    free = min(np.int64(shown[owner, 1]), 4) + min(np.int64(shown[owner, 2]), 4)
    drawn = fm.log1p(np.float64(drawn_t[owner]))
    l1n = fm.log1p(n_acc)
    x[0] = 1.0
    x[1] = lh
    x[2] = lhold
    x[3] = truth
    x[4] = l1n
    x[5] = acc_rate
    bomb_held = _logit(_held(table, u, pool[BOMB], h))
    x[6] = bomb_held
    x[7] = 1.0 if shown[owner, 0] > 0 else 0.0
    x[8] = 1.0 if fd_count == 1 else 0.0
    x[9] = 1.0 if pending >= 0 else 0.0
    x[10] = max(np.float64(fd_claims[owner, veg]) - 1.0, 0.0)
    x[11] = fm.log(h)
    x[12] = lh * truth
    x[13] = lh * acc_rate
    x[14] = lhold * truth
    x[15] = truth * l1n
    x[16] = fm.log1p(rounds)
    x[17] = t_n
    x[18] = l_n
    x[19] = a_n
    x[20] = lh * t_n
    x[21] = lh * l_n
    x[22] = lh * a_n
    x[23] = free
    x[24] = min(np.int64(shown[owner, 3]), 4)
    x[25] = drawn
    x[26] = lh * free
    x[27] = lh * drawn
    x[28] = fm.log(fd_count + 1.0)
    duel = 1.0 if hand_sizes.size == 2 else 0.0
    x[29] = duel
    x[30] = duel * x[9]
    x[31] = duel * bomb_held
    x[32] = duel * acc_rate
    x[33] = duel * free
    x[34] = duel * lh


@njit(cache=True)
def judge_kernel(total, weights, penalty, points, hand, my_fd, face_up, disc_rev, my_disc,
                 hand_sizes, last_owner, last_called, accused, accuser, shown, drawn_t, fd_claims,
                 num_rounds, fd_count, pending, discard_size, seat, can_double, facing, rows,
                 spite_base, urgent_at, tempo, margin, double_below, accept_below, out, beliefs):
    """For each row ``b`` in ``rows``: the beliefs (``beliefs[b]``, float64[3]) and the decision
    (``out[b]``, which holds the play on entry and keeps it unless the rule accuses or
    accepts)."""
    table = LOG_CHOOSE
    n_types = total.size
    n_feat = weights.shape[1]
    p = hand_sizes.shape[1]
    x = np.empty(n_feat)
    pool = np.empty(n_types, np.int64)
    for i in range(rows.size):
        b = rows[i]
        owner = max(last_owner[b], 0)
        veg = max(last_called[b], 0)
        features_row(table, total, hand[b], my_fd[b], face_up[b], disc_rev[b], my_disc[b],
                     hand_sizes[b], owner, veg, accused[b], accuser[b], shown[b], drawn_t[b],
                     fd_claims[b], np.float64(num_rounds[b]), np.int64(fd_count[b]),
                     np.int64(pending[b]), x, pool)
        z1 = 0.0
        z2 = 0.0
        for f in range(n_feat):
            z1 += x[f] * weights[0, f]
            z2 += x[f] * weights[1, f]
        zm = max(0.0, max(z1, z2))
        e0, e1, e2 = fm.exp(-zm), fm.exp(z1 - zm), fm.exp(z2 - zm)
        s = e0 + e1 + e2
        p_t, p_l, p_b = e0 / s, e1 / s, e2 / s
        beliefs[b, 0], beliefs[b, 1], beliefs[b, 2] = p_t, p_l, p_b
        cnt = 0.0
        num = 0.0
        for j in range(3):
            cnt += pool[veg * 3 + j]
            num += pool[veg * 3 + j] * (j + 1.0)
        k_true = num / max(cnt, 1.0) if cnt > 0 else 2.0
        o_cnt = 0.0
        o_num = 0.0
        for t in range(n_types):
            if t == BOMB or (t < BOMB and t // 3 == veg):
                continue
            o_cnt += pool[t]
            o_num += pool[t] * penalty[t]
        k_lie = o_num / max(o_cnt, 1.0)
        up = 0
        for t in range(n_types):
            up += face_up[b, t]
        bomb_cost = np.float64(discard_size[b]) + np.float64(fd_count[b]) + up
        spite = spite_base * (2.0 if hand_sizes[b, owner] <= urgent_at else 1.0)
        turn = tempo * (p_t + p_b) - spite * tempo * p_l
        v_acc = -p_t * k_true - p_b * bomb_cost + spite * p_l * k_lie + turn
        v_dbl = (-p_t * 2 * k_true - p_b * (bomb_cost + 1) + spite * p_l * 2 * k_lie
                 + (p_t + p_l)) + turn
        use_double = can_double[b] and v_dbl > v_acc and p_t < double_below
        v_best = v_dbl if use_double else v_acc
        size = 0
        for t in range(n_types):
            size += np.int64(hand[b, t])
        # 2 players, the Double my last card: a Double accusation of a lie wins the game
        last_double = p == 2 and can_double[b] and size == hand[b, DOUBLE]
        if last_double and (facing[b] or p_l >= 0.5):
            out[b] = ACCUSE_DOUBLE
            continue
        if facing[b]:
            me = max(seat[b], 0)
            rival = np.iinfo(np.int64).max
            for s_ in range(p):
                if s_ != me and s_ != pending[b] and hand_sizes[b, s_] < rival:
                    rival = np.int64(hand_sizes[b, s_])
            score = 0
            for t in range(n_types):
                score += np.int64(hand[b, t]) * points[t]
            if p >= 3 and score <= rival and p_l < accept_below:
                out[b] = ACCEPT
            else:
                out[b] = ACCUSE_DOUBLE if use_double else ACCUSE
        elif v_best > 1.0 + margin:
            out[b] = ACCUSE_DOUBLE if use_double else ACCUSE


PLAY0, PHASE_PLAY, NUM_TYPES = 132, 1, 22


@njit(cache=True)
def lie_kernel(hand, phase, called, seat, direction, accuser, num_rounds, discard_size, fd_count,
               face_up, hand_sizes, legal, trap_rate, trap_pile, keep_margin, keep, out):
    """``LegumesCounting.lie_card`` per row, in place in ``out`` (the planned actions); ``keep``
    (bool[B]): in the race, the Bomb and the Double are finishers (no trap, no Double lie)."""
    p = hand_sizes.shape[1]
    for b in range(out.size):
        card = out[b] - PLAY0
        if phase[b] != PHASE_PLAY or card < 0 or card >= NUM_TYPES:
            continue
        c = max(np.int64(called[b]), 0)
        if card < BOMB and card // 3 == c:
            continue                                    # a true play
        size = 0
        for t in range(NUM_TYPES):
            size += np.int64(hand[b, t])
        me = max(np.int64(seat[b]), 0)
        nxt = (me + np.int64(direction[b])) % p
        accuses = np.int64(accuser[b, nxt, 0]) + np.int64(accuser[b, nxt, 1]) + np.int64(
            accuser[b, nxt, 2])
        rate = (accuses + 0.5) / (np.float64(num_rounds[b]) + 2.0) * p
        up = 0
        for t in range(NUM_TYPES):
            up += np.int64(face_up[b, t])
        pile = np.float64(discard_size[b]) + np.float64(fd_count[b]) + up
        finishers = np.int64(hand[b, BOMB]) + np.int64(hand[b, CHOICE]) + np.int64(hand[b, REVERSE])
        if (not keep[b] and hand[b, BOMB] > 0 and rate > trap_rate and (finishers >= 2 or pile >= trap_pile)
                and legal[b, PLAY0 + BOMB]):
            out[b] = PLAY0 + BOMB
            continue
        if not (card == BOMB or card == CHOICE) or finishers != 1 or size < 2:
            continue
        smallest = 10 ** 6
        for s_ in range(p):
            if s_ != me and hand_sizes[b, s_] < smallest:
                smallest = np.int64(hand_sizes[b, s_])
        if size > smallest + keep_margin:
            continue
        alt = -1
        if hand[b, DOUBLE] > 0 and not keep[b]:
            alt = DOUBLE
        else:
            best = 99
            for t in range(BOMB):
                if hand[b, t] > 0 and t % 3 + 1 < best:
                    best = t % 3 + 1
                    alt = t
        if alt >= 0 and legal[b, PLAY0 + alt]:
            out[b] = PLAY0 + alt
