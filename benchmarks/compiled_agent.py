"""A user's compiled agent in the fused loop against the built-in heuristic, in one run.

Every seat of a batch of games is the named agent; the lineup is played by the fused loop
(``agents.fused``) with autoreset, as ``bluffsim bench``'s fused rows, and each measure is the
median (min – max) of ``--repeats`` runs of at least ``--seconds``, the agents alternating run
by run so a busy machine slows both alike::

    python -m benchmarks.compiled_agent --players 4 --batch 4096 --repeats 5 --seconds 1

Agents: ``heuristic`` (built-in, compiled), ``doubter`` (``experiments/my_compiled_agent.py``,
a ``CompiledAgent``) on qdv, and ``liar-caller`` (``tests/compiled_agents.py``) on the fourth
game when ``BLUFFSIM_GAMES_PATH`` holds ``tests/extra_games``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import agents
import bluffsim
from agents.fused import fused_lineup
from benchmarks.engines import pin_to_one_core


def lineup_rate(game, agent, batch: int, seconds: float) -> float:  # noqa: ANN001
    """Decisions per second of ``agent`` in every seat, fused, for at least ``seconds``."""
    players = game.num_players
    fused = fused_lineup(game, [agent] * players)
    if fused is None:
        raise SystemExit(f"{agent.name}: no compiled policy")
    st = game.init(np.arange(batch))
    seats = np.zeros((batch, players), np.int64)
    next_seed, made, start = batch, 0, time.perf_counter()
    while True:
        made += fused.play(st, seats, 64, round_stop=False)[0]
        done = np.flatnonzero(st.done)
        if done.size:
            game.reset_games(st, done, np.arange(next_seed, next_seed + done.size))
            next_seed += done.size
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return made / elapsed


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--batch", type=int, default=4096)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--seconds", type=float, default=1.0)
    args = p.parse_args(argv)
    pin_to_one_core()
    from experiments.my_compiled_agent import Doubter

    game = bluffsim.make("qdv", args.players)
    tables = {"qdv heuristic (built-in)": agents.make("heuristic", game),
              "qdv doubter (CompiledAgent)": Doubter(game)}
    if "liarsdice" in bluffsim.list_games():
        from tests.compiled_agents import LiarCaller

        dice = bluffsim.make("liarsdice", args.players)
        tables["liarsdice liar-caller (CompiledAgent)"] = LiarCaller(dice)
    rates: dict[str, list[float]] = {k: [] for k in tables}
    for agent in tables.values():  # compile and warm up
        lineup_rate(agent.game, agent, args.batch, 0.2)
    for _ in range(args.repeats):
        for label, agent in tables.items():
            rates[label].append(lineup_rate(agent.game, agent, args.batch, args.seconds))
    base = statistics.median(rates["qdv heuristic (built-in)"])
    print("| agents (every seat) | decisions/s | min – max | × built-in heuristic |")
    print("|---|---:|---:|---:|")
    for label, r in rates.items():
        m = statistics.median(r)
        print(f"| {label} | {m:,.0f} | {min(r):,.0f} – {max(r):,.0f} | {m / base:.2f} |")


if __name__ == "__main__":
    main()
