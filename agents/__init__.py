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
from agents.learned import LearnedAgent
from agents.legumes.counting import LegumesCounting
from agents.legumes.heuristic import LegumesHeuristic
from agents.qdv.counting import QdvCounting
from agents.qdv.heuristic import QdvHeuristic
from agents.random import RandomAgent
from agents.veru.counting import VeruCounting
from agents.veru.heuristic import VeruHeuristic

# name -> {game id -> class}
REGISTRY: dict[str, dict[str, type[Agent]]] = {
    "random": {g: RandomAgent for g in RandomAgent.games},
    "heuristic": {"qdv": QdvHeuristic, "veru": VeruHeuristic, "legumes": LegumesHeuristic},
    "counting": {"qdv": QdvCounting, "veru": VeruCounting, "legumes": LegumesCounting},
    "learned": {g: LearnedAgent for g in LearnedAgent.games},
}

__all__ = ["REGISTRY", "Agent", "RandomAgent", "describe", "list_agents", "make"]


def list_agents() -> list[str]:
    """Names accepted by ``make``."""
    return sorted(REGISTRY)


def make(name: str, game: Any, **params: Any) -> Agent:
    """Build agent ``name`` for ``game``; unknown names or parameters raise ``ValueError``."""
    if name not in REGISTRY:
        raise ValueError(f"unknown agent {name!r}; available: {', '.join(list_agents())}")
    by_game = REGISTRY[name]
    if game.game_id not in by_game:
        raise ValueError(f"agent {name!r} does not play {game.game_id!r}; it plays "
                         f"{', '.join(by_game)}")
    return by_game[game.game_id](game, **params)


def describe() -> list[tuple[str, str, dict[str, Any]]]:
    """(agent, game, default parameters) for every registered agent of an existing game."""
    import bluffsim

    games = set(bluffsim.list_games())
    return [(name, gid, dict(cls.params)) for name, by_game in sorted(REGISTRY.items())
            for gid, cls in sorted(by_game.items()) if gid in games]
