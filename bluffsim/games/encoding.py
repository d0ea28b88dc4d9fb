"""Helpers shared by the games' flat observation tensors (``observe.py`` of each game)."""

from __future__ import annotations

import numpy as np

Block = tuple[str, int, str]           # name, width, meaning
Row = tuple[str, int, int, str]        # name, first index, width, meaning


def layout(blocks: list[Block]) -> list[Row]:
    """Index / meaning table from consecutive blocks: (name, first index, width, meaning)."""
    out, pos = [], 0
    for name, width, meaning in blocks:
        out.append((name, pos, width, meaning))
        pos += width
    return out


def layout_size(rows: list[Row]) -> int:
    """Total width of a layout."""
    _, first, width, _ = rows[-1]
    return first + width


def one_hot(values: np.ndarray, n: int) -> np.ndarray:
    """float32[B, n]; rows with a value outside [0, n) are all zero (as ``drivers.one_hot``)."""
    values = np.asarray(values).astype(np.int64)
    out = np.zeros((values.shape[0], n), dtype=np.float32)
    ok = (values >= 0) & (values < n)
    out[np.flatnonzero(ok), values[ok]] = 1.0
    return out


class Relative:
    """Re-index per-seat data so that index 0 is the observer (``seat``), 1 the next seat, …"""

    def __init__(self, seat: np.ndarray, num_players: int):
        self.seat = np.maximum(np.asarray(seat).astype(np.int64), 0)
        self.p = num_players
        self.order = (self.seat[:, None] + np.arange(num_players)) % num_players
        self.rows = np.arange(self.seat.shape[0])[:, None]

    def blocks(self, x: np.ndarray) -> np.ndarray:
        """float32[B, P * rest]: ``x[B, P, ...]`` with seats in relative order, flattened."""
        return x[self.rows, self.order].reshape(self.seat.shape[0], -1).astype(np.float32)

    def seat_one_hot(self, x: np.ndarray) -> np.ndarray:
        """float32[B, P]: one-hot relative position of an absolute seat (zeros for -1)."""
        x = np.asarray(x).astype(np.int64)
        return one_hot(np.where(x >= 0, (x - self.seat) % self.p, -1), self.p)
