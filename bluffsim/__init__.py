"""bluffsim: a research simulator and agent benchmark for bluffing card games.

``make(game_id, num_players, **options)`` builds a game's fast engine;
``list_games()`` lists the ids; ``spec(game_id)`` is a game's declaration
(``bluffsim.games.spec.GameSpec``).  A game is a subpackage of ``bluffsim.games``
that defines ``SPEC``: nothing else lists the games.  See ``bluffsim.api`` for the
engine contract.

Games outside the installed package: the directories listed in the environment variable
``BLUFFSIM_GAMES_PATH`` (``os.pathsep``-separated) are appended to ``bluffsim.games.__path__``
(the standard namespace extension of a package's ``__path__``), so every game package in them
is ``bluffsim.games.<id>`` and is found exactly as a built-in game is.  The variable is read
once per process, at the first listing; child processes (``bluffsim run`` workers, CLI calls)
inherit it.  The test suite registers its worked-example game this way
(``tests/extra_games/``, ``docs/adding_a_game.md``).
"""

from __future__ import annotations

import functools
import importlib
import os
import pkgutil
from types import ModuleType
from typing import TYPE_CHECKING, Any

from bluffsim.api import (
    BluffsimError,
    Game,
    IllegalActionError,
    RulesError,
    SeedError,
    State,
)

if TYPE_CHECKING:
    from bluffsim.games.spec import GameSpec

__version__ = "0.1.0"

from bluffsim.numba_sources import clear_stale_caches, lock_cache_index  # noqa: E402

clear_stale_caches()  # kernels compiled from older sources of the functions they call
lock_cache_index()  # processes compiling different signatures of a kernel at once

# directories of extra game packages (module docstring)
GAMES_PATH_VARIABLE = "BLUFFSIM_GAMES_PATH"


__all__ = [
    "BluffsimError", "Game", "IllegalActionError", "RulesError", "SeedError", "State",
    "__version__", "game_module", "list_games", "make", "spec",
]


@functools.cache
def _game_ids() -> tuple[str, ...]:
    import bluffsim.games

    for extra in os.environ.get(GAMES_PATH_VARIABLE, "").split(os.pathsep):
        path = os.path.abspath(extra) if extra else ""
        if path and path not in bluffsim.games.__path__:
            bluffsim.games.__path__.append(path)
    return tuple(sorted(m.name for m in pkgutil.iter_modules(bluffsim.games.__path__) if m.ispkg))


def list_games() -> list[str]:
    """Ids of the games bluffsim implements, sorted: every subpackage of ``bluffsim.games`` is a
    game and must define ``SPEC`` (checked by ``tests/test_spec.py``; nothing is imported here,
    so listing the games stays cheap)."""
    return list(_game_ids())


def game_module(game_id: str) -> ModuleType:
    """The package of a game (``bluffsim.games.<id>``); unknown ids raise ``RulesError``."""
    if game_id not in _game_ids():
        raise RulesError(f"unknown game {game_id!r}; available: {', '.join(_game_ids())}")
    return importlib.import_module(f"bluffsim.games.{game_id}")


def spec(game_id: str) -> GameSpec:
    """The declaration of ``game_id`` (its package's ``SPEC``); unknown ids raise ``RulesError``."""
    return game_module(game_id).SPEC


def make(game_id: str, num_players: int | None = None, **options: Any) -> Game:
    """Build the fast engine of ``game_id`` with validated rules options (``num_players``
    defaults to the game's declared default)."""
    return spec(game_id).make(num_players, **options)
