"""The agent contract: ``name``, ``traits`` and a batched ``act``."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from bluffsim.rng import AgentRNG


class Agent:
    """Base class: subclasses set ``name``, ``games`` and ``traits`` and implement ``act``."""

    name: ClassVar[str] = ""
    games: ClassVar[tuple[str, ...]] = ()
    traits: ClassVar[dict[str, Any]] = {}
    params: ClassVar[dict[str, Any]] = {}

    def __init__(self, game: Any, **params: Any):
        unknown = set(params) - set(self.params)
        if unknown:
            allowed = ", ".join(self.params) or "none"
            raise ValueError(f"agent {self.name!r}: unknown parameter(s) "
                             f"{', '.join(sorted(unknown))}; allowed: {allowed}")
        self.game = game
        self.config = {**self.params, **params}

    def act(self, obs: dict[str, np.ndarray], legal_mask: np.ndarray, rng: AgentRNG) -> np.ndarray:
        """One legal action id per game of the batch."""
        raise NotImplementedError


def nth_legal(legal_mask: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The ``n``-th legal action (0-based, in id order) of each row.

    The legal positions of the whole batch in row-major order (one
    ``flatnonzero``) are indexed at each row's offset plus ``n``: no per-row scan
    and no ``cumsum`` along the short action axis (several times slower).  Rows
    without a legal action give 0.
    """
    b, a = legal_mask.shape
    flat = np.flatnonzero(legal_mask)
    counts = np.count_nonzero(legal_mask, axis=1)
    starts = np.cumsum(counts) - counts
    if flat.size == 0:
        return np.zeros(b, np.int64)
    pos = np.minimum(starts + np.asarray(n, dtype=np.int64), flat.size - 1)
    return np.where(counts > 0, flat[pos] - np.arange(b) * a, 0)  # rows with none: 0


def legal_count(legal_mask: np.ndarray) -> np.ndarray:
    """Number of legal actions per row."""
    return np.count_nonzero(legal_mask, axis=1)
