"""The game contract shared by every bluffsim game: base classes, state fields and errors.

A game is a batched, vectorised environment::

    game = bluffsim.make("qdv", num_players=4)
    state = game.init(seeds)            # one game per seed
    state = game.step(state, actions)   # int[B], -1 (ignored) for finished games
    obs = game.observe(state)           # current player's information set
    x = game.observation_tensor(state)  # float32[B, D]

Shared state fields (batch-first, B games, P seats, A actions):

| field               | dtype / shape   | meaning                                         |
|---------------------|-----------------|-------------------------------------------------|
| `current_player`    | int8[B]         | seat to decide; -1 once the game is over        |
| `legal_action_mask` | bool[B, A]      | legal actions of the current player             |
| `terminated`        | bool[B]         | the game ended by its rules                     |
| `truncated`         | bool[B]         | the game hit its safety cap                     |
| `placements`        | int8[B, P]      | 1 = best, ties share; 0 until the game is over  |
| `num_decisions`     | int32[B]        | decisions applied so far                        |
| `num_rounds`        | int32[B]        | rounds completed so far                         |
| `round_over`        | bool[B]         | a round ended during the last step              |
| `seed`              | uint64[B]       | the game's seed (all its randomness derives from it) |

The fast-engine contract is ``FastEngine`` (a typed Protocol): every game's
fast engine satisfies it, and the conformance suite (``tests/test_conformance.py``)
takes any engine that does.  ``Game.step`` is the one template step: it checks
the state and the action array, then runs the game's ``transition`` — which, per
game, checks the action against the legal mask, counts the decision, applies
the game's rules, applies the safety cap and computes the next legal mask, in
that order — and raises for the first illegal action.  Rewards come from
placements (``placement_rewards``), the same in every adapter.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np


class BluffsimError(Exception):
    """Base class of the errors bluffsim raises for bad input."""


class RulesError(BluffsimError, ValueError):
    """A rules option is unknown or out of range; the message names it and what is allowed."""


class IllegalActionError(BluffsimError, ValueError):
    """An action is not legal in the state it was applied to."""


class StateMismatchError(BluffsimError, TypeError):
    """A state was passed to a game that did not make it (another game, player count or rules)."""


class SeedError(BluffsimError, ValueError):
    """Seeds are not a 1-D array of non-negative integers."""


@dataclass
class State:
    """Fields every game state has; games subclass it and add their own (see module table)."""

    current_player: np.ndarray
    legal_action_mask: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    placements: np.ndarray
    num_decisions: np.ndarray
    num_rounds: np.ndarray

    # every game also has (declared per game, after its own fields, as dataclass order needs):
    #   seed: uint64[B], phase: int8[B], round_over: bool[B]
    seed: ClassVar[Any]
    phase: ClassVar[Any]
    round_over: ClassVar[Any]

    @property
    def done(self) -> np.ndarray:
        """bool[B]: the game is over (terminated or truncated)."""
        return self.terminated | self.truncated

    @property
    def batch_size(self) -> int:
        """Number of games in the batch."""
        return int(self.current_player.shape[0])

    def copy(self) -> State:
        """A deep snapshot: later steps on ``self`` do not change it."""
        return copy.deepcopy(self)

    def take(self, index: np.ndarray | Sequence[int] | slice) -> State:
        """The sub-batch at ``index`` (a copy), e.g. ``state.take([3])`` for game 3 alone."""
        kwargs = {}
        for f in fields(self):
            v = getattr(self, f.name)
            kwargs[f.name] = v[index].copy() if isinstance(v, np.ndarray) else v
        return type(self)(**kwargs)

    def nbytes(self) -> int:
        """Bytes held by the state's arrays (all games)."""
        return sum(v.nbytes for v in vars(self).values() if isinstance(v, np.ndarray))


REWARD_KINDS = ("zero_sum", "win")


def placement_rewards(placements: np.ndarray, kind: str = "zero_sum") -> np.ndarray:
    """float64[B, P] rewards of finished games from their placements int[B, P] (1 = best).

    ``zero_sum``: seat ``i`` scores ``sum_j sign(place_j - place_i) / (P - 1)`` — +1 per
    seat it beat, -1 per seat that beat it, 0 for a shared place — so rewards lie in
    [-1, 1] and sum to zero.  ``win``: 1.0 for a (shared) first place, else 0.0.
    """
    place = np.asarray(placements).astype(np.int64)
    if kind == "win":
        return (place == 1).astype(np.float64)
    if kind != "zero_sum":
        raise ValueError(f"unknown reward kind {kind!r}; allowed: {', '.join(REWARD_KINDS)}")
    beats = np.sign(place[:, None, :] - place[:, :, None]).sum(axis=2)
    return beats / (place.shape[1] - 1)


def rules_from_options(cls: Any, game_id: str, num_players: int, options: dict[str, Any]) -> Any:
    """Build a game's frozen rules dataclass from keyword options (TOML lists become tuples).

    Unknown option names raise ``RulesError`` listing the allowed ones; the
    dataclass validates the values.
    """
    known = {f.name for f in fields(cls)} - {"num_players"}   # given apart, never an option
    clean = {}
    for name, value in options.items():
        if name not in known:
            raise RulesError(f"unknown {game_id} option {name!r}; allowed: "
                             f"{', '.join(sorted(known))}")
        clean[name] = tuple(value) if isinstance(value, list) else value
    return cls(num_players=num_players, **clean)


def check_seeds(seeds: Any) -> np.ndarray:
    """Validate seeds: a 1-D array (or sequence) of non-negative integers; returns uint64[B]."""
    arr = np.asarray(seeds)
    if arr.ndim != 1:
        raise SeedError(f"seeds must be a 1-D integer array, one per game; got shape {arr.shape}")
    if arr.size == 0:
        raise SeedError("seeds must hold at least one seed; got an empty array")
    if not np.issubdtype(arr.dtype, np.integer):
        raise SeedError(f"seeds must be integers (e.g. np.arange(n)); got dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.signedinteger) and (arr < 0).any():
        raise SeedError("seeds must be non-negative integers; got a negative seed")
    return arr.astype(np.uint64)


class Game:
    """Base of the vectorised games: action naming, seed and action validation."""

    game_id: ClassVar[str] = ""
    state_type: ClassVar[type | None] = None   # the state class ``init`` returns
    rules: Any
    action_names: tuple[str, ...]

    @property
    def num_players(self) -> int:
        """Seats at the table."""
        return int(self.rules.num_players)

    @property
    def num_actions(self) -> int:
        """Size of the action space (length of ``action_names``)."""
        return len(self.action_names)

    def action_id(self, name: str) -> int:
        """Action id of an action name; raises ``KeyError`` listing valid names if unknown."""
        try:
            return self._action_index[name]
        except AttributeError:
            self._action_index = {n: i for i, n in enumerate(self.action_names)}
            return self.action_id(name)
        except KeyError:
            raise KeyError(
                f"unknown {self.game_id} action {name!r}; valid: {', '.join(self.action_names)}"
            ) from None

    def check_state(self, state: Any) -> None:
        """Raise ``StateMismatchError`` unless ``state`` has this game's state type and shapes."""
        expected = self.state_type
        problem = ""
        if not isinstance(state, State):
            problem = f"got a {type(state).__name__}, not a bluffsim state"
        elif expected is not None and not isinstance(state, expected):
            problem = f"got a {type(state).__name__}, expected a {expected.__name__}"
        elif state.legal_action_mask.ndim != 2 or state.legal_action_mask.shape[1] != self.num_actions:
            problem = (f"its action mask has {state.legal_action_mask.shape[-1]} actions, "
                       f"this game {self.num_actions}")
        elif state.placements.ndim != 2 or state.placements.shape[1] != self.num_players:
            problem = (f"it has {state.placements.shape[-1]} seats, this game "
                       f"{self.num_players}")
        if problem:
            raise StateMismatchError(f"{self.game_id} ({self.num_players} players): this state was "
                                     f"not made by this game ({problem}); step a state with the "
                                     "game whose init made it")

    def step(self, state: State, actions: Any) -> State:
        """Apply one decision per game, in place (the template step, module docstring);
        finished games ignore their action.  Returns ``state``."""
        self.check_state(state)
        a = self.action_array(state, actions)
        bad = self.transition(state, a)
        if bad >= 0:
            raise IllegalActionError(self.describe_illegal(state, bad, int(a[bad])))
        return state

    def action_array(self, state: State, actions: Any) -> np.ndarray:
        """``actions`` as int64[B]; anything else raises ``IllegalActionError`` (one line)."""
        a = np.asarray(actions)
        if a.shape != (state.batch_size,) or not np.issubdtype(a.dtype, np.integer):
            raise IllegalActionError(
                f"actions must be an integer array of shape ({state.batch_size},); "
                f"got {a.dtype} {a.shape}")
        return a.astype(np.int64, copy=False)

    def transition(self, state: State, actions: np.ndarray) -> int:
        """The game's part of ``step``: per live game, legality, decision count, rules, safety
        cap and legal mask; returns the first batch index whose action was illegal (nothing
        applied there or after it need be trusted), or -1."""
        raise NotImplementedError

    def rewards(self, state: State, kind: str = "zero_sum") -> np.ndarray:
        """float32[B, P] placement rewards (``placement_rewards``); zeros for running games."""
        return np.where(state.done[:, None], placement_rewards(state.placements, kind),
                        0.0).astype(np.float32)

    @staticmethod
    def copy_shared_fields(st: State, b: int, s: Any) -> None:
        """Copy the shared fields (and the phase) of a reference state ``s`` into row ``b``."""
        st.current_player[b] = s.current_player
        st.terminated[b], st.truncated[b] = s.terminated, s.truncated
        st.placements[b] = s.placements
        st.num_decisions[b], st.num_rounds[b] = s.num_decisions, s.num_rounds
        st.phase[b] = s.phase

    def describe_illegal(self, state: State, b: int, action: int) -> str:
        """One-line message for an illegal action at batch index ``b``."""
        name = self.action_names[action] if 0 <= action < self.num_actions else "out of range"
        legal = [self.action_names[i] for i in np.flatnonzero(state.legal_action_mask[b])]
        return (
            f"illegal {self.game_id} action {action} ({name}) at batch index {b} "
            f"for seat {int(state.current_player[b])}; legal: {', '.join(legal)}"
        )


@runtime_checkable
class FastEngine(Protocol):
    """The contract of a game's fast batched engine: what the runner, the adapters, the agents
    and the conformance suite rely on (module docstring).  ``Game`` implements the shared part."""

    game_id: str
    rules: Any
    action_names: tuple[str, ...]
    observation_size: int

    @property
    def num_players(self) -> int:
        """Seats at the table."""

    @property
    def num_actions(self) -> int:
        """Size of the action space."""

    def init(self, seeds: Any) -> State:
        """New games, one per seed (uint64[B]); the same seed always gives the same game."""

    def step(self, state: State, actions: Any) -> State:
        """Apply int[B] actions in place (finished games ignore theirs); illegal ones raise."""

    def reset_games(self, state: State, idx: np.ndarray, seeds: Any) -> None:
        """Restart games ``idx`` in place with ``seeds``: equal to ``init(seeds)`` for them."""

    def observe(self, state: State) -> dict[str, np.ndarray]:
        """The current player's information set, batch-first (the game's observation table)."""

    def observation_tensor(self, state: State) -> np.ndarray:
        """float32[B, observation_size]: the flat encoding of ``observe`` (``tensor_layout``)."""

    def final_score(self, state: State, idx: np.ndarray) -> np.ndarray:
        """int[len(idx), P]: the results' ``score`` column of finished games ``idx``."""

    def round_record(self, state: State, idx: np.ndarray) -> dict[str, np.ndarray]:
        """One ``rounds.parquet`` row per game of ``idx`` whose round just ended."""

    def rewards(self, state: State, kind: str = "zero_sum") -> np.ndarray:
        """float32[B, P] placement rewards of finished games, zeros for running ones."""

    def from_reference(self, states: list[Any]) -> State:
        """A batch holding exact copies of reference states (scenarios, differential tests)."""
