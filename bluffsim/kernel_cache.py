"""Whether numba must compile before a run can start, so the CLI can say so.

Every kernel is ``@njit(cache=True)``: the first call compiles it (tens of seconds for
an engine and an agent on a loaded machine) and writes the machine code next to the
source (``__pycache__``, or ``NUMBA_CACHE_DIR``); later processes load it in well under
a second.  ``kernels_cold`` looks, without compiling anything, whether the entry points
a run calls first have a valid cache entry: the game's ``start_kernel`` and
``step_kernel`` and the ``*_kernel`` functions an agent's module calls (its own or those
of a ``*_kernel`` module it imports) — or, when the runner plays the lineup in the fused
loop (``agents.fused``: some agent of the lineup has a compiled policy), ``start_kernel``
and the game's ``play_seats_kernel``.  A cache
entry is stale when the source changed; numba then compiles again, and so does this report
cold.

numba keys a cached kernel on its own file only: ``bluffsim.numba_sources`` deletes the cached
kernels when any numba source changed (see there).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from types import ModuleType
from typing import Any

COMPILING = "compiling kernels (first run only, up to about a minute; cached afterwards)…"


def _is_dispatcher(obj: Any) -> bool:
    return hasattr(obj, "py_func") and hasattr(obj, "_cache")


def cached(dispatcher: Any) -> bool:
    """True when ``dispatcher`` has a compiled version on disk that matches its source (numba's
    index file, read as numba reads it; an unreadable one counts as not cached)."""
    try:
        return bool(dispatcher._cache._cache_file._load_index())
    except Exception:  # cache disabled or numba internals moved: assume it will compile
        return False


def _module_kernels(module: ModuleType) -> list[Any]:
    """The ``*_kernel`` dispatchers of ``module`` and of the ``*_kernel`` modules it imports
    (an agent names ``*_kernel`` only what its ``act`` calls; batch functions for analysis and
    fitting are named otherwise, so a run never reports them cold)."""
    out = []
    for name, obj in vars(module).items():
        if isinstance(obj, ModuleType) and obj.__name__.endswith("_kernel"):
            out += [d for n, d in vars(obj).items() if n.endswith("_kernel") and _is_dispatcher(d)]
        elif name.endswith("_kernel") and _is_dispatcher(obj):
            out.append(obj)
    return out


def entry_kernels(game: Any, agent_classes: Iterable[type] = ()) -> list[Any]:
    """The dispatchers a run of ``game`` (an engine) with agents of ``agent_classes`` calls
    first (module docstring)."""
    kernels = getattr(type(game), "kernels", None)
    out = [kernels.start_kernel, kernels.step_kernel] if kernels is not None else []
    for cls in agent_classes:
        module = sys.modules.get(cls.__module__)
        if module is not None:
            out += _module_kernels(module)
    return out


def agent_classes(game_id: str, names: Iterable[str]) -> list[type]:
    """The registered classes of agents ``names`` for ``game_id`` (custom agents skipped)."""
    from agents.base import REGISTRY

    return [REGISTRY[n][game_id] for n in names if game_id in REGISTRY.get(n, {})]


def fused_entry_kernels(game: Any, names: list[str], classes: list[type]) -> list[Any] | None:
    """The dispatchers a run calls first when the runner plays its lineup in the fused loop
    (some agent has a compiled policy: ``agents.fused.fused_lineup``; the others act from
    Python between its calls), else None."""
    from agents.fused import Builtins
    from agents.learned import LearnedAgent
    from agents.random import RandomAgent

    builtins = Builtins.of(game.game_id)
    kernels = getattr(type(game), "kernels", None)
    if builtins.module is None or kernels is None:
        return None
    if not any(cls in (RandomAgent, LearnedAgent) or cls in builtins.classes.values()
               for cls in classes):
        return None
    return [kernels.start_kernel, builtins.module.play_seats_kernel]


def kernels_cold(game: Any, agent_names: Iterable[str] = ()) -> bool:
    """True when a run of engine ``game`` with agents ``agent_names`` will compile first."""
    import agents  # noqa: F401  (registers the built-in agents)

    names = list(agent_names)
    classes = agent_classes(game.game_id, names)
    entry = fused_entry_kernels(game, names, classes)
    if entry is None:
        entry = entry_kernels(game, classes)
    return not all(cached(d) for d in entry)
