"""CPU cost of the text protocol per decision: building a prompt and parsing an answer.

For each game, the decisions of random play (3 players, 64 games, seeds 0..63) are collected;
then every prompt is built, and an answer (a legal action's notation) is parsed twice: "cold"
(a new protocol meeting each position for the first time) and "warm" (again, as in a long run, where
positions repeat).  Prints milliseconds per decision, best of ``--repeats``, and a SHA-256 over
every prompt and parse result, so a speed-up can be checked to change no text.

    python experiments/llm/text_cost.py
    python experiments/llm/text_cost.py --games qdv --decisions 800
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import bluffsim  # noqa: E402
from bluffsim.text.protocol import TextProtocol  # noqa: E402
from tests.games import random_actions  # noqa: E402

Row = tuple[dict[str, np.ndarray], np.ndarray]


def decisions(game_id: str, players: int, n: int) -> list[Row]:
    """(observation row, legal mask) of up to ``n`` decisions of random play."""
    game = bluffsim.make(game_id, players)
    st = game.init(np.arange(64))
    out: list[Row] = []
    while len(out) < n and not st.done.all():
        obs = game.observe(st)
        out += [({k: v[b].copy() for k, v in obs.items()}, st.legal_action_mask[b].copy())
                for b in np.flatnonzero(~st.done & st.legal_action_mask.any(axis=1))]
        game.step(st, random_actions(game, st))
    return out[:n]


def per_decision_ms(fn, rows: list[Row]) -> float:  # noqa: ANN001
    """Milliseconds per row of ``fn(obs, legal)`` over ``rows``."""
    t = time.perf_counter()
    for obs, legal in rows:
        fn(obs, legal)
    return (time.perf_counter() - t) / len(rows) * 1e3


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", nargs="+", default=["qdv", "legumes", "veru"])
    p.add_argument("--players", type=int, default=3)
    p.add_argument("--decisions", type=int, default=400)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    digest = hashlib.sha256()
    for game_id in args.games:
        rows = decisions(game_id, args.players, args.decisions)
        times = {"prompt": [], "parse cold": [], "parse warm": []}
        for _ in range(args.repeats):
            proto = TextProtocol(bluffsim.make(game_id, args.players))   # nothing remembered
            answers = {id(legal): proto.legal_texts(legal)[len(proto.legal_texts(legal)) // 2]
                       for _, legal in rows}

            def parse(obs: dict, legal: np.ndarray, proto=proto, answers=answers):  # noqa: ANN202
                return proto.parse(answers[id(legal)], legal, obs)

            times["prompt"].append(per_decision_ms(proto.messages, rows))
            times["parse cold"].append(per_decision_ms(parse, rows))
            times["parse warm"].append(per_decision_ms(parse, rows))
        for obs, legal in rows:
            digest.update(repr((proto.messages(obs, legal), parse(obs, legal))).encode())
        print(f"{game_id}: {len(rows)} decisions; ms per decision (best of {args.repeats}): "
              + ", ".join(f"{k} {min(v):.3f}" for k, v in times.items()))
    print(f"digest of every prompt and parse: {digest.hexdigest()}")


if __name__ == "__main__":
    main()
