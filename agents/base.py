"""The agent contract: ``name``, ``traits``, declared parameters and a batched ``act``.

Parameters: ``params`` maps each parameter to its default and ``spec`` declares
its type and range, one line each::

    params = {"bluff": 0.1, "call_margin": 1.0}
    spec = {"bluff": probability("chance of raising on a random fruit"),
            "call_margin": real(doc="call when the bid exceeds the expectation by more")}

``Agent.__init__`` checks every given parameter against its ``Param`` (a
parameter without a spec must have its default's type: a finite real, an
integer or a bool), so a bad value fails when the agent is built — for a
config, when it is loaded, before anything is written.

Registration: a built-in agent class is decorated ``@register_agent("qdv")`` (the
games it plays; none = every game) and is found by ``agents.make`` because
``agents/__init__.py`` imports every module of the ``agents`` package — a new
agent file needs no other edit.  ``traits`` is a typed ``Traits`` (Axelrod's
classifier idea): the runner, the benchmark and the adapters read it.  An agent
returns legal actions or the run fails naming it (``AgentFailure``): no agent
quietly replaces an illegal choice with another (that hid bugs and made the
legality test pass by construction).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, ClassVar, TypeVar

import numpy as np

from bluffsim.api import BluffsimError
from bluffsim.rng import AgentRNG


class AgentError(BluffsimError, ValueError):
    """An agent cannot be built: unknown name, a game it does not play, or bad parameters."""


class AgentParamError(AgentError):
    """An agent parameter is unknown or out of its declared type and range."""


@dataclass(frozen=True)
class Traits:
    """What kind of player an agent is (read by the runner, ``bench`` and the adapters)."""

    stochastic: bool = True        # its choices draw on its AgentRNG
    uses_observation: bool = True  # reads the observation (False: the runner may skip observe)
    uses_history: bool = False     # reads the memory fields and per-seat tallies of the game
    learned: bool = False          # its policy was trained from play (weights file)

    @classmethod
    def of(cls, value: Any) -> Traits:
        """``value`` as ``Traits``: a ``Traits``, or a dict of its fields (custom agents may
        give one); unknown keys or non-bool values raise ``AgentError`` naming them."""
        if isinstance(value, Traits):
            return value
        if not isinstance(value, dict):
            raise AgentError(f"traits must be agents.Traits(...) or a dict of its fields; got "
                             f"{type(value).__name__}")
        known = {f.name for f in fields(cls)}
        bad = sorted(k for k, v in value.items() if k not in known or not isinstance(v, bool))
        if bad:
            raise AgentError(f"traits {', '.join(map(repr, bad))} invalid; allowed: "
                             f"{', '.join(sorted(known))} (true/false)")
        return cls(**value)


# name -> {game id -> class}: every agent ``agents.make`` knows (built-in and registered)
REGISTRY: dict[str, dict[str, type]] = {}
A = TypeVar("A", bound=type)


def register_agent(*games: str) -> Callable[[A], A]:
    """Class decorator: register the agent under its ``name`` for ``games`` (none: every game);
    sets the class's ``games``."""

    def add(cls: A) -> A:
        import bluffsim

        known = bluffsim.list_games()
        unknown = [g for g in games if g not in known]
        if unknown:
            raise AgentError(f"register_agent({cls.__name__}): unknown game(s) "
                             f"{', '.join(map(repr, unknown))}; games: {', '.join(known)}")
        plays = games or tuple(known)
        taken = {g: REGISTRY[cls.name][g] for g in plays
                 if g in REGISTRY.get(cls.name, {}) and REGISTRY[cls.name][g] is not cls}
        if taken:
            raise AgentError(f"register_agent({cls.__name__}): agent {cls.name!r} is already "
                             f"registered for {', '.join(taken)} by "
                             f"{', '.join(sorted({c.__name__ for c in taken.values()}))}")
        cls.games = plays
        REGISTRY.setdefault(cls.name, {}).update({g: cls for g in plays})
        return cls

    return add


@dataclass(frozen=True)
class Param:
    """Type and range of an agent parameter: ``kind`` float (finite; integers accepted), int,
    bool or str (a text such as a path), within ``[low, high]`` (None = unbounded)."""

    kind: type = float
    low: float | None = None
    high: float | None = None
    doc: str = ""
    optional: bool = False      # None is allowed too (the agent then computes the value)

    def allowed(self) -> str:
        """What the parameter accepts, in words (for error messages)."""
        if self.optional:
            return f"{Param(self.kind, self.low, self.high).allowed()} or none (computed)"
        if self.kind is bool:
            return "true | false"
        if self.kind is str:
            return "a text (e.g. a file path)"
        what = "an integer" if self.kind is int else "a finite number"
        if self.low is not None and self.high is not None:
            return f"{what} in [{self.low:g}, {self.high:g}]"
        if self.low is not None:
            return f"{what} >= {self.low:g}"
        if self.high is not None:
            return f"{what} <= {self.high:g}"
        return what

    def check(self, value: Any) -> Any:
        """``value`` as the parameter's type; raises ``ValueError`` if it does not fit."""
        if value is None and self.optional:
            return None
        if self.kind is bool:
            ok = isinstance(value, bool | np.bool_)
            return bool(value) if ok else _bad()
        if self.kind is str:
            return str(value) if isinstance(value, str | os.PathLike) else _bad()
        if isinstance(value, bool | np.bool_) or not isinstance(value, int | float | np.number):
            return _bad()
        if self.kind is int:
            if not isinstance(value, int | np.integer):
                return _bad()
            value = int(value)
        else:
            value = float(value)
            if not math.isfinite(value):
                return _bad()
        if (self.low is not None and value < self.low) or (self.high is not None
                                                             and value > self.high):
            return _bad()
        return value

    @classmethod
    def like(cls, default: Any) -> Param:
        """The spec of a parameter declared only by its default: that default's type."""
        if isinstance(default, bool):
            return cls(bool)
        return cls(int if isinstance(default, int) else float)


def _bad() -> Any:
    raise ValueError


def real(low: float | None = None, high: float | None = None, doc: str = "") -> Param:
    """A finite real parameter in ``[low, high]``."""
    return Param(float, low, high, doc)


def integer(low: int | None = None, high: int | None = None, doc: str = "") -> Param:
    """An integer parameter in ``[low, high]``."""
    return Param(int, low, high, doc)


def probability(doc: str = "", optional: bool = False) -> Param:
    """A probability (or share): a real in [0, 1] (or None when ``optional``)."""
    return Param(float, 0.0, 1.0, doc, optional)


class Agent:
    """Base class: subclasses set ``name``, ``games``, ``traits``, ``params`` (defaults) and
    ``spec`` (types and ranges) and implement ``act``."""

    name: ClassVar[str] = ""
    games: ClassVar[tuple[str, ...]] = ()
    traits: ClassVar[Traits] = Traits()
    params: ClassVar[dict[str, Any]] = {}
    spec: ClassVar[dict[str, Param]] = {}

    def __init__(self, game: Any, **params: Any):
        self.game = game
        self.config = {**self.params, **self.check_params(params, getattr(game, "game_id", ""))}

    @classmethod
    def param_spec(cls, name: str) -> Param:
        """The declared ``Param`` of parameter ``name`` (or one inferred from its default)."""
        return cls.spec.get(name) or Param.like(cls.params[name])

    @classmethod
    def check_params(cls, params: dict[str, Any], game_id: str = "") -> dict[str, Any]:
        """Validated copies of ``params``; raises ``AgentParamError`` naming the parameter,
        its value and what is allowed."""
        who = f"agent {cls.name!r}" + (f" ({game_id})" if game_id else "")
        unknown = set(params) - set(cls.params)
        if unknown:
            allowed = ", ".join(cls.params) or "none"
            raise AgentParamError(f"{who}: unknown parameter(s) {', '.join(sorted(unknown))}; "
                                  f"allowed: {allowed}")
        clean = {}
        for key, value in params.items():
            spec = cls.param_spec(key)
            try:
                clean[key] = spec.check(value)
            except ValueError:
                raise AgentParamError(f"{who}: parameter {key} = {value!r} is invalid; allowed: "
                                      f"{spec.allowed()}") from None
        return clean

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
