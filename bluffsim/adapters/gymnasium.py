"""Gymnasium environments on the fast batched engine: one learner seat, the other seats played by agents.

    from bluffsim.adapters.gymnasium import vector_env
    venv = vector_env("qdv", 256, seat="rotate", opponents=("heuristic", "counting", "random"))
    obs, info = venv.reset(seed=7)                 # obs float32[256, D]
    mask = info["action_mask"]                     # bool[256, A]
    obs, reward, terminated, truncated, info = venv.step(actions)

* **Games.** ``N`` games run side by side on ``bluffsim.make(game_id, num_players, **rules_options)``
  (only its public API: ``init``, ``reset_games``, ``step``, ``observe``, ``observation_tensor``,
  ``legal_action_mask``, ``placements``).  Between two learner decisions the other seats are
  played by ``opponents`` until it is the learner's turn again or the game is over.
* **Seats.** ``num_players`` defaults to ``len(opponents) + 1`` for a list of opponents; a single
  opponent (name, agent or callable) fills every other seat of the game's default player count
  (``bluffsim.spec(game_id).players``: 4 for every game today) unless ``num_players`` is given.
  The learner sits at ``seat`` (fixed) or, with ``seat="rotate"``, at seat ``j % P`` in game
  ``j`` (below); ``opponents[k]`` sits ``k + 1`` seats clockwise of the learner.
* **Opponents** are agent names (``agents.make(name, game)``), ``Agent`` objects, or callables
  ``f(x float32[B, D], legal_mask bool[B, A], rng AgentRNG) -> int[B]`` on the flat tensor, so a
  frozen copy of the learner's own policy can play (self-play).  Agents draw from
  ``AgentRNG(game seed, seat, decision index)`` exactly as in ``bluffsim run``.
* **Observations** are the learner's flat tensor ``float32[N, D]`` (the game's ``tensor_layout``);
  the legal mask is ``info["action_mask"]`` (bool[N, A]); ``dict_obs=True`` gives instead a Dict
  observation ``{"observation", "action_mask" (int8)}``.
* **Rewards** arrive only on the step that ends a game, from the final placements ``place`` (1 =
  best): ``reward="zero_sum"`` (default) gives seat ``i`` ``sum_j sign(place_j - place_i) / (P - 1)``,
  in [-1, 1] and summing to zero over the seats (as ``bluffsim.adapters.single``);
  ``reward="win"`` gives 1.0 for a (shared) first place, else 0.0.  ``terminated`` = the game
  ended by its rules; ``truncated`` = it hit the engine's safety cap.
* **Leaving early** (``end_when_out=True``; games whose spec has ``settled``, e.g. qdv and veru):
  the learner's episode ends (``terminated``) on the step at which its final place becomes fixed
  while the game goes on —
  qdv: its tokens hit 0 (everyone with tokens will rank above it, the seats out before it below,
  seats out at the same event share its place); veru: it went out with its place.  The reward is
  then exactly the placement reward of the whole game (the rest cannot change it; a test plays the
  games to the end), ``final_info["placement"]`` its settled place, and the slot deals the next
  game at once instead of playing the others' tail.  Off by default: episodes are whole games.
* **Shaping** (``shaping=c``; games whose spec has a ``potential``, e.g. qdv): every learner step
  also earns ``c`` times the change of a potential, the learner's share of the tokens in play
  (``tokens[learner] / sum(tokens)``) between its decision and the next one (or the end: 1 for
  the winner, 0 once out).
  Over an episode this adds ``c * (final share - share at the first decision)``, a credit for
  tokens kept that points the same way as the placement; ``0.0`` (default) leaves the placement
  reward alone.  Evaluations (``bluffsim run``) always score by placements.
* **Autoreset: SAME_STEP** (``metadata["autoreset_mode"]``).  On the step that ends game ``i`` the
  returned reward / terminated / truncated belong to that game, its last observation is in
  ``info["final_obs"][i]`` (flagged by ``info["_final_obs"][i]``; the engine's tensor of the
  finished game, which has no player to move; zeros in the rows not flagged) with
  ``info["final_info"]`` (``placement`` of the learner, ``_placement`` flags), and ``obs[i]`` /
  ``info["action_mask"][i]`` are already the first learner decision of the next game.  So every
  action sent is a real decision.
* **Seeding.** ``reset(seed=s)`` plays the games ``0, 1, 2, ...`` of seed ``s`` in the order they are
  dealt (slots ``0..N-1`` at reset, then finished slots in index order): game ``j`` has bluffsim
  seed ``rng.words(s, Stream.SCHEDULE, j)``, the seed of game ``j`` of ``bluffsim run`` with
  ``seed = s`` (without duplicate deals).  ``reset()`` without a seed continues that sequence
  (first call: ``s`` from the env's ``np_random``).  A game that ends before the learner's first
  decision (possible only through elimination by others) is skipped; the next game is dealt.
  ``info["game_seed"]`` holds the seed of each slot's game, ``info["seat"]`` the learner's seat.
  ``deals=n`` (default 0: every deal) plays only game seeds ``0..n-1``, that seed modulo ``n``:
  the deals of an OpenSpiel game of ``bluffsim.adapters.openspiel`` with ``deals=n``, so that a
  response trained here can be scored against the exact best response there.  The opponents
  then still draw from streams keyed by the game's own seed before the modulo (as OpenSpiel's
  agents draw independently of the deal: otherwise ``random`` would repeat its moves in every
  deal), so they play through Python, not the fused loop, which keys them by the deal's seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

import bluffsim
from bluffsim import api
from bluffsim import rng as brng
from bluffsim.api import IllegalActionError, State
from bluffsim.rng import AgentRNG

Opponent = Any  # an agent name, an ``agents.Agent`` or a callable on the flat tensor
REWARDS = api.REWARD_KINDS


def placement_rewards(placements: np.ndarray, seats: np.ndarray, kind: str = "zero_sum") -> np.ndarray:
    """float32[B]: the reward of ``seats`` in finished games with ``placements`` int[B, P] (module doc)."""
    rewards = api.placement_rewards(placements, kind)[np.arange(placements.shape[0]), seats]
    return rewards.astype(np.float32)


def put(state: State, idx: np.ndarray, sub: State) -> None:
    """Write sub-batch ``sub`` (from ``state.take(idx)``) back into rows ``idx`` of ``state``."""
    if isinstance(getattr(state, "data", None), np.ndarray) and isinstance(getattr(state, "hot", None),
                                                                          np.ndarray):
        state.data[idx] = sub.data  # a compiled engine's state: its fields are views of two records
        state.hot[idx] = sub.hot
        return
    for f in fields(state):
        v = getattr(state, f.name)
        if isinstance(v, np.ndarray):
            v[idx] = getattr(sub, f.name)


def __getattr__(name: str) -> Any:
    """``SETTLED`` and ``POTENTIALS``: per game id, its spec's ``settled`` (used by
    ``end_when_out``) and ``potential`` (used by ``shaping``), for the games that declare one
    (``bluffsim.games.spec``); built on use, so importing this module imports no game."""
    if name in ("SETTLED", "POTENTIALS"):
        attr = "settled" if name == "SETTLED" else "potential"
        return {g: getattr(bluffsim.spec(g), attr) for g in bluffsim.list_games()
                if getattr(bluffsim.spec(g), attr) is not None}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def score_placements(score: np.ndarray) -> np.ndarray:
    """int[n, P] placements from scores (1 + number of seats with a higher score)."""
    return 1 + (score[:, None, :] > score[:, :, None]).sum(axis=2)


class _Opponent:
    """One opponent: an ``Agent`` (reads the structured observation) or a tensor callable."""

    def __init__(self, spec: Opponent, game: bluffsim.Game):
        import agents

        if isinstance(spec, str):
            spec = agents.make(spec, game)
        self.spec = spec
        self.is_agent = hasattr(spec, "act")
        if not self.is_agent and not callable(spec):
            raise TypeError(f"opponent {spec!r}: give an agent name, an Agent or a callable")
        self.needs_obs = self.is_agent and agents.Traits.of(spec.traits).uses_observation

    def act(self, obs: dict[str, np.ndarray] | None, x: np.ndarray | None, mask: np.ndarray,
            rng: AgentRNG) -> np.ndarray:
        """Actions for a sub-batch."""
        if self.is_agent:
            return np.asarray(self.spec.act(obs, mask, rng), dtype=np.int64)
        return np.asarray(self.spec(x, mask, rng), dtype=np.int64)


class BluffsimVectorEnv(VectorEnv):
    """``N`` bluffsim games on the batched engine with one learner seat each (module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, game_id: str, num_envs: int, seat: int | str = 0,
                 opponents: Opponent | Sequence[Opponent] = "random", num_players: int | None = None,
                 reward: str = "zero_sum", dict_obs: bool = False, autoreset: bool = True,
                 end_when_out: bool = False, shaping: float = 0.0, use_fused: bool = True,
                 deals: int = 0, **rules_options: Any):
        if isinstance(opponents, str) or not isinstance(opponents, Sequence):
            players = bluffsim.spec(game_id).players[2] if num_players is None else int(num_players)
            opponents = [opponents] * (players - 1)
        players = len(opponents) + 1 if num_players is None else int(num_players)
        if len(opponents) != players - 1:
            raise ValueError(f"{players} players need {players - 1} opponents; got {len(opponents)}")
        if reward not in REWARDS:
            raise ValueError(f"reward {reward!r}; allowed: {', '.join(REWARDS)}")
        if seat != "rotate" and not (isinstance(seat, int | np.integer) and 0 <= seat < players):
            raise ValueError(f"seat {seat!r}: give 0..{players - 1} or 'rotate'")
        spec = bluffsim.spec(game_id)
        if end_when_out and spec.settled is None:
            raise ValueError(f"end_when_out: {game_id} has no seat that leaves before the end; "
                             f"games with it: {', '.join(__getattr__('SETTLED'))}")
        if shaping and spec.potential is None:
            raise ValueError(f"shaping: no potential for {game_id}; games with one: "
                             f"{', '.join(__getattr__('POTENTIALS'))}")
        if not isinstance(deals, int | np.integer) or deals < 0:
            raise ValueError(f"deals {deals!r}: give 0 (every deal) or a number of deals >= 1")
        self.deals = int(deals)
        # the fused loop keys the opponents' draws by the game seed, which repeats with ``deals``
        use_fused = use_fused and not self.deals
        self._settled_fn, self._potential_fn = spec.settled, spec.potential
        self.end_when_out, self.shaping = bool(end_when_out), float(shaping)
        self.game = bluffsim.make(game_id, players, **rules_options)
        self.game_id, self.num_players = game_id, players
        self.num_envs = int(num_envs)
        self.seat_mode, self.reward_kind, self.dict_obs = seat, reward, dict_obs
        self.autoreset = autoreset
        self.opponents = [_Opponent(o, self.game) for o in opponents]
        self.metadata = {**self.metadata, "name": f"bluffsim_{game_id}_{players}p"}
        self.render_mode = None
        a = self.game.num_actions
        probe = self.game.init(np.zeros(1, np.uint64))
        d = int(self.game.observation_tensor(probe).shape[1])
        self.obs_size, self.num_actions = d, a
        box = spaces.Box(-np.inf, np.inf, (d,), np.float32)
        self.single_observation_space = (
            spaces.Dict({"observation": box, "action_mask": spaces.Box(0, 1, (a,), np.int8)})
            if dict_obs else box)
        self.single_action_space = spaces.Discrete(a)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space,
                                                              self.num_envs)
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, self.num_envs)
        self.state: State | None = None
        self.base_seed = 0
        self.next_game = 0
        self.game_seeds = np.zeros(self.num_envs, np.uint64)
        self.agent_seeds = np.zeros(self.num_envs, np.uint64)   # the opponents' draws' key
        self.game_index = np.zeros(self.num_envs, np.int64)
        self.learner = np.zeros(self.num_envs, np.int64)
        self.who = np.zeros((self.num_envs, players), np.int64)  # opponent index per seat, -1 learner
        self.phi = np.zeros(self.num_envs, np.float32)  # shaping potential at the learner's decision
        self.use_fused = use_fused
        self._fused: Any = None       # the opponents' compiled policies, learner EXTERNAL
        self._fused_key: tuple = ()   # the mixtures' versions it was built for
        self._rows = np.zeros((self.num_envs, players), np.int64)  # fused member per seat
        self._pending = np.full(self.num_envs, -1, np.int64)       # the learner's actions

    # ------------------------------------------------------------------ dealing
    def _assign(self, rows: np.ndarray) -> np.ndarray:
        """Give ``rows`` the next games of the sequence: seeds, learner seat, opponent seats."""
        j = self.next_game + np.arange(rows.size, dtype=np.int64)
        self.next_game += rows.size
        words = brng.words(np.uint64(self.base_seed), brng.Stream.SCHEDULE, j.astype(np.uint64), 0)
        seeds = words % np.uint64(self.deals) if self.deals else words
        self.game_index[rows], self.game_seeds[rows], self.agent_seeds[rows] = j, seeds, words
        p = self.num_players
        learner = j % p if self.seat_mode == "rotate" else np.full(rows.size, int(self.seat_mode))
        self.learner[rows] = learner
        rel = (np.arange(p)[None, :] - learner[:, None]) % p       # seats clockwise of the learner
        self.who[rows] = rel - 1                                    # learner -> -1
        if self._fused is not None:
            self._rows[rows] = self._member_rows(rows)
        return seeds

    def _deal(self, rows: np.ndarray) -> None:
        """Start new games in ``rows`` and play the opponents up to the learner's first decision."""
        while rows.size:
            seeds = self._assign(rows)
            if self.state is None:
                self.state = self.game.init(seeds)
            else:
                self.game.reset_games(self.state, rows, seeds)
            self._play_opponents()
            rows = rows[self._over()[rows]]
        if self.shaping:
            every = np.arange(self.num_envs)
            self.phi[:] = self._potential_fn(self.state, every, self.learner)

    def _play_opponents(self) -> None:
        """Play every game whose player to move is not the learner until all wait for the learner
        (first the learner's ``_pending`` actions, on the fused path)."""
        if self._fused_ready():
            self._play_fused()
            return
        st = self.state
        while True:
            live = ~self._over()
            turn = live & (st.current_player.astype(np.int64) != self.learner)
            if not turn.any():
                return
            self._step_games(np.flatnonzero(turn), self._opponent_actions)

    # ------------------------------------------------------------------ fused opponents
    def _members(self) -> list[tuple[Any, list[Any]]] | None:
        """Per opponent, (its mixture or None, the agents that may play it), or None when one is
        a tensor callable (no compiled policy can stand for it)."""
        out = []
        for opp in self.opponents:
            spec = opp.spec
            if not opp.is_agent:
                return None
            if hasattr(spec, "member_of") and hasattr(spec, "members"):
                out.append((spec, list(spec.members)))
            else:
                out.append((None, [spec]))
        return out

    def _fused_ready(self) -> bool:
        """Whether the opponents play in the fused loop (``agents.fused``), rebuilding it when a
        mixture changed (``MixedOpponent.set``): every opponent agent has a compiled policy."""
        if not self.use_fused:
            return False
        key = tuple(getattr(o.spec, "version", 0) for o in self.opponents)
        if self._fused is not None and key == self._fused_key:
            return True
        from agents.fused import fused_lineup

        members = self._members()
        self._fused, self._fused_key = None, key
        if members is None:
            return False
        flat = [agent for _, group in members for agent in group]
        lineup = fused_lineup(self.game, [*flat, None], external=True)
        if lineup is None or lineup.external[:-1].any():
            return False
        self._fused, self._fused_members = lineup, members
        if self.state is not None:
            self._rows[:] = self._member_rows(np.arange(self.num_envs))
        return True

    def _member_rows(self, rows: np.ndarray) -> np.ndarray:
        """int[n, P]: the fused lineup member in each seat of the games in ``rows`` (the learner:
        the last, ``EXTERNAL``; a mixture: its member for that game and seat)."""
        p = self.num_players
        who = self.who[rows]
        out = np.full((rows.size, p), len(self._fused.kinds) - 1, np.int64)
        base = 0
        for k, (mix, group) in enumerate(self._fused_members):
            for s in range(p):
                at = np.flatnonzero(who[:, s] == k)
                if not at.size:
                    continue
                pick = (mix.member_of(self.agent_seeds[rows[at]], np.full(at.size, s))
                        if mix is not None else 0)
                out[at, s] = base + pick
            base += len(group)
        return out

    def _play_fused(self) -> None:
        """The learner's pending actions and every opponent decision up to the learner's next
        turn, in compiled calls; with ``end_when_out`` one decision per game and call, so a game
        stops at the very decision that settles the learner's place (as the stepped path)."""
        st = self.state
        rows = self._rows
        budget = 1 if self.end_when_out else 1 << 30
        settled = self._over() & ~st.done if self.end_when_out else None
        if settled is not None and settled.any():
            rows = rows.copy()  # settled earlier (autoreset off): left as it is
            rows[settled] = len(self._fused.kinds) - 1
        while True:
            *_, bad = self._fused.play(st, rows, budget, round_stop=False, pending=self._pending)
            if bad >= 0:
                raise IllegalActionError(f"opponent chose an illegal action ({self.game_id}, "
                                         f"game seed {int(st.seed[bad])})")
            if not self.end_when_out:
                return
            over = self._over()
            if (over | (st.current_player.astype(np.int64) == self.learner)).all():
                return
            if (over & ~st.done).any():  # settled: no one plays there until it is dealt again
                rows = rows.copy()
                rows[over & ~st.done] = len(self._fused.kinds) - 1

    def _step_games(self, idx: np.ndarray, choose: Any) -> None:
        """Step games ``idx`` with ``choose(state, idx, local)``'s actions for them: on the whole
        batch (``-1`` elsewhere) when ``idx`` is every running game, else on a sub-batch taken out
        and put back (``local``: ``state`` holds only those games)."""
        st = self.state
        if idx.size == (~st.done).sum():           # nobody else runs: the full batch
            actions = np.full(self.num_envs, -1, np.int64)
            actions[idx] = choose(st, idx, False)
            self.game.step(st, actions)
        elif idx.size:
            sub = st.take(idx)
            self.game.step(sub, choose(sub, idx, True))
            put(st, idx, sub)

    def _settled(self) -> np.ndarray:
        """bool[N]: the learner's final place is fixed in a running game (``end_when_out``)."""
        st = self.state
        if not self.end_when_out:
            return np.zeros(self.num_envs, bool)
        settled, _ = self._settled_fn(st, np.arange(self.num_envs), self.learner)
        return settled & ~st.done

    def _over(self) -> np.ndarray:
        """bool[N]: the learner's episode is over (the game ended, or ``end_when_out`` and it is out)."""
        return self.state.done | self._settled()

    def _opponent_actions(self, st: State, idx: np.ndarray, local: bool = False) -> np.ndarray:
        """Actions of the opponents to move in games ``idx`` (rows of ``st``, or all of ``st``)."""
        rows = np.arange(idx.size) if local else idx
        cp = st.current_player[rows].astype(np.int64)
        who = self.who[idx, cp]
        need_obs = any(o.needs_obs for o in self.opponents)
        need_x = any(not o.is_agent for o in self.opponents)
        obs = self.game.observe(st) if need_obs else None
        x = self.game.observation_tensor(st) if need_x else None
        out = np.zeros(idx.size, np.int64)
        for k, opp in enumerate(self.opponents):
            pick = np.flatnonzero(who == k)
            if pick.size == 0:
                continue
            r = rows[pick]
            rng = AgentRNG(self.agent_seeds[idx[pick]], cp[pick], st.num_decisions[r])
            o = {key: v[r] for key, v in obs.items()} if obs is not None else None
            out[pick] = opp.act(o, None if x is None else x[r], st.legal_action_mask[r], rng)
        return out

    # ------------------------------------------------------------------ gym API
    def _obs(self) -> tuple[Any, dict[str, Any]]:
        st = self.state
        x = self.game.observation_tensor(st).astype(np.float32, copy=False)
        mask = st.legal_action_mask.copy()
        info = {"action_mask": mask, "seat": self.learner.copy(), "game_seed": self.game_seeds.copy(),
                "game_index": self.game_index.copy()}
        if self.dict_obs:
            return {"observation": x, "action_mask": mask.astype(np.int8)}, info
        return x, info

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        """Deal ``N`` new games: games ``0..N-1`` of ``seed``, or the next ones of the sequence."""
        super().reset(seed=seed)
        if seed is not None:
            self.base_seed, self.next_game = int(seed), 0
        elif self.state is None:
            self.base_seed = int(self.np_random.integers(0, 2**63))
        self.state = None
        self._deal(np.arange(self.num_envs))
        return self._obs()

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict]:
        """Apply the learner's actions (int[N]), play the opponents, autoreset finished games."""
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        st = self.state
        a = np.asarray(actions).astype(np.int64).reshape(self.num_envs)
        live = np.flatnonzero(~self._over())  # autoreset off: an episode over may still run
        if self._fused_ready():
            self._check_learner(a, live)
            self._pending[live] = a[live]
        else:
            self._step_games(live, lambda s, rows, local: a[rows])
        self._play_opponents()
        settled = self._settled()
        done = st.done | settled
        reward = np.zeros(self.num_envs, np.float32)
        ended = np.flatnonzero(done)
        placement = np.zeros(self.num_envs, np.int64)
        if ended.size:
            place = st.placements[ended].astype(np.int64)
            early = settled[ended]
            if early.any():  # out early: placements that order every seat against the learner
                _, score = self._settled_fn(st, ended[early], self.learner[ended[early]])
                place[early] = score_placements(score)
            reward[ended] = placement_rewards(place, self.learner[ended], self.reward_kind)
            placement[ended] = place[np.arange(ended.size), self.learner[ended]]
        if self.shaping:
            every = np.arange(self.num_envs)
            phi = self._potential_fn(st, every, self.learner)
            reward += self.shaping * (phi - self.phi)
            self.phi = phi
        terminated, truncated = st.terminated | settled, st.truncated & ~settled
        if ended.size and self.autoreset:
            final_x = np.zeros((self.num_envs, self.game.observation_size), np.float32)
            final_x[ended] = self.game.observation_tensor(st.take(ended))
            final_info = {"placement": placement, "_placement": done.copy(),
                          "game_seed": self.game_seeds.copy(), "seat": self.learner.copy()}
            self._deal(ended)
            obs, info = self._obs()
            info.update(final_obs=final_x, _final_obs=done, final_info=final_info, _final_info=done)
        else:
            obs, info = self._obs()
            if ended.size:
                info.update(placement=placement, _placement=done)
        return obs, reward, terminated, truncated, info

    def _check_learner(self, a: np.ndarray, live: np.ndarray) -> None:
        """``IllegalActionError`` (as ``step`` raises it) for an illegal learner action."""
        st = self.state
        ok = (a[live] >= 0) & (a[live] < self.num_actions)
        ok &= st.legal_action_mask[live, np.clip(a[live], 0, self.num_actions - 1)]
        if not ok.all():
            i = int(live[np.flatnonzero(~ok)[0]])
            raise IllegalActionError(self.game.describe_illegal(st, i, int(a[i])))

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release."""


def vector_env(game_id: str, num_envs: int, seat: int | str = 0,
               opponents: Opponent | Sequence[Opponent] = "random", **rules_options: Any
               ) -> BluffsimVectorEnv:
    """A ``gymnasium.vector.VectorEnv`` of ``num_envs`` games of ``game_id`` (module docstring).

    Keywords besides the rules options: ``num_players``, ``reward`` ("zero_sum" or "win"),
    ``dict_obs``, ``end_when_out`` (bool), ``shaping`` (float), ``deals`` (int).
    """
    return BluffsimVectorEnv(game_id, num_envs, seat=seat, opponents=opponents, **rules_options)


class BluffsimEnv(gym.Env):
    """One game as a ``gymnasium.Env`` (the vector env with ``N = 1`` and no autoreset).

    An action that is not legal ends the episode with the worst reward (-1 for "zero_sum",
    0 for "win") and ``info["illegal_action"] = True``; pass ``illegal="raise"`` to raise
    ``IllegalActionError`` instead.  Masks are in ``info["action_mask"]``.
    """

    metadata = {"render_modes": []}

    def __init__(self, game_id: str, seat: int | str = 0,
                 opponents: Opponent | Sequence[Opponent] = "random", illegal: str = "end",
                 **kwargs: Any):
        if illegal not in ("end", "raise"):
            raise ValueError(f"illegal {illegal!r}; allowed: 'end', 'raise'")
        self.venv = BluffsimVectorEnv(game_id, 1, seat=seat, opponents=opponents, autoreset=False,
                                      **kwargs)
        self.illegal = illegal
        self.observation_space = self.venv.single_observation_space
        self.action_space = self.venv.single_action_space
        self.metadata = {**self.metadata, "name": self.venv.metadata["name"]}
        self._over = False

    @staticmethod
    def _one(obs: Any) -> Any:
        return {k: v[0] for k, v in obs.items()} if isinstance(obs, dict) else obs[0]

    @staticmethod
    def _one_info(info: dict) -> dict:
        return {k: (v[0] if isinstance(v, np.ndarray) else v) for k, v in info.items()}

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        """Deal game 0 of ``seed`` (or the next game of the sequence)."""
        super().reset(seed=seed)
        if seed is None and self.venv.state is None:
            seed = int(self.np_random.integers(0, 2**63))
        obs, info = self.venv.reset(seed=seed)
        self._over = False
        return self._one(obs), self._one_info(info)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        """One learner decision; the opponents reply until the learner's next turn or the end."""
        if self._over:
            raise RuntimeError("the game is over: call reset()")
        st = self.venv.state
        a = int(action)
        if not (0 <= a < self.venv.num_actions and st.legal_action_mask[0, a]):
            if self.illegal == "raise":
                raise IllegalActionError(self.venv.game.describe_illegal(st, 0, a))
            self._over = True
            obs, info = self.venv._obs()
            info = {**self._one_info(info), "illegal_action": True}
            worst = -1.0 if self.venv.reward_kind == "zero_sum" else 0.0
            return self._one(obs), worst, True, False, info
        obs, r, term, trunc, info = self.venv.step(np.array([a]))
        self._over = bool(term[0] or trunc[0])
        return self._one(obs), float(r[0]), bool(term[0]), bool(trunc[0]), self._one_info(info)


def env(game_id: str, seat: int | str = 0, opponents: Opponent | Sequence[Opponent] = "random",
        **kwargs: Any) -> BluffsimEnv:
    """A single-game ``gymnasium.Env`` of ``game_id`` (see ``BluffsimEnv`` and the module docstring)."""
    return BluffsimEnv(game_id, seat=seat, opponents=opponents, **kwargs)


def _clock(cpu: bool) -> Any:
    import time

    return time.process_time if cpu else time.perf_counter


def throughput(game_id: str, num_envs: int, opponents: Opponent | Sequence[Opponent] = "random",
               num_players: int | None = None, seconds: float = 3.0, seed: int = 0,
               cpu: bool = False, **env_kw: Any) -> float:
    """Learner decisions per second of the vector env with uniformly random legal learner actions
    (per second of this process's CPU time if ``cpu``: comparable on a loaded machine);
    ``env_kw`` go to ``vector_env`` (e.g. ``end_when_out=True``)."""
    clock = _clock(cpu)
    venv = vector_env(game_id, num_envs, seat="rotate", opponents=opponents, num_players=num_players,
                      **env_kw)
    _, info = venv.reset(seed=seed)
    pick = np.random.default_rng(seed)
    venv.step((pick.random(info["action_mask"].shape) * info["action_mask"]).argmax(axis=1))  # warm up
    _, info = venv.reset(seed=seed)
    steps, t0 = 0, clock()
    while clock() - t0 < seconds:
        mask = info["action_mask"]
        _, _, _, _, info = venv.step((pick.random(mask.shape) * mask).argmax(axis=1))
        steps += num_envs
    return steps / (clock() - t0)


def aec_throughput(game_id: str, num_players: int, backend: str = "reference", seconds: float = 3.0,
                   seed: int = 0, cpu: bool = False) -> float:
    """Decisions per second of the PettingZoo AEC env, every seat uniformly random (per CPU second
    of this process if ``cpu``); one warm-up game (compilation, caches) is not counted."""
    from bluffsim.adapters.pettingzoo import env as aec_env

    clock = _clock(cpu)
    e = aec_env(game_id, num_players, backend=backend)
    pick = np.random.default_rng(seed)
    steps, t0, game = 0, None, 0
    while t0 is None or clock() - t0 < seconds:
        e.reset(seed=seed + game)
        game += 1
        for agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            e.step(None if term or trunc else int(pick.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 0 if term or trunc or t0 is None else 1
            del agent
        if t0 is None:
            t0 = clock()
    return steps / (clock() - t0)


if __name__ == "__main__":  # python -m bluffsim.adapters.gymnasium GAME [players] [envs] [--cpu]
    import sys

    per_cpu = "--cpu" in sys.argv
    argv = [a for a in sys.argv[1:] if a != "--cpu"]
    if not argv or argv[0] not in bluffsim.list_games():
        sys.exit("usage: python -m bluffsim.adapters.gymnasium GAME [players] [envs] [--cpu]; "
                 f"GAME: {' | '.join(bluffsim.list_games())}")
    gid = argv[0]
    players = int(argv[1]) if len(argv) > 1 else 2
    n = int(argv[2]) if len(argv) > 2 else 1024
    unit = "per CPU second of this process" if per_cpu else "per wall second"
    print(f"{gid} {players}p, decisions {unit} (uniformly random decisions):")
    for backend in ("reference", "fast"):
        print(f"  PettingZoo AEC, {backend} backend, all seats: "
              f"{aec_throughput(gid, players, backend, cpu=per_cpu):,.0f}")
    import agents

    opponents = [a for a in ("random", "heuristic", "counting") if gid in agents.REGISTRY.get(a, {})]
    for opp in opponents:
        print(f"  vector env, {n} games, learner vs {opp}: "
              f"{throughput(gid, n, opp, num_players=players, cpu=per_cpu):,.0f}")
    if bluffsim.spec(gid).settled is not None and players > 2:
        for opp in opponents:
            print(f"  vector env, {n} games, learner vs {opp}, end_when_out: "
                  f"{throughput(gid, n, opp, num_players=players, cpu=per_cpu, end_when_out=True):,.0f}")
