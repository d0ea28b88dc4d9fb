"""Throughput benchmark: decisions per second of the engines under random play.

For each game, the vectorised engine is timed at each batch size with the
``random`` agent choosing every action and finished games autoreset (so the
batch stays full), and the scalar reference engine is timed on one game at a
time with uniform random legal actions.  Each measure is the median of
``repeats`` runs of at least ``seconds`` seconds, in one process pinned to one
core (``os.sched_setaffinity`` where the OS has it); min and max are kept so
noise on a shared machine stays visible.
"""

from __future__ import annotations

import os
import random
import time
from importlib import import_module

import numpy as np
import pandas as pd

import agents
import bluffsim
from bluffsim.rng import AgentRNG


def pin_to_one_core() -> tuple[int | None, set[int] | None]:
    """Pin this process to its first allowed CPU; returns (that CPU, the previous CPU set)."""
    if not hasattr(os, "sched_setaffinity"):
        return None, None
    before = os.sched_getaffinity(0)
    cpu = min(before)
    os.sched_setaffinity(0, {cpu})
    return cpu, before


def vectorised_rate(game_id: str, players: int, batch: int, seconds: float,
                    agent_name: str = "random") -> float:
    """Decisions/s of the vectorised engine with every seat played by ``agent_name`` (autoreset)."""
    game = bluffsim.make(game_id, players)
    agent = agents.make(agent_name, game)
    needs_obs = agent.traits.get("uses_observation", True)
    st = game.init(np.arange(batch))
    next_seed = batch
    decisions = 0
    start = time.perf_counter()
    while True:
        for _ in range(20):
            live = int(batch - st.done.sum())
            rng = AgentRNG(st.seed, st.current_player, st.num_decisions)
            obs = game.observe(st) if needs_obs else None
            game.step(st, agent.act(obs, st.legal_action_mask, rng))
            decisions += live
            done = np.flatnonzero(st.done)
            if done.size:
                game.reset_games(st, done, np.arange(next_seed, next_seed + done.size))
                next_seed += done.size
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return decisions / elapsed


def reference_rate(game_id: str, players: int, seconds: float) -> float:
    """Decisions/s of the scalar reference engine with uniform random legal actions."""
    game = bluffsim.make(game_id, players)
    ref = import_module(f"bluffsim.games.{game_id}.reference").ReferenceGame(game.rules)
    gen = random.Random(0)
    seed = 0
    s = ref.new_game(seed)
    decisions = 0
    start = time.perf_counter()
    while True:
        for _ in range(200):
            if s.done:
                seed += 1
                s = ref.new_game(seed)
            ref.apply(s, gen.choice(ref.legal_actions(s)))
            decisions += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return decisions / elapsed


def _stats(rates: list[float]) -> dict[str, float]:
    return {"decisions_per_s": float(np.median(rates)), "min": float(min(rates)),
            "max": float(max(rates))}


def bench_engines(games: list[str], players: int = 4, batches: tuple[int, ...] | list[int] = (
        1, 64, 1024, 4096), repeats: int = 5, seconds: float = 0.5,
        agent_names: tuple[str, ...] = ("random",)) -> pd.DataFrame:
    """Benchmark table: one row per (game, engine, agents, batch), median/min/max decisions/s.

    The reference engine is timed with uniform random play; the vectorised one with
    every seat played by each agent of ``agent_names``.
    """
    cpu, before = pin_to_one_core()
    try:
        rows = _bench_rows(games, players, batches, repeats, seconds, agent_names)
    finally:
        if before is not None:
            os.sched_setaffinity(0, before)
    table = pd.DataFrame(rows)
    table["players"] = players
    table["cpu"] = cpu if cpu is not None else -1
    return table


def _bench_rows(games: list[str], players: int, batches: tuple[int, ...] | list[int],
                repeats: int, seconds: float, agent_names: tuple[str, ...]) -> list[dict]:
    rows = []
    for gid in games:
        ref = _stats([reference_rate(gid, players, seconds) for _ in range(repeats)])
        rows.append({"game": gid, "engine": "reference", "agents": "random", "batch": 1, **ref,
                     "x_reference": 1.0})
        for name in agent_names:
            for b in batches:
                vec = _stats([vectorised_rate(gid, players, b, seconds, name)
                              for _ in range(repeats)])
                rows.append({"game": gid, "engine": "vectorised", "agents": name, "batch": b,
                             **vec, "x_reference": vec["decisions_per_s"]
                             / ref["decisions_per_s"]})
    return rows
