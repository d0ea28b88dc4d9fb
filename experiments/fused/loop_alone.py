"""The fused loop alone (no runner): 4-player qdv (or ``--game=veru``, ``--game=legumes``),
every seat one agent, batch 4,096, ``round_stop`` off, finished games refilled in groups;
decisions per CPU second.

    python experiments/fused/loop_alone.py [--game=veru|legumes] random heuristic counting
"""

import sys
import time
from typing import Any

import numpy as np

import agents
import bluffsim
from agents.fused import fused_lineup


def decisions_per_cpu_second(game: Any, lineup_agents: list[Any], seconds: float = 3.0) -> float:
    """Fused decisions per CPU second of ``lineup_agents`` seated in that order in 4,096 games
    of ``game`` for ``seconds`` of CPU time, finished games redealt 128 or more at a time."""
    lineup = fused_lineup(game, lineup_agents)
    st = game.init(np.arange(4096))
    seats = np.tile(np.arange(len(lineup_agents)), (4096, 1))
    nxt = 4096
    lineup.play(st, seats, 20, round_stop=False)  # compiled code loaded before the clock
    total, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        total += lineup.play(st, seats, 20, round_stop=False)[0]
        done = np.flatnonzero(st.done)
        if done.size >= 128:
            game.reset_games(st, done, np.arange(nxt, nxt + done.size))
            nxt += done.size
    return total / (time.process_time() - start)


def main(args: list[str]) -> None:
    game_id = "qdv"
    if args and args[0].startswith("--game="):
        game_id = args.pop(0).partition("=")[2]
    game = bluffsim.make(game_id, 4)
    for name in args:
        rate = decisions_per_cpu_second(game, [agents.make(name, game)] * 4)
        print(f"{name}: {rate:,.0f} decisions per CPU second")


if __name__ == "__main__":
    main(sys.argv[1:])
