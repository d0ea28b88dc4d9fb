"""Seconds to the end of the first fused call at each player count, from a cold numba cache.

For each game, a fresh process with an empty cache directory (``NUMBA_CACHE_DIR``) builds, at
each player count in turn, a lineup of ``counting``, ``heuristic`` and ``random`` seats and plays
64 games through the fused loop: the first count pays for compiling the game's kernels, each
later one for what its own types add (nothing when the records do not depend on the count)::

    python -m benchmarks.compile_tables --players 3,4,5
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

GAMES = ("qdv", "legumes", "veru")
SEATS = ("counting", "heuristic", "random")


def first_calls(game_id: str, players: list[int]) -> list[float]:
    """Seconds of building and playing the first fused call at each count, in this process."""
    import bluffsim
    from agents import make as make_agent
    from agents.fused import fused_lineup

    out = []
    for p in players:
        start = time.perf_counter()
        game = bluffsim.make(game_id, p)
        fused = fused_lineup(game, [make_agent(SEATS[i % len(SEATS)], game) for i in range(p)])
        fused.play(game.init(np.arange(64)), np.tile(np.arange(p), (64, 1)), 10_000,
                   round_stop=False)
        out.append(time.perf_counter() - start)
    return out


def cold_process(game_id: str, players: list[int]) -> list[float]:
    """``first_calls`` in a fresh process with an empty numba cache directory."""
    with tempfile.TemporaryDirectory() as cache:
        code = (f"from benchmarks.compile_tables import first_calls; "
                f"print(*first_calls({game_id!r}, {players!r}))")
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                              text=True, check=True)
    return [float(v) for v in done.stdout.split()]


def main() -> None:
    """Print each game's seconds per player count."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", default="3,4,5", help="player counts, in order (default 3,4,5)")
    players = [int(p) for p in ap.parse_args().players.split(",")]
    print("| game | " + " | ".join(f"{p} players" for p in players) + " |")
    print("|---|" + "---:|" * len(players))
    for game_id in GAMES:
        secs = cold_process(game_id, players)
        print(f"| {game_id} | " + " | ".join(f"{s:.1f}" for s in secs) + " |")


if __name__ == "__main__":
    main()
