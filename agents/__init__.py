"""Agents for bluffsim games: ``make(name, game, **params)`` and the registry.

An agent is a small class with ``name``, typed ``traits`` and one batched
method ``act(obs, legal_mask, rng) -> int[B]``; it sees observations only,
never the state.  ``rng`` is a ``bluffsim.rng.AgentRNG`` keyed by
(game seed, seat, decision index), so an agent's choices do not depend on the
batch it plays in.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

from agents.base import REGISTRY, Agent, AgentError, AgentParamError, Param, Traits, register_agent
from agents.custom import AgentContractError, register


def _import_agent_modules() -> None:
    """Import every module of the ``agents`` package, so each ``@register_agent`` runs."""
    for info in pkgutil.walk_packages(__path__, f"{__name__}."):
        importlib.import_module(info.name)


_import_agent_modules()
from agents.policy import CompiledAgent  # noqa: E402  (re-exported)
from agents.random import RandomAgent  # noqa: E402  (re-exported)
from agents.text import register_text_counting  # noqa: E402

register_text_counting()  # text-counting for every game counting plays (all modules imported now)

__all__ = ["REGISTRY", "Agent", "AgentContractError", "AgentError", "AgentParamError",
           "CompiledAgent", "Param", "RandomAgent", "Traits", "check_name", "describe",
           "list_agents", "make", "register", "register_agent"]


def list_agents() -> list[str]:
    """Names accepted by ``make``."""
    return sorted(REGISTRY)


def make(name: str, game: Any, **params: Any) -> Agent:
    """Build agent ``name`` (a registered name, ``"package.module:ClassName"`` or a text agent
    ``"text:package.module:function"``, see ``agents.text``) for ``game``.

    Unknown names, parameters outside their declared type and range, and custom
    classes that do not fit the contract (``agents.custom``) raise ``AgentError``
    (a ``ValueError``) naming them and what is allowed."""
    from agents import custom

    if custom.is_text_spec(name):
        from agents.text import make_callable

        return make_callable(name, game, **params)
    if custom.is_spec(name):
        return custom.build(name, game, **params)
    if name not in REGISTRY:
        raise AgentError(f"unknown agent {name!r}; available: {', '.join(list_agents())}, or "
                         "\"package.module:ClassName\"")
    by_game = REGISTRY[name]
    if game.game_id not in by_game:
        raise AgentError(f"agent {name!r} does not play {game.game_id!r}; it plays "
                         f"{', '.join(by_game)}")
    if name in custom.REGISTERED:
        return custom.check_agent(name, by_game[game.game_id], game, params)
    return by_game[game.game_id](game, **params)


def check_name(name: str) -> None:
    """Raise ``ValueError`` (one line) unless ``name`` is a registered agent or an importable
    ``"package.module:ClassName"`` (for ``bluffsim play --seats`` and other early checks);
    ``make(name, game, **params)`` then builds it and checks the contract."""
    from agents import custom

    if custom.is_text_spec(name):
        custom.import_object(name[len(custom.TEXT_PREFIX):], "function", name)
    elif custom.is_spec(name):
        custom.import_class(name)
    elif name not in REGISTRY:
        raise AgentError(f"unknown agent {name!r}; available: {', '.join(list_agents())}, or "
                         "\"package.module:ClassName\"")


def describe() -> list[tuple[str, str, dict[str, Any]]]:
    """(agent, game, default parameters) for every registered agent of an existing game."""
    import bluffsim

    games = set(bluffsim.list_games())
    return [(name, gid, dict(cls.params)) for name, by_game in sorted(REGISTRY.items())
            for gid, cls in sorted(by_game.items()) if gid in games]
