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


def legal_positions(legal_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(flat, counts): the legal positions of the whole batch in row-major order and the
    number per row.  One ``flatnonzero`` and one ``bincount``: numpy's reductions along
    the short action axis (``count_nonzero(axis=1)``, ``cumsum``) are several times slower."""
    b, a = legal_mask.shape
    flat = np.flatnonzero(legal_mask)
    return flat, np.bincount(flat // a, minlength=b)


def nth_legal(legal_mask: np.ndarray, n: np.ndarray,
              positions: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """The ``n``-th legal action (0-based, in id order) of each row; rows without one give 0.

    ``positions`` is ``legal_positions(legal_mask)`` when the caller already has it.
    """
    b, a = legal_mask.shape
    flat, counts = legal_positions(legal_mask) if positions is None else positions
    if flat.size == 0:
        return np.zeros(b, np.int64)
    starts = np.cumsum(counts) - counts
    pos = np.minimum(starts + np.asarray(n, dtype=np.int64), flat.size - 1)
    return np.where(counts > 0, flat[pos] - np.arange(b) * a, 0)
