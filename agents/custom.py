"""Your own agents: ``"package.module:ClassName"`` specs, ``register(name, cls)`` and the contract check.

An agent class fits the contract when ``ClassName(game, **params)`` builds it and
the instance has

| attribute | meaning |
|---|---|
| ``name`` | a non-empty ``str`` |
| ``traits`` | ``agents.Traits(...)`` or a dict of its fields (``stochastic``, ``uses_history``, ... |
| ``act(obs, legal_mask, rng)`` | returns ``int[B]``: one legal action id per game of the batch |

``check_agent`` builds the agent and plays one decision of two fresh games with
it, so a class that does not fit fails at config load with one line naming the
spec, not in the middle of a run.  It then plays the first six decisions of those
games, asking ``act`` twice each time with the same observations, mask and ``rng``:
different answers (an agent drawing from ``np.random`` or ``random`` instead of ``rng``,
or keeping state between calls) are an error, since such an agent makes every run
irreproducible.  An agent that draws from elsewhere only rarely can slip through; a
``text:package.module:function`` agent is not asked twice (its function may be a
sampled language model, and each answer may cost a call).
Modules are imported from the working directory first (it is put on ``sys.path``),
then from the environment.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

import numpy as np

from agents.base import REGISTRY, AgentError, Traits

SPEC_SEP = ":"

# name -> class registered by ``register`` (for notebooks): plays every game it lists in
# ``games`` (all games when it lists none)
REGISTERED: dict[str, type] = {}


class AgentContractError(AgentError):
    """A custom agent cannot be imported, built or does not fit the agent contract."""


def is_spec(name: str) -> bool:
    """True for ``"package.module:ClassName"`` specs (as opposed to registered names and
    ``"text:package.module:function"`` text-agent specs)."""
    return isinstance(name, str) and SPEC_SEP in name and not is_text_spec(name)


# ``text:package.module:function``: a Python callable played through the text protocol (agents.text)
TEXT_PREFIX = "text:"


def is_text_spec(name: str) -> bool:
    """True for ``"text:package.module:function"`` specs (``agents.text``)."""
    return isinstance(name, str) and name.startswith(TEXT_PREFIX)


def import_class(spec: str) -> type:
    """The class named by ``"package.module:ClassName"``, imported from the working dir or the env."""
    cls = import_object(spec, "class")
    if not isinstance(cls, type):
        module_name, _, cls_name = spec.partition(SPEC_SEP)
        raise AgentContractError(f"agent {spec!r}: module {module_name!r} has no class {cls_name!r}")
    return cls


def import_object(spec: str, kind: str = "class", label: str | None = None) -> object:
    """The ``kind`` (class, function) named by ``"package.module:Name"``, imported from the
    working dir or the env; errors name ``label`` (default ``spec``)."""
    label = spec if label is None else label
    module_name, _, obj_name = spec.partition(SPEC_SEP)
    placeholder = "ClassName" if kind == "class" else kind
    if not module_name or not obj_name or not module_name.replace(".", "").replace("_", "a").isalnum():
        prefix = TEXT_PREFIX if is_text_spec(label) else ""
        raise AgentContractError(f"agent {label!r}: write \"{prefix}package.module:{placeholder}\"")
    cwd = os.getcwd()
    if cwd not in sys.path:
        sys.path.insert(0, cwd)
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise AgentContractError(f"agent {label!r}: cannot import module {module_name!r} from the "
                                 f"working directory or the environment ({e})") from None
    except Exception as e:  # the user's module itself failed
        raise AgentContractError(f"agent {label!r}: importing {module_name!r} raised "
                                 f"{type(e).__name__}: {e}") from None
    found = getattr(module, obj_name, None)
    if found is None:
        raise AgentContractError(f"agent {label!r}: module {module_name!r} has no {kind} {obj_name!r}")
    return found


def register(name: str, cls: type) -> None:
    """Make ``cls`` available as agent ``name`` (``agents.make``, configs in this process)."""
    if not isinstance(name, str) or not name or SPEC_SEP in name:
        raise AgentContractError(f"register: name {name!r} must be a non-empty string without ':'")
    if not isinstance(cls, type) or not callable(getattr(cls, "act", None)):
        raise AgentContractError(f"register({name!r}, ...): give a class with an act method")
    games = declared_games(f"register({name!r}, ...)", cls)
    import bluffsim

    REGISTRY[name] = {g: cls for g in (games or bluffsim.list_games())}
    REGISTERED[name] = cls


def declared_games(label: str, cls: type) -> tuple[str, ...]:
    """The game ids a class lists in its optional ``games`` (empty: every game); a bare string
    (``games = "qdv"``, which would read as the games q, d, v), a non-sequence or an unknown id is
    an ``AgentContractError``."""
    import bluffsim

    games = getattr(cls, "games", ()) or ()
    if isinstance(games, str):
        raise AgentContractError(f"{label}: games = {games!r} is a string; give a tuple of game ids, "
                                 f"e.g. games = ({games!r},)")
    if not isinstance(games, tuple | list | set | frozenset):
        raise AgentContractError(f"{label}: games = {games!r}; give a tuple of game ids, e.g. "
                                 "games = (\"qdv\",)")
    for g in games:
        if g not in bluffsim.list_games():
            raise AgentContractError(f"{label}: unknown game {g!r} in games; games: "
                                     f"{', '.join(bluffsim.list_games())}")
    return tuple(games)


def build(spec: str, game: Any, **params: Any) -> Any:
    """Import and build ``ClassName(game, **params)``, then check it against the contract."""
    cls = import_class(spec)
    games = declared_games(f"agent {spec!r}", cls)
    if games and game.game_id not in games:
        raise AgentContractError(f"agent {spec!r} does not play {game.game_id!r}; its games: "
                                 f"{', '.join(games)}")
    return check_agent(spec, cls, game, params)


def check_agent(label: str, cls: type, game: Any, params: dict[str, Any]) -> Any:
    """Build ``cls(game, **params)`` and check name, traits and one batched ``act`` call."""
    try:
        agent = cls(game, **params)
    except Exception as e:
        raise AgentContractError(f"agent {label!r}: {cls.__name__}(game, **params) failed: "
                                 f"{type(e).__name__}: {e}") from None
    name = getattr(agent, "name", None)
    if not isinstance(name, str) or not name:
        raise AgentContractError(f"agent {label!r}: needs a `name` attribute (a non-empty str)")
    if not hasattr(agent, "traits"):
        raise AgentContractError(f"agent {label!r}: needs a `traits` attribute (agents.Traits(...) "
                                 "or a dict of its fields, e.g. {\"stochastic\": True})")
    try:
        Traits.of(agent.traits)
    except AgentError as e:
        raise AgentContractError(f"agent {label!r}: {e}") from None
    if not callable(getattr(agent, "act", None)):
        raise AgentContractError(f"agent {label!r}: needs a method act(obs, legal_mask, rng) -> int[B]")
    _probe(label, agent, game)
    if not is_text_spec(label):   # a text callable may be a sampled model, each call may cost
        _probe_reproducible(label, agent, game)
    return agent


REPRO_GAMES = 2        # fresh games of the reproducibility probe (the batch of ``_probe``)
REPRO_DECISIONS = 6    # decisions of each it compares


def _probe_reproducible(label: str, agent: Any, game: Any) -> None:
    """``act`` called twice on the same observations, mask and ``rng`` must choose the same
    actions, at the first decisions of a few fresh games: an agent drawing from ``np.random``
    or ``random`` (or keeping state between calls) would make every run irreproducible."""
    from bluffsim.rng import AgentRNG

    st = game.init(np.arange(1, REPRO_GAMES + 1, dtype=np.uint64))
    for _ in range(REPRO_DECISIONS):
        if st.done.any():
            return
        obs, mask = game.observe(st), st.legal_action_mask
        rng = AgentRNG(st.seed, st.current_player, st.num_decisions)
        first, second = (_act_on_copies(label, agent, obs, mask, rng) for _ in range(2))
        if first.shape != (REPRO_GAMES,) or not mask[np.arange(REPRO_GAMES), first].all():
            raise AgentContractError(f"agent {label!r}: act returned an illegal action "
                                     f"{first.tolist()} (B={REPRO_GAMES})")
        if not np.array_equal(first, second):
            g = int(np.flatnonzero(first != second)[0])
            raise AgentContractError(
                f"agent {label!r}: act chose action {first[g]} then {second[g]} for the same "
                "observation, mask and rng: draw random numbers from the rng argument only "
                "(rng.uniform, rng.below), not np.random or random, and keep no state between "
                "calls, or runs cannot be reproduced")
        game.step(st, first)


def _act_on_copies(label: str, agent: Any, obs: dict[str, np.ndarray], mask: np.ndarray,
                   rng: Any) -> np.ndarray:
    """``agent.act`` on copies of ``obs`` and ``mask`` (an agent may write into its inputs)."""
    try:
        a = agent.act({k: np.array(v) for k, v in obs.items()}, mask.copy(), rng)
    except Exception as e:
        raise AgentContractError(f"agent {label!r}: act(obs, legal_mask, rng) raised "
                                 f"{type(e).__name__}: {e}") from None
    a = np.asarray(a)
    if a.ndim != 1 or not np.issubdtype(a.dtype, np.integer) or \
            not ((a >= 0) & (a < mask.shape[1])).all():
        raise AgentContractError(f"agent {label!r}: act must return int[B], one legal action id "
                                 f"per game; got {a.dtype}{list(a.shape)} {a.tolist()[:8]}")
    return a


def _probe(label: str, agent: Any, game: Any) -> None:
    """One decision of two fresh games: ``act`` must return one legal action id per game."""
    from bluffsim.rng import AgentRNG

    st = game.init(np.array([1, 2], dtype=np.uint64))
    rng = AgentRNG(st.seed, st.current_player, st.num_decisions)
    try:
        a = agent.act(game.observe(st), st.legal_action_mask, rng)
    except Exception as e:
        raise AgentContractError(f"agent {label!r}: act(obs, legal_mask, rng) raised "
                                 f"{type(e).__name__}: {e}") from None
    a = np.asarray(a)
    if a.shape != (2,) or not np.issubdtype(a.dtype, np.integer):
        raise AgentContractError(f"agent {label!r}: act must return int[B] (one action id per game); "
                                 f"got {a.dtype}{list(a.shape)} for B=2")
    mask = st.legal_action_mask
    if not ((a >= 0) & (a < mask.shape[1])).all() or not mask[np.arange(2), a].all():
        raise AgentContractError(f"agent {label!r}: act returned an illegal action {a.tolist()}")
