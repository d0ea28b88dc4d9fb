"""OpenSpiel Python games for every bluffsim game (optional extra ``adapters``).

Importing this module registers ``python_bluffsim_qdv``, ``python_bluffsim_veru``
and ``python_bluffsim_legumes``::

    import pyspiel, bluffsim.adapters.openspiel
    game = pyspiel.load_game("python_bluffsim_qdv(players=2,options=starting_tokens:3)")

Parameters: ``players``; ``options``, rules options (as ``bluffsim.make``) written
``name:value;name:value`` with lists as ``[a b c]`` (OpenSpiel game strings
cannot hold commas; ``format_options`` writes it from a dict); ``deals`` and
``seed``, the chance model; ``cache_tree``.

Chance (explicit-stochastic, decided here).  The game opens with one chance node
whose ``deals`` outcomes are equally likely; outcome ``i`` deals game seed
``seed + i``.  Every later random event (reshuffles, challenge cards, Jokers,
openers) is a deterministic function of that game seed and the actions, because
bluffsim's randomness is counter-based, so the tree is exact for this finite
set of deals — the real game is the limit of many deals.  A small ``deals`` keeps
trees solvable; the default 16 is meant for simulation.

Observations.  ``observation_tensor`` / ``observation_string`` are the game's
flat tensor from that seat (``observe.tensor_layout``); the string lists its
non-zero entries.  ``information_state_string`` is perfect recall: the seat's
observation strings after every event so far, joined — what tabular solvers
(CFR, best response) key on.  ``information_state_tensor`` is the same flat
tensor as the observation: a fixed-size feature vector for learning agents,
which carries the history the games show (bids so far, cards seen picked up,
revealed cards) but is not perfect recall in general.
Returns are the placement rewards of ``bluffsim.adapters.single`` (zero-sum, in
[-1, 1]).  A game cut by its safety cap ends as terminal with those rewards.
``cache_tree=True`` keeps every position reached (for solvers that walk a small
tree many times; memory grows with the positions visited).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

import bluffsim
from bluffsim.adapters.single import SingleGame


def short_name(game_id: str) -> str:
    """The OpenSpiel name of a bluffsim game."""
    return f"python_bluffsim_{game_id}"


def _game_type(game_id: str) -> pyspiel.GameType:
    lo, hi, _ = bluffsim.spec(game_id).players   # OpenSpiel's default: the smallest table
    return pyspiel.GameType(
        short_name=short_name(game_id), long_name=f"bluffsim {game_id}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=hi, min_num_players=lo,
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification={"players": lo, "deals": 16, "seed": 0, "options": "",
                                 "cache_tree": False})


def max_game_length(single: SingleGame) -> int:
    """An upper bound on the decisions of one game under these rules (its safety caps)."""
    return bluffsim.spec(single.game_id).max_game_length(single.rules)


class BluffsimGame(pyspiel.Game):
    """A bluffsim game as an OpenSpiel Python game (module docstring)."""

    def __init__(self, params: dict[str, Any] | None = None, *, game_id: str):
        params = params or {}
        game_type = _game_type(game_id)
        spec = game_type.parameter_specification
        players = int(params.get("players", spec["players"]))
        options = parse_options(params.get("options", spec["options"]))
        self.single = SingleGame(game_id, players, **options)
        self.deals = int(params.get("deals", spec["deals"]))
        if self.deals < 1:
            raise bluffsim.RulesError(f"deals must be at least 1, got {self.deals}")
        self.seed = int(params.get("seed", spec["seed"]))
        self.tree = TreeCache(bool(params.get("cache_tree", spec["cache_tree"])))
        info = pyspiel.GameInfo(
            num_distinct_actions=self.single.num_actions, max_chance_outcomes=self.deals,
            num_players=players, min_utility=-1.0, max_utility=1.0, utility_sum=0.0,
            max_game_length=max_game_length(self.single))
        super().__init__(game_type, info, params)

    def new_initial_state(self) -> BluffsimState:
        """The chance node that picks the deal."""
        return BluffsimState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> BluffsimObserver:
        """Observer of the seat's flat tensor; strings are perfect-recall when asked."""
        perfect_recall = bool(iig_obs_type and iig_obs_type.perfect_recall)
        return BluffsimObserver(self.single, perfect_recall, params)


def _value(text: str) -> Any:
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        return [_value(t) for t in text[1:-1].split()]
    if text in ("true", "false"):
        return text == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_options(text: str) -> dict[str, Any]:
    """Rules options from ``name:value;name:value`` (lists ``[a b c]``); see the module docstring."""
    out: dict[str, Any] = {}
    for item in filter(None, (t.strip() for t in text.split(";"))):
        name, sep, value = item.partition(":")
        if not sep:
            raise bluffsim.RulesError(f"options item {item!r} is not name:value "
                                      f"(e.g. starting_tokens:3;fruit_multipliers:[1 2])")
        out[name.strip()] = _value(value)
    return out


def format_options(options: dict[str, Any]) -> str:
    """The ``options`` parameter text of a dict (inverse of ``parse_options``)."""
    def text(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, list | tuple):
            return "[" + " ".join(text(x) for x in v) + "]"
        return str(v)
    return ";".join(f"{k}:{text(v)}" for k, v in options.items())


class TreeCache:
    """The deal nodes of one game, shared (never copied) by its states."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.deal_nodes: dict[int, Node] = {}

    def __deepcopy__(self, memo: dict) -> TreeCache:
        return self


class Node:
    """An immutable game position shared by every OpenSpiel state that reaches it.

    OpenSpiel clones states for every child; sharing the position (``__deepcopy__``
    returns itself) makes a clone cheap, and with ``cache_tree`` each node keeps
    its children so a solver walking the tree again recomputes nothing.
    """

    __slots__ = ("inner", "recall", "children")

    def __init__(self, inner: Any, recall: tuple[tuple[str, ...], ...]):
        self.inner, self.recall = inner, recall
        self.children: dict[int, Node] = {}

    def __deepcopy__(self, memo: dict) -> Node:
        return self


def _observed(single: SingleGame, inner: Any, before: tuple[tuple[str, ...], ...]
              ) -> tuple[tuple[str, ...], ...]:
    return tuple((*seen, observation_string(single, inner, seat))
                 for seat, seen in enumerate(before))


class BluffsimState(pyspiel.State):
    """A state: before the deal (chance), then a shared ``Node`` of the reference engine."""

    def __init__(self, game: BluffsimGame):
        super().__init__(game)
        self.tree = game.tree
        self.single = game.single
        self.deals, self.seed = game.deals, game.seed
        self.node: Node | None = None

    @property
    def inner(self) -> Any:
        """The reference-engine state (``None`` before the deal); never mutate it."""
        return None if self.node is None else self.node.inner

    @property
    def recall(self) -> tuple[tuple[str, ...], ...]:
        """Per seat, the observation strings after every event so far."""
        return () if self.node is None else self.node.recall

    def current_player(self) -> int:
        """Chance before the deal, the seat to move, or terminal."""
        if self.node is None:
            return pyspiel.PlayerId.CHANCE
        if self.node.inner.done:
            return pyspiel.PlayerId.TERMINAL
        return int(self.node.inner.current_player)

    def _legal_actions(self, player: int) -> list[int]:
        return self.single.legal_actions(self.node.inner)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Every deal, equally likely."""
        return [(i, 1.0 / self.deals) for i in range(self.deals)]

    def _apply_action(self, action: int) -> None:
        action = int(action)
        cache = self.tree.enabled
        known = (self.tree.deal_nodes if self.node is None else self.node.children).get(action)
        if known is not None:
            self.node = known
            return
        if self.node is None:
            inner = self.single.new_state(self.seed + action)
            node = Node(inner, _observed(self.single, inner, ((),) * self.single.num_players))
            if cache:
                self.tree.deal_nodes[action] = node
        else:
            inner = self.single.clone(self.node.inner)
            self.single.apply(inner, action)
            node = Node(inner, _observed(self.single, inner, self.node.recall))
            if cache:
                self.node.children[action] = node
        self.node = node

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action} (seed {self.seed + action})"
        return self.single.action_names[action]

    def is_terminal(self) -> bool:
        """The game is over (by its rules or its safety cap)."""
        return self.node is not None and self.node.inner.done

    def returns(self) -> list[float]:
        """Placement rewards at the end, zeros before."""
        if self.node is None:
            return [0.0] * self.single.num_players
        return [float(r) for r in self.single.rewards(self.node.inner)]

    def __str__(self) -> str:
        if self.node is None:
            return "(before the deal)"
        return " | ".join(" ".join(h) for h in self.node.inner.hands)


def observation_string(single: SingleGame, inner: Any, seat: int) -> str:
    """The seat's observation as text: the tensor's non-zero entries (index:value)."""
    x = single.tensor(inner, seat)
    nz = np.flatnonzero(x)
    return " ".join(f"{i}:{x[i]:g}" for i in nz)


class BluffsimObserver:
    """OpenSpiel PyObserver: ``tensor`` / ``dict`` hold the seat's flat observation."""

    def __init__(self, single: SingleGame, perfect_recall: bool, params: Any = None):
        if params:
            raise ValueError(f"observation parameters not supported; got {params}")
        self.single = single
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(single.observation_size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: BluffsimState, player: int) -> None:
        """Fill ``tensor`` with ``player``'s observation (zeros before the deal)."""
        if state.inner is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = self.single.tensor(state.inner, player)

    def string_from(self, state: BluffsimState, player: int) -> str:
        """The observation string, or the perfect-recall history of them."""
        if state.inner is None:
            return ""
        if self.perfect_recall:
            return f"p{player} " + " / ".join(state.recall[player])
        return observation_string(self.single, state.inner, player)


def _game_class(game_id: str) -> type[BluffsimGame]:
    """A ``BluffsimGame`` subclass fixed to one game id (OpenSpiel registers classes)."""

    def __init__(self: BluffsimGame, params: dict[str, Any] | None = None) -> None:
        BluffsimGame.__init__(self, params, game_id=game_id)

    return type(f"Bluffsim{game_id.capitalize()}Game", (BluffsimGame,), {"__init__": __init__})


GAME_CLASSES = {game_id: _game_class(game_id) for game_id in bluffsim.list_games()}


def _register() -> None:
    for game_id, cls in GAME_CLASSES.items():
        if short_name(game_id) not in pyspiel.registered_names():
            pyspiel.register_game(_game_type(game_id), cls)


_register()
