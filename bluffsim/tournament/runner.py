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

**Text agents** (``agents.text``: ``llm``, ``text-counting``, ``text:`` callables) are drained
after every ``act`` (``TextLog``): each decision becomes a transcript line (the messages sent,
every answer, how each was read, the action) and each answer a row of the shard's call table
(tokens, latency, retries, parse outcome, legality, cached).  At a game's end its transcript
gets an ``end`` line with the final placements, the forfeits and the hidden cards of every seat
at each text decision (``State.hands`` read from the engine, never shown to the agent).
``play_shard_records`` returns them with the shard.  **Forfeit:** a seat whose text agent
forfeited (``on_failure = "forfeit"``) is played uniformly at random by the runner for the rest
of that game without asking again, and at the game's end it is placed last (several forfeits:
last in their own order; the other seats keep their order, moved up; ``won`` follows,
``score`` stays the engine's); games.parquet then has a ``forfeit`` column (only in runs with a
text agent that can fail, i.e. not text-counting alone, so other runs' tables are unchanged).
Forfeits are kept per game id, not per seed, so a duplicate deal's replays do not share them.
"""

from __future__ import annotations

import dataclasses
import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import agents as agent_registry
import bluffsim
from agents.base import nth_legal
from agents.fused import fused_lineup
from agents.llm import CallBudgetReached, LLMAgent, LLMCallError, start_budget
from agents.text import Decision, TextAgent, TextCounting
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
# the Python agents act once every running game waits for one of them, or after this many fused
# calls (``_ask_external``): batched agents (a text agent's concurrent requests) get full batches
GATHER_CALLS = 16
_USE_FUSED = True


def play_shard(exp: Experiment, shard: int,
               progress: Callable[[int], None] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Play every game of ``shard``; returns (games, rounds) DataFrames sorted by game."""
    games, rounds, _ = play_shard_records(exp, shard, progress)
    return games, rounds


def play_shard_records(exp: Experiment, shard: int, progress: Callable[[int], None] | None = None
                       ) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, Any] | None]:
    """``play_shard`` and the text agents' records of the shard: ``{"calls": DataFrame,
    "transcripts": {game: [line, ...]}}`` (module docstring), or None without a text agent."""
    game = bluffsim.make(exp.game, exp.players, **exp.rules)
    lineup = [agent_registry.make(s.agent, game, **s.params) for s in exp.seats]
    for agent in lineup:
        if hasattr(agent, "bind_run"):
            agent.bind_run(exp.out_dir)
    log = TextLog(exp, game, lineup) if any(isinstance(a, TextAgent) for a in lineup) else None
    try:
        games, rounds = _play_games(exp, shard, game, lineup, log, progress)
    finally:
        for agent in lineup:
            if hasattr(agent, "close"):
                agent.close()
    return games, rounds, (log.records() if log is not None else None)


def _play_games(exp: Experiment, shard: int, game: Any, lineup: list[Any], log: TextLog | None,
                progress: Callable[[int], None] | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The batched loop of the module docstring over the games of ``shard``."""
    sched = schedule_of(exp)
    games = np.asarray(sched.shard_range(shard), dtype=np.int64)
    seeds, lineup_of = sched.seeds(games), sched.seat_lineup(games)
    seat_columns = bluffsim.spec(exp.game).seat_columns  # each gets an <column>_agent column
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
    gathering = 0                       # fused calls since the Python agents last acted
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
                    actions[idx] = _act(exp, agent, j, st, obs, idx, games[slot], log)
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
                                           seeds[slot[done]], lineup_of[slot[done]], log))
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
            gathering = _ask_external(exp, game, lineup, fused.external, st, lineup_of[slot],
                                      active, games[slot], pending, need_obs, log, gathering)
    return _frame(game_rows, ["game", "seat"]), _frame(round_rows,
                                                                ["game", "round"])


def _ask_external(exp: Experiment, game: Any, lineup: list[Any], external: np.ndarray,
                  st: Any, seat_agent: np.ndarray, active: np.ndarray, game_ids: np.ndarray,
                  pending: np.ndarray, need_obs: bool, log: TextLog | None = None,
                  gathering: int = 0) -> int:
    """The actions of the lineup's Python agents (``external``) in the running games where
    one of them is to move, into ``pending`` (the fused loop plays them next).  They are asked
    once every running game waits for one of them (a game stopped at its round's end plays on
    first), or after ``GATHER_CALLS`` fused calls, so each ``act`` gets as many games as the
    batch holds (a text agent then has that many requests in flight); returns the fused calls
    made since they last acted."""
    to_move = seat_agent[np.arange(st.seed.size), np.maximum(st.current_player, 0)]
    running = active & ~st.done
    ask = running & external[to_move] & (pending < 0)
    if not ask.any():
        return 0
    if (running & ~ask).any() and gathering < GATHER_CALLS:
        return gathering + 1
    obs = game.observe(st) if need_obs else None
    for j in np.flatnonzero(external):
        idx = np.flatnonzero(ask & (to_move == j))
        if idx.size:
            pending[idx] = _act(exp, lineup[j], int(j), st, obs, idx, game_ids, log)
    return 0


def _act(exp: Experiment, agent: Any, j: int, st: Any, obs: dict[str, np.ndarray] | None,
         idx: np.ndarray, game_ids: np.ndarray, log: TextLog | None = None) -> np.ndarray:
    """One agent's actions for games ``idx``; failures name the agent, game and seed.  A text
    agent's go through ``log`` (forfeited seats played by the runner, decisions drained)."""
    if log is not None and j in log.text:
        return log.act(j, st, idx, game_ids, lambda rows: _act(exp, agent, j, st, obs, rows,
                                                                 game_ids))
    sub = {k: v[idx] for k, v in obs.items()} if obs is not None else None
    mask = st.legal_action_mask[idx]
    rng = AgentRNG(st.seed[idx], st.current_player[idx], st.num_decisions[idx])
    label = exp.labels[j]
    try:
        a = np.asarray(agent.act(sub, mask, rng), dtype=np.int64)
    except (CallBudgetReached, LLMCallError):   # the run stops as planned, or the server is down
        raise
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
                  seeds: np.ndarray, lineup: np.ndarray,
                  log: TextLog | None = None) -> dict[str, np.ndarray]:
    """One row per (finished game, seat); with text agents, forfeits placed last (``forfeit``)."""
    p = exp.players
    labels = np.asarray(exp.labels, dtype=object)
    place = st.placements[done]
    forfeit = None
    if log is not None:
        forfeit = log.forfeits(game_ids, p)
        place = forfeit_placements(place, forfeit)
        log.end_games(st, done, game_ids, seeds, labels[lineup], place, forfeit)
        if not log.forfeit_column:
            forfeit = None
    rows = {
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
    if forfeit is not None:
        rows["forfeit"] = forfeit.ravel()
    return rows


def forfeit_placements(place: np.ndarray, forfeit: np.ndarray) -> np.ndarray:
    """Placements int[G, P] with every forfeited seat (bool[G, P]) placed last, forfeits in
    their own order, the other seats keeping theirs (ties stay ties), moved up."""
    dtype = np.asarray(place).dtype
    key = np.asarray(place).astype(np.int64) + np.asarray(forfeit, bool) * (place.shape[1] + 1)
    return (1 + (key[:, None, :] < key[:, :, None]).sum(axis=2)).astype(dtype)


def _frame(parts: list[dict[str, np.ndarray]], order: list[str]) -> pd.DataFrame:
    """The rows of ``parts`` as one DataFrame sorted by the ``order`` columns (integers): sorted
    as numpy arrays first (``np.lexsort``, stable), so pandas never reorders its string columns."""
    if not parts:
        return pd.DataFrame()
    cols = {c: np.concatenate([p[c] for p in parts]) for c in parts[0]}
    idx = np.lexsort([cols[c] for c in reversed(order)])
    return pd.DataFrame({c: v[idx] for c, v in cols.items()})


# ---------------------------------------------------------------------- text agents' records
class TextLog:
    """The text agents' decisions of one shard: transcripts, call rows and forfeits (module
    docstring)."""

    def __init__(self, exp: Experiment, game: Any, lineup: list[Any]):
        self.exp = exp
        self.text = {j for j, a in enumerate(lineup) if isinstance(a, TextAgent)}
        self.lineup = lineup
        for j in self.text:
            lineup[j].KEEP = sys.maxsize      # drained here after every act
        self.forfeited: set[tuple[int, int]] = set()       # (game id, seat)
        self.lines: dict[int, list[dict[str, Any]]] = {}    # game id -> transcript lines
        self.hidden: dict[int, list[dict[str, Any]]] = {}   # game id -> hands at text decisions
        self.calls: list[dict[str, Any]] = []
        self.display = _display(game, list(exp.labels))
        # games.parquet's ``forfeit`` column: with a text agent whose answers can fail (llm,
        # text: callables); text-counting writes counting's own choice, so its runs keep
        # counting's table exactly
        self.forfeit_column = any(isinstance(lineup[j], TextAgent)
                                  and not isinstance(lineup[j], TextCounting) for j in self.text)

    def act(self, j: int, st: Any, idx: np.ndarray, game_ids: np.ndarray,
            ask: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """Actions of text agent ``j`` for games ``idx``: a forfeited seat's uniform legal action
        from the runner, the others from ``ask`` (the agent); every decision logged."""
        seats = st.current_player[idx].astype(np.int64)
        gids = game_ids[idx].astype(np.int64)
        gone = np.array([(int(g), int(p)) in self.forfeited for g, p in zip(gids, seats,
                                                                            strict=True)], bool)
        out = np.empty(idx.size, np.int64)
        if gone.any():
            rows = idx[gone]
            mask = st.legal_action_mask[rows]
            rng = AgentRNG(st.seed[rows], st.current_player[rows], st.num_decisions[rows])
            out[gone] = nth_legal(mask, rng.below(mask.sum(axis=1)))
        agent = self.lineup[j]
        decisions: list[Decision] = []
        if (~gone).any():
            agent.decisions.clear()
            out[~gone] = ask(idx[~gone])
            decisions = list(agent.decisions)
            agent.decisions.clear()
            agent.forfeited.clear()           # kept here, per game id
        it = iter(decisions)
        for k, row in enumerate(idx.tolist()):
            d = None if gone[k] else next(it, None)
            self._log(j, st, row, int(gids[k]), int(out[k]), d)
        return out

    def _log(self, j: int, st: Any, row: int, gid: int, action: int, d: Decision | None) -> None:
        """One decision's transcript line, call rows and hidden cards."""
        seat, decision, seed = int(st.current_player[row]), int(st.num_decisions[row]), int(st.seed[row])
        agent = self.lineup[j]
        if d is None:      # the seat forfeited earlier in this game: not asked
            d = Decision(seed, seat, decision, [], [], action, agent.protocol.action_text(action),
                         "forfeit", 0)
        elif d.outcome == "forfeit":
            self.forfeited.add((gid, seat))
        label = self.exp.labels[j]
        self.lines.setdefault(gid, []).append({
            "type": "decision", "game": gid, "seed": seed, "seat": seat, "agent": label,
            "decision": decision, "messages": d.messages, "answers": d.answers,
            "read": [{"outcome": p.outcome, "reason": p.reason,
                      "action": None if p.action is None else agent.protocol.action_text(p.action)}
                     for p in d.parsed],
            "action": d.action, "action_text": d.action_text, "outcome": d.outcome,
            "rethinks": d.rethinks})
        for k, answer in enumerate(d.answers):
            meta = d.meta[k] if k < len(d.meta) else {}
            parsed = d.parsed[k] if k < len(d.parsed) else None
            self.calls.append({
                "game": gid, "seed": seed, "seat": seat, "agent": label, "decision": decision,
                "attempt": k, "tokens_in": int(meta.get("tokens_in", 0)),
                "tokens_out": int(meta.get("tokens_out", 0)),
                "latency": float(meta.get("latency", 0.0)), "retries": int(meta.get("retries", 0)),
                "rethinks": d.rethinks, "outcome": parsed.outcome if parsed else "",
                "legal": bool(parsed is not None and parsed.ok),
                "cached": bool(meta.get("cached", False)), "decision_outcome": d.outcome,
                "answer_chars": len(answer)})
        if hasattr(st, "hands"):
            self.hidden.setdefault(gid, []).append(
                {"decision": decision, "seat": seat, "hands": self._hands(st, row)})

    def _hands(self, st: Any, row: int) -> list[str]:
        """Every seat's cards in game ``row`` now, in words."""
        hands = np.asarray(st.hands[row])
        if self.display is None:
            return [str(h.tolist()) for h in hands]
        return [self.display.cards(h) for h in hands]

    def forfeits(self, game_ids: np.ndarray, players: int) -> np.ndarray:
        """bool[G, P]: which seats of the finished games ``game_ids`` forfeited."""
        out = np.zeros((game_ids.size, players), bool)
        for i, g in enumerate(game_ids.tolist()):
            for p in range(players):
                out[i, p] = (int(g), p) in self.forfeited
        return out

    def end_games(self, st: Any, done: np.ndarray, game_ids: np.ndarray, seeds: np.ndarray,
                  labels: np.ndarray, place: np.ndarray, forfeit: np.ndarray) -> None:
        """The ``end`` line of every finished game that had a text decision."""
        for i, (row, gid) in enumerate(zip(done.tolist(), game_ids.tolist(), strict=True)):
            gid = int(gid)
            if gid not in self.lines:
                continue
            self.lines[gid].append({
                "type": "end", "game": gid, "seed": int(seeds[i]),
                "agents": [str(x) for x in labels[i]], "placements": place[i].tolist(),
                "forfeit": np.flatnonzero(forfeit[i]).tolist(),
                "rounds": int(st.num_rounds[row]), "truncated": bool(st.truncated[row]),
                "hidden": self.hidden.pop(gid, []),
                "final_hands": self._hands(st, row) if hasattr(st, "hands") else []})
            self.forfeited -= {(gid, p) for p in range(place.shape[1])}

    def records(self) -> dict[str, Any]:
        """The shard's records: the call table and the transcripts by game."""
        calls = pd.DataFrame()
        if self.calls:
            calls = pd.DataFrame(self.calls, columns=CALL_COLUMNS).astype({"seed": np.uint64})
            calls = calls.sort_values(["game", "decision", "attempt"], kind="stable",
                                      ignore_index=True)
        return {"calls": calls,
                "transcripts": dict(sorted(self.lines.items()))}


CALL_COLUMNS = ["game", "seed", "seat", "agent", "decision", "attempt", "tokens_in", "tokens_out",
                "latency", "retries", "rethinks", "outcome", "legal", "cached",
                "decision_outcome", "answer_chars"]


def _display(game: Any, labels: list[str]) -> Any:
    """The game's display (spectator), for cards in words; None if it has none."""
    try:
        module = importlib.import_module(bluffsim.spec(game.game_id).display)
        return module.DISPLAY(game.rules, labels, 0, omniscient=True)
    except (ImportError, AttributeError, TypeError):
        return None


# ---------------------------------------------------------------------- llm runs: budget, cost
ESTIMATE_GAMES = 12   # games of the side run that measures the llm seats' decisions per game
STAND_IN = "text:agents.llm:no_answer"


def llm_seats(exp: Experiment) -> list[int]:
    """Indices of the lineup's ``llm`` seats."""
    return [i for i, s in enumerate(exp.seats)
            if agent_registry.REGISTRY.get(s.agent, {}).get(exp.game) is LLMAgent]


def estimate_llm_calls(exp: Experiment) -> tuple[float, int]:
    """(llm decisions per game, games measured): the run's first games played with the llm seats
    replaced by a stand-in that plays uniformly at random (one decision = one call at least)."""
    seats = llm_seats(exp)
    n = min(exp.games, ESTIMATE_GAMES)
    stand_in = {"rethinks": 0, "on_failure": "random", "list_legal": False}
    side = dataclasses.replace(
        exp, games=n, shard_games=n, batch=n, workers=1, executor="local", address="",
        seats=tuple(dataclasses.replace(s, agent=STAND_IN, params=dict(stand_in))
                    if i in seats else s for i, s in enumerate(exp.seats)))
    _, _, records = play_shard_records(side, 0)
    calls = 0 if records is None else len(records["calls"])
    return calls / n, n


def llm_run_notes(exp: Experiment, out: Path, games: int) -> list[str]:
    """Before a run's first call: a fresh call counter in ``out`` and the expected calls of the
    ``games`` left (``bluffsim: llm: ...`` lines); nothing without an llm seat."""
    seats = llm_seats(exp)
    if not seats or games <= 0:
        return []
    start_budget(out)
    per_game, measured = estimate_llm_calls(exp)
    rethinks = max(int(exp.seats[i].params.get("rethinks", LLMAgent.params["rethinks"]))
                   for i in seats)
    lines = [f"llm: about {per_game * games:,.0f} calls expected: {per_game:.1f} llm decisions "
             f"per game (measured on {measured} games with random moves in the llm seats) × "
             f"{games:,} games to play; rethinks add up to {rethinks} more per decision, cached "
             "answers cost none"]
    limits = sorted({int(exp.seats[i].params.get("max_calls", 0)) for i in seats} - {0})
    if limits:
        lines.append(f"llm: max_calls = {', '.join(f'{m:,}' for m in limits)}: the run stops "
                     "there (finished shards kept; --resume goes on)")
    return lines


def llm_cost_line(out: Path) -> str | None:
    """The run's calls, tokens and cached share in one line, from its ``llm_calls.parquet``
    (None when it has none)."""
    path = Path(out) / "llm_calls.parquet"
    if not path.is_file():
        return None
    calls = pd.read_parquet(path, columns=["tokens_in", "tokens_out", "cached", "legal"])
    if calls.empty:
        return None
    n, cached = len(calls), int(calls["cached"].sum())
    new = calls[~calls["cached"]]
    return (f"text agents: {n:,} calls ({cached:,} cached, {cached / n:.0%}; {n - cached:,} "
            f"new), tokens in/out {int(calls['tokens_in'].sum()):,} / "
            f"{int(calls['tokens_out'].sum()):,} ({int(new['tokens_in'].sum()):,} / "
            f"{int(new['tokens_out'].sum()):,} new), {1 - calls['legal'].mean():.1%} of answers "
            "unplayable (see llm_calls.parquet, transcripts/)")
