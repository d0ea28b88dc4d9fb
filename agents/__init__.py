"""Agents for bluffsim games: ``make(name, game, **params)`` and the registry.

An agent is a small class with ``name``, a ``traits`` dict and one batched
method ``act(obs, legal_mask, rng) -> int[B]``; it sees observations only,
never the state.  ``rng`` is a ``bluffsim.rng.AgentRNG`` keyed by
(game seed, seat, decision index), so an agent's choices do not depend on the
batch it plays in.
"""

from __future__ import annotations

from typing import Any

from agents.base import Agent
from agents.random import RandomAgent

REGISTRY: dict[str, type[Agent]] = {"random": RandomAgent}

__all__ = ["REGISTRY", "Agent", "RandomAgent", "list_agents", "make"]


def list_agents() -> list[str]:
    """Names accepted by ``make``."""
    return sorted(REGISTRY)


def make(name: str, game: Any, **params: Any) -> Agent:
    """Build agent ``name`` for ``game``; unknown names or parameters raise ``ValueError``."""
    if name not in REGISTRY:
        raise ValueError(f"unknown agent {name!r}; available: {', '.join(list_agents())}")
    cls = REGISTRY[name]
    if game.game_id not in cls.games:
        raise ValueError(f"agent {name!r} does not play {game.game_id!r}; it plays "
                         f"{', '.join(cls.games)}")
    return cls(game, **params)
