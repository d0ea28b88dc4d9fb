"""The games and player counts every conformance test runs over, and engine-agreement helpers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

import agents
import bluffsim
from bluffsim.rng import AgentRNG


@dataclass(frozen=True)
class Case:
    """One game at one table size (from its spec's ``test_tables``), with its reference module."""

    game_id: str
    num_players: int
    options: tuple[tuple[str, Any], ...] = ()
    tag: str = ""

    def __str__(self) -> str:
        return f"{self.game_id}-{self.num_players}p{'-' + self.tag if self.tag else ''}"

    def make(self, **options: Any) -> Any:
        return bluffsim.make(self.game_id, self.num_players, **{**dict(self.options), **options})

    @property
    def spec(self) -> Any:
        return bluffsim.spec(self.game_id)

    @property
    def reference(self) -> Any:
        return self.spec.reference


CASES = [Case(gid, players, options, tag) for gid in bluffsim.list_games()
         for players, options, tag in bluffsim.spec(gid).test_tables]
CASE_IDS = [str(c) for c in CASES]


def decision_steps(game: Any, st: Any, steps: int):  # noqa: ANN201
    """Yield ``(obs, mask, rng, live)`` at each of up to ``steps`` decisions of the batch ``st``
    — its observation, legal mask, the agents' counter-based stream and the games still
    running — until every game is over; the caller steps ``st`` itself."""
    for _ in range(steps):
        if st.done.all():
            return
        yield (game.observe(st), st.legal_action_mask,
               AgentRNG(st.seed, st.current_player, st.num_decisions), ~st.done)


def random_actions(game: Any, st: Any) -> np.ndarray:
    """The random agent's actions for a batch (its own counter-based stream)."""
    agent = agents.make("random", game)
    rng = AgentRNG(st.seed, st.current_player, st.num_decisions)
    return np.where(st.done, -1, agent.act(None, st.legal_action_mask, rng))


def flat_observation(obs: dict[str, np.ndarray], batched: bool) -> np.ndarray:
    """All observation fields side by side as int64 (``[B, N]`` if batched, else ``[N]``)."""
    if batched:
        b = next(iter(obs.values())).shape[0]
        return np.concatenate([v.reshape(b, -1).astype(np.int64) for v in obs.values()], axis=1)
    return np.concatenate([np.asarray(v).ravel().astype(np.int64) for v in obs.values()])


def assert_same_game(game: Any, ref: Any, st: Any, rstates: list, where: str = "",
                     observations: bool = True) -> None:
    """Vectorised batch ``st`` equals the reference states: players, masks, obs, results."""
    obs = game.observe(st) if observations else {}
    flat = flat_observation(obs, batched=True) if observations else None
    for b, s in enumerate(rstates):
        tag = f"{where} game {b} (seed {s.seed}, decision {s.num_decisions})"
        assert int(st.current_player[b]) == s.current_player, tag
        legal = np.flatnonzero(st.legal_action_mask[b]).tolist()
        assert legal == ref.legal_actions(s), tag
        assert bool(st.terminated[b]) == s.terminated, tag
        assert bool(st.truncated[b]) == s.truncated, tag
        assert st.placements[b].tolist() == list(s.placements), tag
        assert int(st.num_decisions[b]) == s.num_decisions, tag
        assert int(st.num_rounds[b]) == s.num_rounds, tag
        if not observations:
            continue
        robs = ref.observe(s)
        if not np.array_equal(flat[b], flat_observation(robs, batched=False)):
            assert robs.keys() == obs.keys(), tag
            for key, value in robs.items():
                np.testing.assert_array_equal(obs[key][b], value, err_msg=f"{tag} key {key}")


def play_random_both(game: Any, ref: Any, seeds: np.ndarray, where: str = "", every: int = 1,
                     max_steps: int = 100_000, each: Any = None) -> tuple[Any, list]:
    """Random play from ``seeds`` on both engines until every game ends, asserting after each
    step that they agree (observations every ``every`` steps; ``each(st)`` runs on every
    fast state); fails if the games have not ended within ``max_steps``."""
    st = game.init(seeds)
    rstates = [ref.new_game(int(s)) for s in seeds]
    for step in range(max_steps):
        assert_same_game(game, ref, st, rstates, where=where, observations=step % every == 0)
        if each is not None:
            each(st)
        if st.done.all():
            return st, rstates
        actions = random_actions(game, st)
        for b, s in enumerate(rstates):
            if not s.done:
                ref.apply(s, int(actions[b]))
        game.step(st, actions)
    raise AssertionError(f"{where}: games did not end within {max_steps} steps")


def play_both(scenario_fn: Any, vec_cls: Any, actions: list[str], *args: Any,
              **kwargs: Any) -> tuple[Any, Any, Any]:
    """Build a scenario, apply named actions on both engines, check they agree at every step.

    Returns (reference game, reference state, vectorised batch of one).
    """
    ref, s = scenario_fn(*args, **kwargs)
    vg = vec_cls(ref.rules)
    st = vg.from_reference([s])
    assert_same_game(vg, ref, st, [s], where="start")
    for a in actions:
        ref.apply(s, a)
        vg.step(st, np.array([vg.action_id(a)]))
        assert_same_game(vg, ref, st, [s], where=a)
    return ref, s, st


def same_records(a: np.ndarray, b: np.ndarray) -> bool:
    """Record arrays equal field by field (padding bytes are not compared)."""
    return a.shape == b.shape and all(np.array_equal(a[n], b[n]) for n in a.dtype.names)


def same_games(x, y, index=slice(None)) -> bool:
    """Both record arrays of state ``x`` at ``index`` equal those of state ``y``."""
    return same_records(x.data[index], y.data) and same_records(x.hot[index], y.hot)
