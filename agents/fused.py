"""Built-in agents inside the compiled loop: a lineup of compiled per-row policies played
by one numba loop over the games, engine and agents fused (issue 24).

The game-independent part lives here; each game that has compiled policies provides a
module ``agents.<game>.fused`` with

- ``POLICIES``: ``{agent class: (kind, params(agent) -> float row, act)}``: the built-in
  agents it compiles, the parameter row each policy reads, and the ``act`` it reproduces;
- ``tables(game)``: a tuple of arrays its kernel reads after its arguments (qdv: deck
  counts, the counting agent's memo tables), fetched at each call (memo tables grow);
- ``grow(game)``: make room in those tables (the kernel asked for it);
- ``play_seats_kernel(data, hot, rules, decisions, counts, seat_agent, kinds, params,
  round_stop, first_game, resume, *tables)``: the fused loop from game ``first_game`` on
  (``resume``: continuing a call that stopped there, whose ``round_over`` stays), adding
  to ``counts``; returns -1 when done, ``b >= 0`` when game ``b``'s policy chose an
  illegal action, ``-2 - b`` when a memo table ran full at game ``b`` (nothing applied
  there: ``play`` grows the tables and resumes at ``b``).

``kinds[j]`` (``RANDOM``, ``HEURISTIC``, ...) picks the policy of lineup member ``j`` and
``params[j]`` holds its parameters as float64 (its ``POLICIES`` entry's row);
``seat_agent[b, s]`` is the lineup member in seat ``s`` of game ``b`` (the runner's
``Schedule.seat_lineup``).  Each policy makes exactly the decisions of its numpy agent
(same streams, same float operations: ``tests/test_fused_agents.py``), so a tournament
played here gives the same ``games``/``rounds`` records as the stepped runner.

An agent has a compiled policy only when its class is exactly a built-in class listed in
``POLICIES`` and its ``act`` is still the one listed there (a subclass, a custom
``"module:Class"`` agent, ``learned`` or a patched ``act`` has none):
``fused_lineup`` returns None for a lineup with any other agent, and the runner then
steps the game with each agent's ``act`` as before.

Measured (qdv, 4 players, one worker, batch 4,096, ``nice``d on a 2-core machine shared
with other jobs, load 5-8; 3 runs per path alternated, median (min-max)):

| ``bluffsim run`` end to end, decisions per second | stepped | fused |
|---|---:|---:|
| 2 heuristic + 2 random, 200,000 games (9.59 M decisions), wall | 403 k (356-493 k) | 785 k (763 k-1.05 M) |
| same, per CPU second | 536 k (529-544 k) | 1.18 M (1.15-1.19 M) |
| same, play phase only (manifest ``play_seconds``), wall | 542 k (479-680 k) | 1.65 M (1.60-2.32 M) |
| 2 heuristic + 2 counting, 40,000 games (3.04 M decisions), wall | 168 k (161-179 k) | 194 k (193-195 k) |
| same, per CPU second | 269 k (263-280 k) | 299 k (297-301 k) |

Commands: ``python experiments/fused/timed_run.py stepped|fused
experiments/fused/qdv_2h2r.toml --games 200000 --out DIR --force --quiet`` (and
``qdv_2h2c.toml --games 40000``).  End to end, about 4 CPU s per process are imports,
compile-cache loading, merge and report.  The fused loop alone
(``experiments/fused/loop_alone.py``, every seat one agent, per CPU s): random 10.7 M,
heuristic 4.5 M, counting 0.26 M: counting's own computation (``decide_kernel``, about
3-4 us a decision) is what bounds lineups with counting seats.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

import numpy as np

# policy kinds, shared by every game's ``play_seats_kernel``
RANDOM, HEURISTIC, COUNTING = 0, 1, 2

def fused_module(game_id: str) -> Any | None:
    """The game's ``agents.<game>.fused`` module (found by that name: a game opts in by shipping
    one), or None when it has no compiled policies."""
    if not game_id.isidentifier():
        return None
    name = f"agents.{game_id}.fused"
    try:
        return importlib.import_module(name) if importlib.util.find_spec(name) else None
    except ModuleNotFoundError:  # no agents.<game> package at all
        return None


class FusedLineup:
    """A lineup whose every member has a compiled policy for the game: ``play`` advances a
    batch with all of them in one compiled call."""

    def __init__(self, game: Any, module: Any, kinds: np.ndarray, params: np.ndarray):
        self.game, self.module, self.kinds, self.params = game, module, kinds, params

    def play(self, st: Any, seat_agent: np.ndarray, decisions: int,
             round_stop: bool = True) -> tuple[int, int, int, int]:
        """Each running game of ``st`` plays up to ``decisions`` decisions in a row with the
        policy of the lineup member in the current seat (``seat_agent``: int[B, P]), stopping
        when it ends and, with ``round_stop``, when a round ends (``round_over`` is then set,
        so the caller can record the round before the next one overwrites it).  Returns
        (decisions made, rounds finished, games ended, first game whose policy chose an
        illegal action or -1; the kernel stops there, that action not applied)."""
        counts = np.zeros(3, np.int64)
        seats = np.ascontiguousarray(seat_agent, dtype=np.int64)
        first, resume = 0, False
        while True:
            code = self.module.play_seats_kernel(
                st.data, st.hot, self.game._rec, int(decisions), counts, seats, self.kinds,
                self.params, bool(round_stop), first, resume,
                *self.module.tables(self.game))
            if code > -2:
                return int(counts[0]), int(counts[1]), int(counts[2]), int(code)
            first, resume = -2 - code, True  # a memo table ran full there: grow, resume
            self.module.grow(self.game)


def fused_lineup(game: Any, lineup: list[Any]) -> FusedLineup | None:
    """A ``FusedLineup`` for the agents of ``lineup`` (built for ``game``), or None when the
    game has no fused loop or some agent has no compiled policy for it."""
    module = fused_module(getattr(game, "game_id", ""))
    if module is None or not hasattr(game, "_rec"):
        return None
    kinds = np.zeros(len(lineup), np.int64)
    rows = []
    for j, agent in enumerate(lineup):
        entry = module.POLICIES.get(type(agent))
        if entry is None or type(agent).act is not entry[2] or "act" in vars(agent):
            return None
        kinds[j] = entry[0]
        rows.append(np.asarray(entry[1](agent), np.float64))
    params = np.zeros((len(lineup), max(1, max(r.size for r in rows))), np.float64)
    for j, row in enumerate(rows):
        params[j, :row.size] = row
    return FusedLineup(game, module, kinds, params)
