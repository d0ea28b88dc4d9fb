"""bluffsim: a research simulator and agent benchmark for bluffing card games.

``make(game_id, num_players, **options)`` builds a vectorised game;
``list_games()`` lists the ids.  See ``bluffsim.api`` for the game contract.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from bluffsim.api import (
    BluffsimError,
    Game,
    IllegalActionError,
    RulesError,
    SeedError,
    State,
)

__version__ = "0.1.0"

_GAMES = {"qdv": "bluffsim.games.qdv", "legumes": "bluffsim.games.legumes",
          "veru": "bluffsim.games.veru"}

__all__ = [
    "BluffsimError", "Game", "IllegalActionError", "RulesError", "SeedError", "State",
    "__version__", "game_module", "list_games", "make",
]


def list_games() -> list[str]:
    """Ids of the games bluffsim implements, e.g. ``['qdv']``."""
    return list(_GAMES)


def game_module(game_id: str) -> ModuleType:
    """The package of a game (``bluffsim.games.<id>``); unknown ids raise ``RulesError``."""
    if game_id not in _GAMES:
        raise RulesError(f"unknown game {game_id!r}; available: {', '.join(_GAMES)}")
    return importlib.import_module(_GAMES[game_id])


def make(game_id: str, num_players: int = 4, **options: Any) -> Game:
    """Build the vectorised engine of ``game_id`` with validated rules options."""
    return game_module(game_id).make_game(num_players=num_players, **options)
