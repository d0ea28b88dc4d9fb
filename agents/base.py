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
    """The ``n``-th legal action (0-based, in id order) of each row."""
    cum = np.cumsum(legal_mask, axis=1, dtype=np.int16)
    return (cum > n[:, None]).argmax(axis=1)
