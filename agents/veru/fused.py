"""veru's fused loop: built-in agents' compiled policies inside the engine (``agents.fused``).

``play_seats_kernel`` plays, game after game, up to ``decisions`` decisions with the
policy of the lineup member in the current seat: ``random`` (``kernels.random_action``,
the same choice as ``agents.random``, from the seat's agent stream key hashed once per
game), ``heuristic`` (``heuristic_kernel``, the same choice as ``VeruHeuristic``) or
``counting`` (``counting_kernel.decide_kernel``, the very kernel ``VeruCounting.act`` runs,
on a one-row observation copied from the records with the observation's dtypes and shapes
(``counting.KERNEL_FIELDS``), so its decisions are the agent's by construction).  No memo
tables: ``grow`` is never asked for.

Measured (4 players, one worker, batch 4,096, ``nice``d on a 2-core machine shared with
other jobs, load 2-3.3; 3 runs per path alternated, median (min-max), decisions per second):

| ``bluffsim run`` end to end | stepped | fused |
|---|---:|---:|
| 2 heuristic + 2 random, 100,000 games (16.5 M decisions), wall | 545 k (532-556 k) | 2.41 M (2.39-2.46 M) |
| same, per CPU second | 570 k (566-575 k) | 2.62 M (2.60-2.71 M) |
| same, play phase only (manifest ``play_seconds``), wall | 618 k (592-623 k) | 4.27 M (4.18-4.39 M) |
| 2 heuristic + 2 counting, 20,000 games (5.49 M decisions), wall | 298 k (284-298 k) | 970 k (940-983 k) |
| same, per CPU second | 305 k (297-313 k) | 1.09 M (1.08-1.09 M) |

Commands: ``python experiments/fused/timed_run.py stepped|fused
experiments/fused/veru_2h2r.toml --games 100000 --out DIR --force --quiet`` (and
``veru_2h2c.toml --games 20000``).  The fused loop alone (``python
experiments/fused/loop_alone.py --game=veru random heuristic counting``, every seat one
agent, per CPU s, median of 3): random 12.2 M, heuristic 10.1 M, counting 1.33 M.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.combinatorics import LOG_CHOOSE
from agents.fused import COUNTING, HEURISTIC, RANDOM
from agents.random import RandomAgent
from agents.veru import counting as C
from agents.veru import counting_kernel as CK
from agents.veru import heuristic_kernel as HK
from agents.veru.heuristic import VeruHeuristic
from bluffsim import rng_nb as rn
from bluffsim.games.veru import kernels as KN


def _heuristic_params(agent: VeruHeuristic) -> list[float]:
    return [float(agent.config[n]) for n in HK.PARAMS]


# agent class -> (policy kind, its parameter row, the ``act`` the policy equals)
POLICIES = {RandomAgent: (RANDOM, lambda agent: [], RandomAgent.act),
            VeruHeuristic: (HEURISTIC, _heuristic_params, VeruHeuristic.act),
            C.VeruCounting: (COUNTING, C.VeruCounting.kernel_params, C.VeruCounting.act)}


def tables(game) -> tuple:
    """The arrays ``play_seats_kernel`` reads after its arguments: the counting agent's
    log-binomial table and model weights (as ``VeruCounting.decide_rows`` passes them)."""
    return (LOG_CHOOSE, C._weights(C.HONESTY_WEIGHTS, len(C.HONESTY_FEATURES)),
            C._weights(C.DOUBT_WEIGHTS, len(C.DOUBT_FEATURES)),
            C._weights(C.FITTING_WEIGHTS, len(C.FITTING_FEATURES)))


def grow(game) -> None:
    """No memo tables to grow (``play_seats_kernel`` never asks)."""


@njit(cache=True)
def play_seats_kernel(data, hot, rules, decisions, counts, seat_agent, kinds, params,
                      round_stop, first_game, resume, lc, hon_w, doubt_w, fit_w):
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
    # a one-row observation for ``decide_kernel`` (the dtypes and shapes of ``observe``)
    o_seat = np.empty(1, np.int8)
    o_phase = np.empty(1, np.int8)
    o_hand = np.empty((1, KN.T), np.int8)
    o_sizes = np.empty((1, p), np.int8)
    o_out = np.empty((1, p), np.bool_)
    o_closed = np.empty((1, KN.N), np.bool_)
    o_claimant = np.empty(1, np.int8)
    o_rank = np.empty(1, np.int8)
    o_count = np.empty(1, np.int8)
    o_put = np.empty(1, np.int8)
    o_table = np.empty((1, KN.T), np.int8)
    o_banks = np.empty((1, p), np.int8)
    o_bank = np.empty((1, KN.T), np.int8)
    o_seen = np.empty((1, KN.T), np.int8)
    o_hidden = np.empty(1, np.int8)
    o_rounds = np.empty(1, np.int32)
    o_claims = np.empty((1, p, 2), np.int32)
    o_cards = np.empty((1, p), np.int32)
    o_checked = np.empty((1, p, 2), np.int32)
    o_checks = np.empty((1, p, 4), np.int32)
    o_result = np.zeros(1, np.int64)
    no_probs = np.empty((0, 3))
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
            elif kind == COUNTING:
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
                CK.decide_kernel(o_seat, o_phase, o_hand, o_sizes, o_out, o_closed, o_claimant,
                                 o_rank, o_count, o_put, o_table, o_banks, o_bank, o_seen,
                                 o_hidden, o_rounds, o_claims, o_cards, o_checked, o_checks,
                                 r.jokers, r.step, lc, hon_w, doubt_w, fit_w, params[j],
                                 o_result, no_probs)
                a = o_result[0]
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
