"""Seat arithmetic shared by the vectorised engines: lookup tables instead of reductions.

numpy reductions along short axes (P <= 6 seats) cost far more per element than
elementwise work, so engines keep "who is still in" as a bitmask per game and
answer "next seat in this direction" with one table gather.
"""

from __future__ import annotations

import numpy as np


def next_seat_table(num_players: int) -> np.ndarray:
    """int8[2**P, P, 2]: next seat after ``seat`` among ``bits`` going +1 (index 0) or -1 (1).

    When no other seat is in, the seat itself is returned (as the scalar engines do).
    """
    p = num_players
    table = np.zeros((1 << p, p, 2), dtype=np.int8)
    for bits in range(1 << p):
        for seat in range(p):
            for d_i, d in enumerate((1, -1)):
                table[bits, seat, d_i] = seat
                for step in range(1, p + 1):
                    cand = (seat + d * step) % p
                    if bits >> cand & 1:
                        table[bits, seat, d_i] = cand
                        break
    return table


def first_from_table(num_players: int) -> np.ndarray:
    """int8[2**P, P, P+1]: first seat (origin + o) % P with o >= ``first`` in ``bits``, else -1."""
    p = num_players
    table = np.full((1 << p, p, p + 1), -1, dtype=np.int8)
    for bits in range(1 << p):
        for origin in range(p):
            for first in range(p + 1):
                for off in range(first, p):
                    seat = (origin + off) % p
                    if bits >> seat & 1:
                        table[bits, origin, first] = seat
                        break
    return table


def to_bits(flags: np.ndarray) -> np.ndarray:
    """int64[B]: bitmask of a bool[B, P] array (bit p set when flags[:, p])."""
    out = np.zeros(flags.shape[0], dtype=np.int64)
    for p in range(flags.shape[1]):
        out |= flags[:, p].astype(np.int64) << p
    return out


def direction_index(direction: np.ndarray) -> np.ndarray:
    """Column of ``next_seat_table`` for a direction array of +1 / -1."""
    return (direction < 0).astype(np.int64)
