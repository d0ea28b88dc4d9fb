"""What a compiled policy's decision costs beyond the engine, in the fused loop: 4-player qdv (or
``--game=veru``, ``--game=legumes``), batch 4,096, ``round_stop`` off, every seat one agent:

- ``random``: the engine alone (the random policy reads no observation);
- ``observe``: the engine and the observation record filled before each decision
  (``observe_row``), then the random policy (a user policy that reads nothing of the record);
- ``heuristic``, ``counting``: the built-in policies on that record.

Decisions per CPU second, each lineup ``--seconds`` long (default 3), ``--repeats`` times
(default 3) in turn; the differences of the reciprocals are each part's time per decision.

    python experiments/fused/observe_cost.py [--game=qdv] [--seconds=3] [--repeats=3]
"""

import sys

import numpy as np
from loop_alone import decisions_per_cpu_second  # beside this script
from numba import njit

import agents
import bluffsim
from agents import CompiledAgent
from agents.random import random_policy


@njit(cache=True)
def observe_only_policy(obs, mask, key, r, params, ctx):
    """The random policy, after the fused loop filled the record it is given."""
    return random_policy(obs, mask, key, r, params, ctx)


class ObserveOnly(CompiledAgent):
    """Plays as ``random``, but as a user's compiled policy: the loop fills its record first."""

    name = "observe-only"
    params: dict = {}
    spec: dict = {}
    policy = observe_only_policy


def main(argv: list[str]) -> None:
    opts = dict(a[2:].partition("=")[::2] for a in argv if a.startswith("--"))
    game = bluffsim.make(opts.get("game", "qdv"), 4)
    seconds, repeats = float(opts.get("seconds", 3)), int(opts.get("repeats", 3))
    lineups = {"random": agents.make("random", game), "observe": ObserveOnly(game),
               "heuristic": agents.make("heuristic", game), "counting": agents.make("counting", game)}
    rates: dict[str, list[float]] = {name: [] for name in lineups}
    for _ in range(repeats):
        for name, agent in lineups.items():
            rates[name].append(decisions_per_cpu_second(game, [agent] * 4, seconds))
    for name, got in rates.items():
        med = float(np.median(got))
        print(f"{name:10s} {med:12,.0f} decisions/s ({min(got):,.0f} – {max(got):,.0f}), "
              f"{1e9 / med:6.0f} ns a decision")


if __name__ == "__main__":
    main(sys.argv[1:])
