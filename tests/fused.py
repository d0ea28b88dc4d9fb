"""Helpers of the fused-loop tests: force the stepped path, count fused calls, and play one shard
both ways."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from agents.fused import FusedLineup
from bluffsim import rng_nb as rn
from bluffsim.tournament import parse_config, play_shard, run_experiment, runner


def stepped(monkeypatch: Any) -> None:
    """Make the runner step every agent's ``act`` (the path before the fused loops)."""
    monkeypatch.setattr(runner, "_USE_FUSED", False)


def count_fused_calls(monkeypatch: Any) -> list[int]:
    """A list that grows by one at every ``FusedLineup.play`` call from now on."""
    calls: list[int] = []
    play = FusedLineup.play

    def spy(self, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        calls.append(1)
        return play(self, *args, **kwargs)

    monkeypatch.setattr(FusedLineup, "play", spy)
    return calls


def fused_and_stepped(exp: Any, shard: int, monkeypatch: Any) -> tuple[Any, Any]:
    """``play_shard(exp, shard)`` through the fused loop (asserted taken), then stepped."""
    calls = count_fused_calls(monkeypatch)
    fused = play_shard(exp, shard)
    assert calls, "the fused loop was not used"
    stepped(monkeypatch)
    return fused, play_shard(exp, shard)


def runner_config(game: str, seats: list[dict[str, Any]], players: int, games: int,
                  shard_games: int, out: str = "", rules: dict[str, Any] | None = None) -> Any:
    """A small experiment of the fused-loop tests: seed 17, batch 37 (not a divisor of the
    shard, so the batches end unevenly), no plots."""
    raw: dict[str, Any] = {"experiment": {"name": "fused", "game": game, "players": players,
                                          "games": games, "seed": 17},
                           "seats": seats, "run": {"batch": 37, "shard_games": shard_games,
                                                   "plots": False}}
    if rules:
        raw["rules"] = rules
    if out:
        raw["run"]["out"] = out
    return parse_config(raw)


def run_experiment_both_ways(make: Any, tmp_path: Any, monkeypatch: Any) -> None:
    """``run_experiment(make(out))`` fused, then stepped: the written games and rounds parquet
    are equal."""
    import pandas as pd

    run_experiment(make(str(tmp_path / "fused")), progress=False)
    stepped(monkeypatch)
    run_experiment(make(str(tmp_path / "stepped")), progress=False)
    for table in ("games", "rounds"):
        a = pd.read_parquet(tmp_path / "fused" / f"{table}.parquet")
        b = pd.read_parquet(tmp_path / "stepped" / f"{table}.parquet")
        assert len(a) > 0 and a.equals(b), table


class Extremist:
    """A Python agent for every game (no compiled policy): the lowest or the highest legal
    action id, each with probability 1/2, from its agent stream."""

    name = "extremist"
    traits = {"stochastic": True, "uses_history": False}

    def __init__(self, game: Any):
        self.game = game

    def act(self, obs: Any, legal_mask: np.ndarray, rng: Any) -> np.ndarray:
        """One legal action id per game: int[B]."""
        low = np.argmax(legal_mask, axis=1)
        high = legal_mask.shape[1] - 1 - np.argmax(legal_mask[:, ::-1], axis=1)
        return np.where(rng.uniform(1)[:, 0] < 0.5, low, high).astype(np.int64)


@njit
def _policy_rows(observe_row, policy, data, hot, rules, obs, num_actions, params, ctx, out):
    r = rules[0]
    o = obs[0]
    for b in range(data.shape[0]):
        h = hot[b]
        if h.terminated or h.truncated:
            out[b] = -1
            continue
        observe_row(data[b], h, r, o)
        seat = np.int64(h.current_player)
        key = rn.major_key(rn.agent_key(h.seed, seat), np.int64(h.num_decisions))
        # the mask as the fused loop passes it (the engine's is padded past the actions)
        out[b] = policy(o, h.mask[:num_actions], key, r, params, ctx)


def policy_on_states(game: Any, policy: Any, params: Any, ctx: tuple) -> Any:
    """``compiled(st)``: int64[B], ``policy`` of every running game of ``st`` on the record the
    game's ``observe_row`` fills from its engine records, as the fused loop calls it (-1 once
    over)."""
    row = np.asarray(params, np.float64)

    def compiled(st: Any) -> np.ndarray:
        out = np.empty(st.batch_size, np.int64)
        _policy_rows(game.kernels.observe_row, policy, st.data, st.hot, game._rec,
                     game.observation_record(), game.num_actions, row, ctx, out)
        return out

    return compiled


def compiled_equals_numpy(game: Any, heur: Any, compiled: Any, n_games: int,
                          seed0: int) -> tuple[int, set, set]:
    """Play ``n_games`` (even seats ``heur``, odd seats random, so states vary) and assert that
    ``compiled(st)`` (int64[B], the policy's action of every game as the fused loop finds it,
    e.g. ``policy_on_states``) equals ``heur.act`` (the observation dict packed into records)
    on every running game at every step; returns (decisions compared, phases they were in,
    actions the agent chose)."""
    import agents
    from bluffsim.rng import AgentRNG

    rand = agents.make("random", game)
    st = game.init(np.arange(seed0, seed0 + n_games))
    compared, phases, chosen = 0, set(), set()
    while not st.done.all():
        live = ~st.done
        rng = AgentRNG(st.seed, st.current_player, st.num_decisions)
        want = heur.act(game.observe(st), st.legal_action_mask, rng)
        got = compiled(st)
        bad = np.flatnonzero(live & (want != got))
        assert bad.size == 0, (f"game seed {st.seed[bad[0]]}, decision "
                               f"{st.num_decisions[bad[0]]}: numpy {want[bad[0]]}, "
                               f"compiled {got[bad[0]]}")
        compared += int(live.sum())
        phases |= set(st.phase[live].tolist())
        chosen |= set(want[live].tolist())
        other = rand.act(None, st.legal_action_mask, rng)
        game.step(st, np.where(live & (st.current_player % 2 == 0), want, other))
    return compared, phases, chosen
