"""Throughput benchmark: decisions, rounds and games per second, state size and memory.

For each game and agent mix (every seat played by one agent, e.g. ``random`` or
``counting``):

- the vectorised engine at each batch size, finished games autoreset in place
  so the batch stays full: the batched Python loop (agent ``act`` + ``step`` each step);
- for ``random`` on a game whose engine has ``play_random`` (all three): the ``fused_*``
  columns of its rows, the engine and the compiled random agent in one compiled
  loop, each game advancing 20 decisions in a row per call (game-major), the same
  games (NaN for other games and agents);
- the scalar reference engine on one game at a time (``random`` draws uniform
  legal actions directly; other agents are asked with a batch of one);
- when the optional ``open-spiel`` extra is installed, the peer anchor:
  OpenSpiel's ``liars_dice`` (numdice=5, 2 players) played with uniform random
  legal actions from a Python loop, the way a Python user of OpenSpiel runs it;
  its decisions are player decisions, and its ``rounds_per_s`` column holds every
  applied action, dice rolls included (``openspiel_run``).

Each rate is the median of ``repeats`` runs of at least ``seconds`` seconds, in
one process pinned to one core (``os.sched_setaffinity`` where the OS has it);
finished games are refilled in groups as the tournament runner does
(``REFILL_SHARE``), and only decisions of games in play are counted;
min and max are kept so noise on a shared machine stays visible, and
``cpu_decisions_per_s`` divides by the process's CPU time instead of the wall
clock (the two differ when other processes share the core).  ``state_bytes``
is the vectorised state's array bytes per game; ``peak_mib`` is the peak of
memory allocated while 20 steps run, measured apart (``tracemalloc``, which
numpy reports to) so the timing runs carry no tracing cost.
"""

from __future__ import annotations

import os
import random
import time
import tracemalloc
from dataclasses import dataclass

import numpy as np
import pandas as pd

import agents
import bluffsim
from bluffsim.adapters.single import SingleGame
from bluffsim.rng import AgentRNG
from bluffsim.tournament.runner import REFILL_SHARE

DEFAULT_BATCHES = (1, 64, 1024, 4096, 16384)


@dataclass
class Run:
    """Counts of one timed run."""

    decisions: int
    rounds: int
    games: int
    seconds: float
    cpu_seconds: float = float("nan")

    def rates(self) -> dict[str, float]:
        """Per-second rates (wall clock; decisions also per CPU second)."""
        return {"decisions_per_s": self.decisions / self.seconds,
                "rounds_per_s": self.rounds / self.seconds,
                "games_per_s": self.games / self.seconds,
                "cpu_decisions_per_s": self.decisions / self.cpu_seconds}


def pin_to_one_core() -> tuple[int | None, set[int] | None]:
    """Pin this process to its first allowed CPU; returns (that CPU, the previous CPU set)."""
    if not hasattr(os, "sched_setaffinity"):
        return None, None
    before = os.sched_getaffinity(0)
    cpu = min(before)
    os.sched_setaffinity(0, {cpu})
    return cpu, before


class VectorisedLoop:
    """A full batch of one game under one agent, stepped with autoreset.

    ``fused``: every seat ``random`` played by the engine's ``play_random`` (engine and
    agent in one compiled loop, game-major) instead of ``act`` + ``step`` per step.
    """

    def __init__(self, game_id: str, players: int, batch: int, agent_name: str,
                 fused: bool = False):
        self.game = bluffsim.make(game_id, players)
        self.agent = agents.make(agent_name, self.game)
        self.needs_obs = agents.Traits.of(self.agent.traits).uses_observation
        self.batch = batch
        self.st = self.game.init(np.arange(batch))
        self.next_seed = batch
        self.refill_at = max(1, batch // REFILL_SHARE)
        self.counted = np.zeros(batch, bool)  # finished games already counted
        self.fused = fused
        if fused and (agent_name != "random" or not hasattr(self.game, "play_random")):
            raise ValueError(f"no fused loop for {agent_name!r} on {game_id!r}")

    def steps(self, n: int) -> tuple[int, int, int]:
        """Run ``n`` steps; returns (decisions, rounds finished, games finished)."""
        if self.fused:
            return self.fused_steps(n)
        st, game, decisions, rounds, games = self.st, self.game, 0, 0, 0
        for _ in range(n):
            live = int(self.batch - st.done.sum())
            rng = AgentRNG(st.seed, st.current_player, st.num_decisions)
            obs = game.observe(st) if self.needs_obs else None
            game.step(st, self.agent.act(obs, st.legal_action_mask, rng))
            decisions += live
            rounds += int(st.round_over.sum())
            games += int((st.done & ~self.counted).sum())
            self.counted |= st.done
            done = np.flatnonzero(st.done)
            if done.size >= self.refill_at:  # as the tournament runner: refill in groups
                self.counted[done] = False
                game.reset_games(st, done, np.arange(self.next_seed, self.next_seed + done.size))
                self.next_seed += done.size
        return decisions, rounds, games

    def fused_steps(self, n: int) -> tuple[int, int, int]:
        """``n`` decisions per running game in one compiled call, then the group refill."""
        st = self.st
        out = self.game.play_random(st, n)
        done = np.flatnonzero(st.done)
        if done.size >= self.refill_at:
            self.game.reset_games(st, done, np.arange(self.next_seed, self.next_seed + done.size))
            self.next_seed += done.size
        return out


def vectorised_run(game_id: str, players: int, batch: int, seconds: float,
                   agent_name: str = "random", fused: bool = False) -> Run:
    """One timed run of the vectorised engine (at least ``seconds``)."""
    loop = VectorisedLoop(game_id, players, batch, agent_name, fused)
    loop.steps(1)  # compiled code loaded before the clock starts
    total = [0, 0, 0]
    start, cpu = time.perf_counter(), time.process_time()
    while True:
        for i, v in enumerate(loop.steps(20)):
            total[i] += v
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return Run(*total, elapsed, time.process_time() - cpu)


def vectorised_memory(game_id: str, players: int, batch: int, agent_name: str) -> tuple[float, float]:
    """(state bytes per game, peak MiB allocated during 20 steps) — an untimed run."""
    tracemalloc.start()
    try:
        loop = VectorisedLoop(game_id, players, batch, agent_name)
        loop.steps(20)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return loop.st.nbytes() / batch, peak / 2**20


def reference_run(game_id: str, players: int, seconds: float, agent_name: str = "random") -> Run:
    """One timed run of the scalar reference engine, one game at a time."""
    single = SingleGame(game_id, players)
    agent = None if agent_name == "random" else agents.make(agent_name, single.vectorised())
    gen = random.Random(0)
    seed, decisions, rounds, games = 0, 0, 0, 0
    s = single.new_state(seed)
    start, cpu = time.perf_counter(), time.process_time()
    while True:
        for _ in range(50):
            if s.done:
                games += 1
                rounds += s.num_rounds
                seed += 1
                s = single.new_state(seed)
            legal = single.engine.legal_actions(s)
            a = gen.choice(legal) if agent is None else single.agent_action(agent, s, seed)
            single.engine.apply(s, a)
            decisions += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return Run(decisions, rounds + s.num_rounds, games, elapsed,
                       time.process_time() - cpu)


def openspiel_run(seconds: float) -> Run | None:
    """One timed run of OpenSpiel's liars_dice from a Python loop (None without open-spiel).

    Decisions are player decisions, as ours are (our chance events happen inside
    ``step``); with the dice rolls counted too the loop applies about 3x as many
    actions, kept in ``Run.rounds`` here.  Dice are uniform, so chance nodes draw
    from ``legal_actions()`` as players do.
    """
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("liars_dice", {"numdice": 5, "players": 2})
    probs = {p for _, p in game.new_initial_state().chance_outcomes()}
    assert len(probs) == 1, "liars_dice dice are uniform"
    gen = random.Random(0)
    actions, decisions, games = 0, 0, 0
    start, cpu = time.perf_counter(), time.process_time()
    while True:
        for _ in range(20):
            state = game.new_initial_state()
            while not state.is_terminal():
                decisions += not state.is_chance_node()
                state.apply_action(gen.choice(state.legal_actions()))
                actions += 1
            games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return Run(decisions, actions, games, elapsed, time.process_time() - cpu)


def _stats(runs: list[Run]) -> dict[str, float]:
    rates = pd.DataFrame([r.rates() for r in runs])
    out = {k: float(v) for k, v in rates.median().items()}
    out["min"] = float(rates["decisions_per_s"].min())
    out["max"] = float(rates["decisions_per_s"].max())
    return out


def bench_engines(games: list[str], players: int = 4,
                  batches: tuple[int, ...] | list[int] = DEFAULT_BATCHES, repeats: int = 5,
                  seconds: float = 0.5, agent_names: tuple[str, ...] = ("random",),
                  anchor: bool = True) -> pd.DataFrame:
    """Benchmark table: one row per (game, engine, agents, batch) — module docstring.

    Columns: game, engine, agents, batch, decisions_per_s (median), min, max,
    rounds_per_s, games_per_s, cpu_decisions_per_s, state_bytes, peak_mib, x_reference
    (vs the reference engine with the same agents), fused_decisions_per_s, fused_min,
    fused_max, fused_cpu_decisions_per_s (the fused loop, NaN where none), x_openspiel
    (vs the OpenSpiel anchor; NaN when skipped), players, cpu.
    """
    cpu, before = pin_to_one_core()
    try:
        rows = _bench_rows(games, players, batches, repeats, seconds, agent_names)
        spiel = [openspiel_run(seconds) for _ in range(repeats)] if anchor else [None]
    finally:
        if before is not None:
            os.sched_setaffinity(0, before)
    if spiel[0] is not None:
        rows.append({"game": "liars_dice (OpenSpiel)", "engine": "openspiel python loop",
                     "agents": "random", "batch": 1, **_stats(spiel), "x_reference": np.nan})
    table = pd.DataFrame(rows)
    anchor_rate = (table.loc[table["engine"] == "openspiel python loop", "decisions_per_s"]
                   .max() if spiel[0] is not None else np.nan)
    table["x_openspiel"] = table["decisions_per_s"] / anchor_rate
    table["players"] = players
    table["cpu"] = cpu if cpu is not None else -1
    table.attrs["openspiel"] = "measured" if spiel[0] is not None else \
        "skipped: open-spiel is not installed (pip install -e '.[adapters]')"
    return table


def _bench_rows(games: list[str], players: int, batches: tuple[int, ...] | list[int],
                repeats: int, seconds: float, agent_names: tuple[str, ...]) -> list[dict]:
    rows = []
    for gid in games:
        for name in agent_names:
            ref = _stats([reference_run(gid, players, seconds, name) for _ in range(repeats)])
            rows.append({"game": gid, "engine": "reference", "agents": name, "batch": 1, **ref,
                         "x_reference": 1.0})
            for b in batches:
                vec = _stats([vectorised_run(gid, players, b, seconds, name)
                              for _ in range(repeats)])
                state_bytes, peak = vectorised_memory(gid, players, b, name)
                row = {"game": gid, "engine": "vectorised", "agents": name, "batch": b, **vec,
                       "state_bytes": state_bytes, "peak_mib": peak,
                       "x_reference": vec["decisions_per_s"] / ref["decisions_per_s"]}
                if name == "random" and hasattr(bluffsim.make(gid, players), "play_random"):
                    fused = _stats([vectorised_run(gid, players, b, seconds, name, fused=True)
                                    for _ in range(repeats)])
                    row.update({f"fused_{k}": fused[k] for k in
                                ("decisions_per_s", "min", "max", "cpu_decisions_per_s")})
                rows.append(row)
    return rows
