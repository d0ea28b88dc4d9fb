"""An agent's decisions per second at batch 1024, engine included, and the agent alone.

Every seat is played by the agent (default ``counting``); finished games are refilled in
groups.  Rates are per CPU second of this process (``time.process_time``), after a warm-up
that fills the agent's memo tables, so a loaded shared machine does not deflate them as
much as wall time.

    python experiments/ladders/speed.py --game qdv [--players 4] [--agent counting] [--seconds 10]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import agents  # noqa: E402
import bluffsim  # noqa: E402
from bluffsim.rng import AgentRNG  # noqa: E402


def measure(game_id: str, players: int, seconds: float, agent_name: str = "counting",
            batch: int = 1024, warmup: float = 3.0) -> dict[str, float]:
    """{"total": decisions per CPU second with the engine, "agent": the agent's share alone}."""
    game = bluffsim.make(game_id, num_players=players)
    agent = agents.make(agent_name, game)
    st = game.init(np.arange(batch, dtype=np.uint64))
    next_seed = batch
    t_agent = t_total = 0.0
    decisions = 0
    start = time.process_time()
    warm = True
    while True:
        now = time.process_time()
        if warm and now - start > warmup:
            warm, t_agent, t_total, decisions = False, 0.0, 0.0, 0
        if not warm and t_total > seconds:
            break
        t0 = time.process_time()
        obs = game.observe(st)
        live = ~st.done
        rng = AgentRNG(st.seed, st.current_player, st.num_decisions)
        t1 = time.process_time()
        a = agent.act(obs, st.legal_action_mask, rng)
        t2 = time.process_time()
        game.step(st, np.where(live, a, -1))
        done = np.flatnonzero(st.done)
        if done.size >= batch // 32:
            game.reset_games(st, done, np.arange(next_seed, next_seed + done.size, dtype=np.uint64))
            next_seed += done.size
        t_agent += t2 - t1
        t_total += time.process_time() - t0
        decisions += int(live.sum())
    return {"total": decisions / t_total, "agent": decisions / t_agent}


def main() -> None:
    """Command line (module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="qdv", choices=bluffsim.list_games())
    ap.add_argument("--players", type=int, nargs="+", default=[4])
    ap.add_argument("--agent", default="counting")
    ap.add_argument("--seconds", type=float, default=10.0)
    a = ap.parse_args()
    for p in a.players:
        r = measure(a.game, p, a.seconds, a.agent)
        print(f"{a.game} {p}p {a.agent}, batch 1024: {r['total']:,.0f} decisions/s engine included; "
              f"agent alone {r['agent']:,.0f} decisions/s")


if __name__ == "__main__":
    main()
