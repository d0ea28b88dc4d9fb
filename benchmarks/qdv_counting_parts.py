"""Where qdv ``counting``'s time goes, part by part, on observations of real games.

Plays 4-player qdv with ``counting`` in the even seats and ``heuristic`` in the odd ones (batch
512, finished games replaced) and keeps every start-choice and bidding observation as a record;
then times, over all of them, the policy's parts as the fused loop runs them
(``agents/qdv/counting_kernel.py``): ``visible_row`` (the pool I cannot see), ``beliefs_row``
(that, plus the memo lookups and the bid-evidence tilts of each fruit's posterior) and
``decide_row`` (that, plus the called posterior and every legal action's expected value), each
with the evidence on (the shipped agent) and off.  Nanoseconds a decision, median of
``--repeats``::

    python -m benchmarks.qdv_counting_parts --steps 200 --repeats 5
"""

from __future__ import annotations

import argparse
import itertools
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

import agents
import bluffsim
from agents.policy import mask_bytes, observation_records
from agents.qdv import counting_kernel as K
from benchmarks.engines import played_decisions
from bluffsim.rng import AgentRNG


def recorded_decisions(steps: int) -> tuple[np.ndarray, np.ndarray]:
    """(observation records, uint8 legal masks) of the start and bid decisions of ``steps``
    steps of 512 games (``played_decisions``), counting in the even seats against heuristic."""
    game = bluffsim.make("qdv", 4)
    counting, heuristic = agents.make("counting", game), agents.make("heuristic", game)

    def choose(obs: dict, st: Any, rng: AgentRNG) -> np.ndarray:
        return np.where(st.current_player % 2 == 0, counting.act(obs, st.legal_action_mask, rng),
                        heuristic.act(obs, st.legal_action_mask, rng))

    records, masks = [], []
    for st, obs in itertools.islice(played_decisions(game, 512, choose), steps):
        keep = ~st.done & ((st.phase == K.PHASE_START) | (st.phase == K.PHASE_BID))
        records.append(observation_records(game, {k: v[keep] for k, v in obs.items()}))
        masks.append(mask_bytes(st.legal_action_mask[keep]))
    return np.concatenate(records), np.concatenate(masks)


@njit
def visible_rows(records, ctx, out):  # noqa: ANN001, ANN201
    """``visible_row`` of every record."""
    scratch = ctx[0]
    for b in range(records.shape[0]):
        o = records[b]
        out[b] = K.visible_row(o, max(np.int64(o.seat), 0), scratch[0])


@njit
def beliefs_rows(records, masks, prm, ctx, out):  # noqa: ANN001, ANN201
    """``beliefs_row`` of every record."""
    scratch, lc, gkeys, buckets, cdfs, belows, fills = ctx
    for b in range(records.shape[0]):
        out[b] = K.beliefs_row(records[b], masks[b], scratch[0], lc, prm, gkeys, buckets, cdfs,
                               belows, fills)[0]


@njit
def decide_rows(records, masks, prm, ctx, gain_id, punish0, out):  # noqa: ANN001, ANN201
    """``decide_row`` of every record."""
    scratch, lc, gkeys, buckets, cdfs, belows, fills = ctx
    for b in range(records.shape[0]):
        out[b] = K.decide_row(records[b], masks[b], scratch[0], lc, prm, gkeys, buckets, cdfs,
                              belows, fills, gain_id, punish0)


def ns_per_row(run: Callable[[], None], rows: int, repeats: int) -> float:
    """Median nanoseconds a row of ``run`` (after one warm call)."""
    run()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return float(np.median(times)) / rows * 1e9


def main() -> None:
    """Print one line per part."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    records, masks = recorded_decisions(args.steps)
    game = bluffsim.make("qdv", 4)
    agent = agents.make("counting", game)
    rules = game._rec[0]
    out = np.empty(records.shape[0], np.int64)
    print(f"{records.shape[0]:,} decisions ({np.mean(records['phase'] == K.PHASE_BID):.1%} bids)")
    for evidence in (True, False):
        prm = agent.params_row()
        prm[K.P_EVIDENCE] = float(evidence)
        while True:  # fill the memo tables first: a decision that finds one full stops early
            ctx = agent.context()
            decide_rows(records, masks, prm, ctx, rules["gain_id"], rules["punish0"], out)
            if not (out == -1).any():
                break
            agent.grow()
        parts = {"visible_row": lambda c=ctx: visible_rows(records, c, out),
                 "beliefs_row": lambda p=prm, c=ctx: beliefs_rows(records, masks, p, c, out),
                 "decide_row": lambda p=prm, c=ctx: decide_rows(records, masks, p, c,
                                                                rules["gain_id"],
                                                                rules["punish0"], out)}
        for name, run in parts.items():
            print(f"evidence {'on ' if evidence else 'off'} {name}: "
                  f"{ns_per_row(run, records.shape[0], args.repeats):,.0f} ns a decision")


if __name__ == "__main__":
    main()
