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

    The running count is a float32 matrix product with a triangular matrix:
    numpy's ``cumsum`` along a short axis is several times slower.
    """
    a = legal_mask.shape[1]
    cum = legal_mask.astype(np.float32) @ _upper_triangle(a)
    return (cum > n[:, None]).argmax(axis=1)


def legal_count(legal_mask: np.ndarray) -> np.ndarray:
    """Number of legal actions per row (a matrix-vector product; see ``nth_legal``)."""
    return (legal_mask.astype(np.float32) @ np.ones(legal_mask.shape[1], np.float32)).astype(
        np.int64)


_TRI: dict[int, np.ndarray] = {}


def _upper_triangle(a: int) -> np.ndarray:
    if a not in _TRI:
        _TRI[a] = np.triu(np.ones((a, a), dtype=np.float32))
    return _TRI[a]
