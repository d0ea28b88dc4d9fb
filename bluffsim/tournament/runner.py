"""Batched play of one shard: agents act on observations, finished games are replaced.

``play_shard`` keeps ``batch`` games in flight.  Each step, every lineup agent
acts for the games whose current seat it holds (one batched ``act`` call per
agent), the game steps, rounds that ended are recorded, and finished games are
recorded and replaced by the shard's next games (autoreset).  When the game has a fused
loop (``agents.fused``), the built-in agents' compiled policies play instead, each game to its
round's end in one compiled call; a seat held by an agent without one (a user's Python agent)
stops its game there, the agent acts on those games in one batched ``act`` call, and the next
compiled call plays its actions and goes on.  The records are the same on both paths.  A game depends
only on its seed and the agents' actions, and agents draw from streams keyed by
(game seed, seat, decision), so results do not depend on batch size or on which
games share a batch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

import agents as agent_registry
import bluffsim
from agents.fused import fused_lineup
from bluffsim.api import BluffsimError
from bluffsim.rng import AgentRNG
from bluffsim.tournament.config import Experiment
from bluffsim.tournament.schedule import Schedule


class AgentFailure(BluffsimError, RuntimeError):
    """An agent raised or returned an illegal action; names the agent, game and seed."""


def schedule_of(exp: Experiment) -> Schedule:
    """The experiment's schedule."""
    from bluffsim.tournament.pool import lineups_of

    mode = exp.seating_mode
    return Schedule(exp.seed, exp.games, exp.players, mode != "fixed", exp.duplicate,
                    exp.shard_games, mode == "permute", lineups_of(exp), mode == "balanced")


# Finished games are refilled together once 1/REFILL_SHARE of the batch waits (or
# nothing else is playing): a reset has a fixed cost per call, so refilling a few
# games every step costs more than letting some slots idle for a few steps.  Each
# game depends only on its seed and actions, so results do not change.
REFILL_SHARE = 32
# A game with a fused loop is played by it (agents without a compiled policy act from Python
# between its calls): each call plays every running game up to the end of its round (at most
# FUSED_DECISIONS decisions), so each finished round is recorded before the next overwrites
# it; the records are those of the stepped path.  ``_USE_FUSED = False`` forces the stepped
# path (tests compare the two).
FUSED_DECISIONS = 512
_USE_FUSED = True


def play_shard(exp: Experiment, shard: int,
               progress: Callable[[int], None] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Play every game of ``shard``; returns (games, rounds) DataFrames sorted by game."""
    sched = schedule_of(exp)
    games = np.asarray(sched.shard_range(shard), dtype=np.int64)
    seeds, lineup_of = sched.seeds(games), sched.seat_lineup(games)
    game = bluffsim.make(exp.game, exp.players, **exp.rules)
    seat_columns = bluffsim.spec(exp.game).seat_columns  # each gets an <column>_agent column
    lineup = [agent_registry.make(s.agent, game, **s.params) for s in exp.seats]
    need_obs = any(agent_registry.Traits.of(a.traits).uses_observation for a in lineup)
    fused = fused_lineup(game, lineup, external=True) if _USE_FUSED else None
    b = min(exp.batch, games.size)
    st = game.init(seeds[:b])
    slot = np.arange(b)            # index into `games` of the game in each slot
    active = np.ones(b, bool)
    waiting = np.zeros(b, bool)    # finished and recorded, not yet refilled
    refill_at = max(1, b // REFILL_SHARE)
    nxt = b
    pending = np.full(b, -1, np.int64)  # Python agents' actions for the next fused call
    game_rows: list[dict[str, np.ndarray]] = []
    round_rows: list[dict[str, np.ndarray]] = []
    while active.any():
        if fused is not None:  # every seat compiled: play each game to its round's end
            *_, bad = fused.play(st, lineup_of[slot], FUSED_DECISIONS, pending=pending)
            if bad >= 0:
                j = int(lineup_of[slot[bad], st.current_player[bad]])
                raise AgentFailure(f"agent {exp.labels[j]!r} chose an illegal action "
                                   f"({exp.game}, game {int(games[slot[bad]])}, "
                                   f"seed {int(st.seed[bad])})")
        else:
            live = active & ~st.done
            seat_agent = lineup_of[slot, np.maximum(st.current_player, 0)]
            obs = game.observe(st) if need_obs else None
            actions = np.full(b, -1, np.int64)
            for j, agent in enumerate(lineup):
                idx = np.flatnonzero(live & (seat_agent == j))
                if idx.size:
                    actions[idx] = _act(exp, agent, j, st, obs, idx, games[slot])
            game.step(st, actions)
        ended = np.flatnonzero(st.round_over & active)
        if ended.size:
            rec = game.round_record(st, ended)
            rec["game"] = games[slot[ended]]
            labels = np.asarray(exp.labels + ("",), dtype=object)
            for seat_key in seat_columns:
                if seat_key in rec:
                    s = rec[seat_key].astype(np.int64)
                    rec[f"{seat_key}_agent"] = labels[np.where(
                        s >= 0, lineup_of[slot[ended], np.maximum(s, 0)], len(exp.labels))]
            round_rows.append(rec)
        done = np.flatnonzero(st.done & active & ~waiting)
        if done.size:
            game_rows.append(_game_records(exp, game, st, done, games[slot[done]],
                                           seeds[slot[done]], lineup_of[slot[done]]))
            if progress:
                progress(done.size)
            waiting[done] = True
        if waiting.sum() >= refill_at or (waiting.any() and not (active & ~waiting).any()):
            idle = np.flatnonzero(waiting)
            refill = idle[: max(0, games.size - nxt)]
            if refill.size:
                slot[refill] = np.arange(nxt, nxt + refill.size)
                nxt += refill.size
                game.reset_games(st, refill, seeds[slot[refill]])
            active[idle[refill.size:]] = False
            waiting[:] = False
        if fused is not None and fused.external.any():
            _ask_external(exp, game, lineup, fused.external, st, lineup_of[slot], active,
                          games[slot], pending, need_obs)
    return _frame(game_rows, ["game", "seat"]), _frame(round_rows,
                                                                ["game", "round"])


def _ask_external(exp: Experiment, game: Any, lineup: list[Any], external: np.ndarray,
                  st: Any, seat_agent: np.ndarray, active: np.ndarray, game_ids: np.ndarray,
                  pending: np.ndarray, need_obs: bool) -> None:
    """The actions of the lineup's Python agents (``external``) in the running games where
    one of them is to move, into ``pending`` (the fused loop plays them next)."""
    to_move = seat_agent[np.arange(st.seed.size), np.maximum(st.current_player, 0)]
    ask = active & ~st.done & external[to_move] & (pending < 0)
    if not ask.any():
        return
    obs = game.observe(st) if need_obs else None
    for j in np.flatnonzero(external):
        idx = np.flatnonzero(ask & (to_move == j))
        if idx.size:
            pending[idx] = _act(exp, lineup[j], int(j), st, obs, idx, game_ids)


def _act(exp: Experiment, agent: Any, j: int, st: Any, obs: dict[str, np.ndarray] | None,
         idx: np.ndarray, game_ids: np.ndarray) -> np.ndarray:
    """One agent's actions for games ``idx``; failures name the agent, game and seed."""
    sub = {k: v[idx] for k, v in obs.items()} if obs is not None else None
    mask = st.legal_action_mask[idx]
    rng = AgentRNG(st.seed[idx], st.current_player[idx], st.num_decisions[idx])
    label = exp.labels[j]
    try:
        a = np.asarray(agent.act(sub, mask, rng), dtype=np.int64)
    except Exception as e:  # an agent bug must not look like a bluffsim bug
        raise AgentFailure(f"agent {label!r} raised {type(e).__name__}: {e} "
                           f"({exp.game}, game {int(game_ids[idx[0]])}, "
                           f"seed {int(st.seed[idx[0]])})") from e
    ok = (a.shape == (idx.size,)) and bool(
        np.all((a >= 0) & (a < mask.shape[1])) and mask[np.arange(idx.size),
                                                         np.clip(a, 0, mask.shape[1] - 1)].all())
    if not ok:
        bad = 0 if a.shape != (idx.size,) else int(np.flatnonzero(
            ~((a >= 0) & (a < mask.shape[1]))
            | ~mask[np.arange(idx.size), np.clip(a, 0, mask.shape[1] - 1)])[0])
        raise AgentFailure(f"agent {label!r} chose an illegal action ({exp.game}, game "
                           f"{int(game_ids[idx[bad]])}, seed {int(st.seed[idx[bad]])})")
    return a


def _game_records(exp: Experiment, game: Any, st: Any, done: np.ndarray, game_ids: np.ndarray,
                  seeds: np.ndarray, lineup: np.ndarray) -> dict[str, np.ndarray]:
    """One row per (finished game, seat)."""
    p = exp.players
    labels = np.asarray(exp.labels, dtype=object)
    place = st.placements[done]
    return {
        "game": np.repeat(game_ids, p),
        "seed": np.repeat(seeds, p),
        "seat": np.tile(np.arange(p, dtype=np.int8), done.size),
        "agent": labels[lineup.ravel()],
        "placement": place.ravel(),
        "won": (place == 1).ravel(),
        "score": game.final_score(st, done).ravel(),
        "rounds": np.repeat(st.num_rounds[done], p),
        "decisions": np.repeat(st.num_decisions[done], p),
        "truncated": np.repeat(st.truncated[done], p),
    }


def _frame(parts: list[dict[str, np.ndarray]], order: list[str]) -> pd.DataFrame:
    """The rows of ``parts`` as one DataFrame sorted by the ``order`` columns (integers): sorted
    as numpy arrays first (``np.lexsort``, stable), so pandas never reorders its string columns."""
    if not parts:
        return pd.DataFrame()
    cols = {c: np.concatenate([p[c] for p in parts]) for c in parts[0]}
    idx = np.lexsort([cols[c] for c in reversed(order)])
    return pd.DataFrame({c: v[idx] for c, v in cols.items()})
