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


def assert_rows_equal(name: str, got: Any, want: Any, tag: Any,
                      rows: np.ndarray | None = None) -> None:
    """Row ``rows[i]`` of ``got`` (every row if ``rows`` is None) equals row ``i`` of ``want``
    (same shape, same values); the first row that differs fails with ``tag(row)`` and both."""
    got, want = np.asarray(got), np.asarray(want)
    if rows is None:
        rows = np.arange(len(got))
    else:
        got = got[rows]
    assert got.shape == want.shape, f"{name} shape {got.shape} != {want.shape}"
    if len(got) < 8 and got.tolist() == want.tolist():   # quicker for a few rows (batch 1)
        return
    differ = (got != want).reshape(len(got), -1).any(axis=1)
    if differ.any():
        i = int(np.argmax(differ))
        raise AssertionError(f"{tag(int(rows[i]))}: {name} {got[i].tolist()} != {want[i].tolist()}")


RESULT_FIELDS = ("current_player", "terminated", "truncated", "num_decisions", "num_rounds",
                 "placements")
"""The per-game fields both engines' states expose, compared at every step."""


def rows_agree(st: Any, chosen: list, legal: list[list[int]], rows: np.ndarray,
               obs: dict[str, np.ndarray] | None, robs: list | None) -> bool:
    """Whether rows ``rows`` of the fast batch ``st`` equal the reference states ``chosen`` (their
    ``legal`` actions, observations ``robs`` against ``obs``), compared as Python lists: the
    quick check; ``assert_same_game`` compares again field by field to name what differs."""
    for name in RESULT_FIELDS:
        if getattr(st, name)[rows].tolist() != [getattr(s, name) for s in chosen]:
            return False
    mask = st.legal_action_mask[rows]
    if [np.flatnonzero(m).tolist() for m in mask] != legal:
        return False
    if obs is None:
        return True
    keys = list(obs)
    if any(list(r) != keys for r in robs):
        return False
    return all(obs[k][rows].tolist() == [r[k].tolist() for r in robs] for k in keys)


def assert_same_game(game: Any, ref: Any, st: Any, rstates: list, where: str = "",
                     observations: bool = True, rows: np.ndarray | None = None) -> None:
    """Vectorised batch ``st`` equals the reference states: players, masks (the reference's
    legal actions in ascending order), observations, results; at ``rows`` only, if given.
    A batch of a few rows that agrees is passed by one comparison of Python lists
    (``rows_agree``); otherwise, or when it finds a difference, field by field."""
    def tag(b: int) -> str:
        s = rstates[b]
        return f"{where} game {b} (seed {s.seed}, decision {s.num_decisions})"

    if rows is None:
        assert st.batch_size == len(rstates), f"{where}: {st.batch_size} games, {len(rstates)} states"
        rows = np.arange(len(rstates))
    rows = np.asarray(rows)
    chosen = [rstates[b] for b in rows]
    legal_lists = [ref.legal_actions(s) for s in chosen]
    for i, acts in enumerate(legal_lists):
        assert acts == sorted(set(acts)), f"{tag(int(rows[i]))}: {acts} not ascending"
    obs = game.observe(st) if observations else None
    robs = [ref.observe(s) for s in chosen] if observations else None
    if len(rows) < 8 and rows_agree(st, chosen, legal_lists, rows, obs, robs):
        return
    for name in RESULT_FIELDS:
        assert_rows_equal(name, getattr(st, name), [getattr(s, name) for s in chosen], tag, rows)
    legal = np.zeros((len(rows), st.legal_action_mask.shape[1]), bool)
    for i, acts in enumerate(legal_lists):
        legal[i, acts] = True
    assert_rows_equal("legal actions", st.legal_action_mask, legal, tag, rows)
    if not observations:
        return
    for i, r in enumerate(robs):
        assert list(r) == list(obs), \
            f"{tag(int(rows[i]))}: observation keys {list(r)} != {list(obs)}"
    for key, value in obs.items():
        assert_rows_equal(f"key {key}", value, [r[key] for r in robs], tag, rows)


def play_random_both(game: Any, ref: Any, seeds: np.ndarray, where: str = "", every: int = 1,
                     max_steps: int = 100_000, each: Any = None) -> tuple[Any, list]:
    """Random play from ``seeds`` on both engines until every game ends, asserting after each
    step that they agree (observations every ``every`` steps; ``each(st)`` runs on every
    fast state); fails if the games have not ended within ``max_steps``.  Each step compares
    the games that were running before it (a game is compared up to and including the step
    that ends it); at the end every game is compared again, observations included, so a
    finished game the fast engine changed afterwards and left changed is caught (one changed
    only while others ran, then put back, would not be)."""
    st = game.init(seeds)
    rstates = [ref.new_game(int(s)) for s in seeds]
    live = np.arange(len(seeds))
    for step in range(max_steps):
        assert_same_game(game, ref, st, rstates, where=where, observations=step % every == 0,
                         rows=live)
        if each is not None:
            each(st)
        if st.done.all():
            assert_same_game(game, ref, st, rstates, where=f"{where} end")
            return st, rstates
        live = np.flatnonzero(~st.done)
        actions = random_actions(game, st)
        for b in live:
            ref.apply(rstates[b], int(actions[b]))
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
