"""``Game.observe`` of each compiled game: microseconds a call at batch 1 and at batch 4,096.

For each game at 4 players the script deals ``batch`` games, plays five decisions (the first
legal action), then times ``observe`` on that state: microseconds a call, median (min – max) of
``--repeats`` runs of ``--calls`` calls (a hundredth as many at batch 4,096, at least 3)::

    python -m benchmarks.observe --repeats 5
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import bluffsim

GAMES = ("qdv", "legumes", "veru")
BATCHES = (1, 4096)


def observe_us(game_id: str, batch: int, calls: int, repeats: int) -> list[float]:
    """Microseconds a ``observe`` call of ``batch`` games of ``game_id`` (4 players), one figure
    a repeat."""
    game = bluffsim.make(game_id, 4)
    st = game.init(np.arange(batch))
    for _ in range(5):
        game.step(st, np.where(st.done, -1, np.argmax(st.legal_action_mask, axis=1)))
    game.observe(st)   # compiled (or loaded) before timing
    out = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            game.observe(st)
        out.append((time.perf_counter() - start) / calls * 1e6)
    return out


def main() -> None:
    """Print a markdown table: game, batch, microseconds a call (median, min – max)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="calls a repeat at batch 1")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print("| game | batch | µs a call, median (min – max) |")
    print("|---|---:|---|")
    for game_id in GAMES:
        for batch in BATCHES:
            calls = args.calls if batch == 1 else max(args.calls // 100, 3)
            us = observe_us(game_id, batch, calls, args.repeats)
            print(f"| {game_id} | {batch} | {statistics.median(us):.1f} "
                  f"({min(us):.1f} – {max(us):.1f}) |")


if __name__ == "__main__":
    main()
