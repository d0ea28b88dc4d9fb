"""One game at a time on the scalar reference engine: what the adapters and human play share.

The reference engine is the readable oracle the vectorised engine is tested
against bit for bit, and for a single game it is the faster of the two (no
batch overhead); its states deep-copy cheaply, which OpenSpiel needs.

Rewards come from placements: a seat scores, against every other seat, +1 if
it placed better, -1 if worse and 0 for a shared place, divided by ``P - 1``.
So rewards lie in [-1, 1] and sum to zero (zero-sum, as OpenSpiel declares).
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

import bluffsim
from bluffsim.api import placement_rewards
from bluffsim.rng import AgentRNG


class SingleGame:
    """A game id plus rules, played one state at a time on the reference engine."""

    def __init__(self, game_id: str, num_players: int = 4, **options: Any):
        spec = bluffsim.spec(game_id)  # unknown ids raise RulesError
        self.game_id = game_id
        self.rules = spec.make_rules(num_players, **options)
        self.observe_module = spec.observation
        self.engine = spec.make_reference(self.rules)
        self.num_players = num_players
        self.action_names: tuple[str, ...] = self.rules.action_names
        self.num_actions = len(self.action_names)
        self.observation_size = int(self.observe_module.tensor_size(self.rules))
        self._vec: bluffsim.Game | None = None

    def __deepcopy__(self, memo: dict) -> SingleGame:
        # immutable configuration: states that hold it (OpenSpiel clones) share it
        return self

    def new_state(self, seed: int) -> Any:
        """A fresh game dealt from ``seed``."""
        return self.engine.new_game(int(seed))

    @staticmethod
    def clone(state: Any) -> Any:
        """An independent copy of ``state``."""
        return copy.deepcopy(state)

    def legal_actions(self, state: Any) -> list[int]:
        """Legal action ids of the player to move (empty once the game is over)."""
        return [] if state.done else sorted(self.engine.legal_actions(state))

    def apply(self, state: Any, action: int | str) -> None:
        """Apply one legal action (id or name) in place; illegal ones raise ``IllegalActionError``."""
        self.engine.apply(state, action)

    def observation(self, state: Any, seat: int) -> dict[str, np.ndarray]:
        """The structured information set of ``seat`` (no batch axis)."""
        return self.observe_module.observation_fields(self.rules, state, seat)

    def tensor(self, state: Any, seat: int) -> np.ndarray:
        """float32[D]: the flat observation tensor of ``seat`` (``observe.tensor_layout``)."""
        obs = {k: np.asarray(v)[None] for k, v in self.observation(state, seat).items()}
        return self.observe_module.to_tensor(self.rules, obs)[0]

    def rewards(self, state: Any) -> np.ndarray:
        """float64[P]: placement rewards (module docstring); zeros while the game runs."""
        if not state.done:
            return np.zeros(self.num_players)
        return placement_rewards(np.asarray([state.placements]))[0]

    def vectorised(self) -> bluffsim.Game:
        """The vectorised engine of the same rules (agents read its observation format)."""
        if self._vec is None:
            self._vec = bluffsim.spec(self.game_id).engine(self.rules)
        return self._vec

    def agent_action(self, agent: Any, state: Any, seed: int) -> int:
        """The action a batched agent picks in this state (a batch of one)."""
        seat = state.current_player
        obs = {k: np.asarray(v)[None] for k, v in self.observation(state, seat).items()}
        mask = np.zeros((1, self.num_actions), bool)
        mask[0, self.legal_actions(state)] = True
        rng = AgentRNG(np.array([seed]), np.array([seat]), np.array([state.num_decisions]))
        return int(agent.act(obs, mask, rng)[0])
