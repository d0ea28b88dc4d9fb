"""The fused loop alone (no runner): 4-player qdv (or ``--game=veru``, ``--game=legumes``),
every seat one agent, batch 4,096, ``round_stop`` off, finished games refilled in groups;
decisions per CPU second.

    python experiments/fused/loop_alone.py [--game=veru|legumes] random heuristic counting
"""

import sys
import time

import numpy as np

import agents
import bluffsim
from agents.fused import fused_lineup

args = sys.argv[1:]
game_id = "qdv"
if args and args[0].startswith("--game="):
    game_id = args.pop(0).partition("=")[2]
game = bluffsim.make(game_id, 4)
for name in args:
    lineup = fused_lineup(game, [agents.make(name, game)] * 4)
    st = game.init(np.arange(4096))
    seats = np.zeros((4096, 4), np.int64)
    nxt = 4096
    lineup.play(st, seats, 20, round_stop=False)  # compiled code loaded before the clock
    total, start = 0, time.process_time()
    while time.process_time() - start < 3.0:
        total += lineup.play(st, seats, 20, round_stop=False)[0]
        done = np.flatnonzero(st.done)
        if done.size >= 128:
            game.reset_games(st, done, np.arange(nxt, nxt + done.size))
            nxt += done.size
    print(f"{name}: {total / (time.process_time() - start):,.0f} decisions per CPU second")
