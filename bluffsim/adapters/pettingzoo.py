"""PettingZoo AEC environments for every bluffsim game (optional extra ``adapters``).

    from bluffsim.adapters.pettingzoo import env
    e = env("qdv", num_players=4, render_mode="ansi", starting_tokens=3)
    e.reset(seed=7)
    for agent in e.agent_iter():
        obs, reward, termination, truncation, info = e.last()
        action = None if termination or truncation else \
            e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Agents are ``player_0 … player_{P-1}`` (seat order).  Each observation is a dict:
``observation`` (float32[D], the game's flat tensor from that seat, see its
``observe.tensor_layout``) and ``action_mask`` (int8[A], all zeros for a seat not
to move).  Rewards arrive when the game ends, from placements
(``bluffsim.adapters.single``); a game cut by its safety cap is a truncation.
``reset(seed=s)`` deals game ``s`` exactly as every other bluffsim entry point
does; without a seed the next game comes from a generator seeded at the first reset.
The game runs on the reference engine (bit-identical to the vectorised one) by
default; ``backend="fast"`` runs it on the batched engine (``bluffsim.make``) as a
batch of one game, through its public API only.  The fast backend gives the seat
to move its fresh tensor; a seat not to move observes the tensor of its own last
decision (zeros before its first): the batched engine observes only the player to
move.  Deals, masks, actions and rewards are the same on both backends.  Batched
multi-agent training (many games per call, self-play through callables) is
``bluffsim.adapters.gymnasium.vector_env``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

import bluffsim
from bluffsim.adapters.single import SingleGame
from bluffsim.api import placement_rewards

BACKENDS = ("reference", "fast")


class BluffsimAECEnv(AECEnv):
    """One bluffsim game as a PettingZoo AEC environment (module docstring)."""

    metadata = {"render_modes": ["ansi"], "name": "bluffsim_v0", "is_parallelizable": False}

    def __init__(self, game_id: str, num_players: int = 4, render_mode: str | None = None,
                 backend: str = "reference", **options: Any):
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode {render_mode!r} not supported; allowed: None, 'ansi'")
        if backend not in BACKENDS:
            raise ValueError(f"backend {backend!r} not supported; allowed: {', '.join(BACKENDS)}")
        self.game = SingleGame(game_id, num_players, **options)
        self.backend = backend
        self.fast = bluffsim.make(game_id, num_players, **options) if backend == "fast" else None
        self._seen = np.zeros((num_players, self.game.observation_size), np.float32)
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"bluffsim_{game_id}_v0"}
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        obs_space = spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (self.game.observation_size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.game.num_actions,), np.int8),
        })
        act_space = spaces.Discrete(self.game.num_actions)
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, act_space)
        self._seeds: np.random.Generator | None = None
        self.state: Any = None
        self.history: list[tuple[str, str]] = []

    def observation_space(self, agent: str) -> spaces.Space:
        """The (shared) observation space."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """The (shared) action space: every action id of the game."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game: game ``seed`` if given, else the next seed of this env's generator."""
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
            game_seed = int(seed)
        else:
            if self._seeds is None:
                self._seeds = np.random.default_rng()
            game_seed = int(self._seeds.integers(0, 2**63))
        if self.fast is not None:
            self.state = self.fast.init(np.array([game_seed], np.uint64))
            self._seen[:] = 0.0
            self._remember()
        else:
            self.state = self.game.new_state(game_seed)
        self.history = []
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self._current()]

    def _current(self) -> int:
        """Seat to move."""
        return int(self.state.current_player[0] if self.fast is not None else self.state.current_player)

    def _done(self) -> bool:
        """The game is over."""
        return bool(self.state.done[0] if self.fast is not None else self.state.done)

    def _remember(self) -> None:
        """Fast backend: store the tensor of the seat to move (its information set now)."""
        if not self._done():
            self._seen[self._current()] = self.fast.observation_tensor(self.state)[0]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The flat observation of ``agent``'s seat and its legal-action mask."""
        seat = self.possible_agents.index(agent)
        mask = np.zeros(self.game.num_actions, np.int8)
        mine = not self._done() and seat == self._current()
        if self.fast is not None:
            if mine:
                mask[:] = self.state.legal_action_mask[0]
            return {"observation": self._seen[seat].copy(), "action_mask": mask}
        if mine:
            mask[self.game.legal_actions(self.state)] = 1
        return {"observation": self.game.tensor(self.state, seat), "action_mask": mask}

    def _rewards(self) -> np.ndarray:
        """Placement rewards of the finished game (``bluffsim.adapters.single``)."""
        if self.fast is None:
            return self.game.rewards(self.state)
        return placement_rewards(self.state.placements[:1])[0]

    def step(self, action: int | None) -> None:
        """Apply the selected agent's action; a finished agent must step ``None``."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.history.append((agent, self.game.action_names[int(action)]))
        if self.fast is not None:
            self.fast.step(self.state, np.array([int(action)], np.int64))
            self._remember()
        else:
            self.game.apply(self.state, int(action))
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self._done():
            term = bool(np.asarray(self.state.terminated).reshape(-1)[0])
            trunc = bool(np.asarray(self.state.truncated).reshape(-1)[0])
            place = np.asarray(self.state.placements).reshape(-1)
            for a, r in zip(self.agents, self._rewards(), strict=True):
                self.rewards[a] = float(r)
                self.terminations[a] = term
                self.truncations[a] = trunc
            self.infos = {a: {"placement": int(place[i])} for i, a in enumerate(self.agents)}
        else:
            self.agent_selection = self.possible_agents[self._current()]
        self._accumulate_rewards()

    def render(self) -> str | None:
        """``ansi``: the last actions and every seat's cards (a spectator's full view)."""
        if self.render_mode is None:
            return None
        decisions = int(np.asarray(self.state.num_decisions).reshape(-1)[0])
        lines = [f"{self.game.game_id}, decision {decisions}"]
        lines += [f"  {who}: {what}" for who, what in self.history[-self.num_agents:]]
        if self.fast is None:
            for seat, hand in enumerate(self.state.hands):
                lines.append(f"  player_{seat}: {' '.join(hand) or '-'}")
        if self._done():
            lines.append(f"  placements: {np.asarray(self.state.placements).reshape(-1).tolist()}")
        return "\n".join(lines)

    def close(self) -> None:
        """Nothing to release."""


def env(game_id: str, num_players: int = 4, render_mode: str | None = None,
        backend: str = "reference", **options: Any) -> BluffsimAECEnv:
    """A PettingZoo AEC env of ``game_id`` (options as ``bluffsim.make``; ``backend``: module doc)."""
    return BluffsimAECEnv(game_id, num_players, render_mode=render_mode, backend=backend, **options)
