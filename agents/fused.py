"""Built-in agents inside the compiled loop: a lineup of compiled per-row policies played
by one numba loop over the games, engine and agents fused (issue 24).

The game-independent part lives here; each game that has compiled policies provides a
module ``agents.<game>.fused`` with

- ``POLICIES``: ``{agent class: (kind, parameter names, act)}``: the built-in agents it
  compiles, with the ``act`` method each policy reproduces;
- ``tables(game)``: a tuple of constant arrays its kernel reads (qdv: the deck's kinds);
- ``play_seats_kernel(data, hot, rules, decisions, counts, seat_agent, kinds, params,
  round_stop, *tables)``: the fused loop; returns the first game whose policy chose an
  illegal action, or -1.

``kinds[j]`` (``RANDOM``, ``HEURISTIC``, ...) picks the policy of lineup member ``j`` and
``params[j]`` holds its parameters as float64, in the order its ``POLICIES`` entry names;
``seat_agent[b, s]`` is the lineup member in seat ``s`` of game ``b`` (the runner's
``Schedule.seat_lineup``).  Each policy makes exactly the decisions of its numpy agent
(same streams, same float operations: ``tests/test_fused_agents.py``), so a tournament
played here gives the same ``games``/``rounds`` records as the stepped runner.

An agent has a compiled policy only when its class is exactly a built-in class listed in
``POLICIES`` and its ``act`` is still the one listed there (a subclass, a custom
``"module:Class"`` agent, ``learned`` or a patched ``act`` has none):
``fused_lineup`` returns None for a lineup with any other agent, and the runner then
steps the game with each agent's ``act`` as before.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

# policy kinds, shared by every game's ``play_seats_kernel``
RANDOM, HEURISTIC, COUNTING = 0, 1, 2
MAX_PARAMS = 8  # width of the ``params`` rows

# game id -> module with the compiled policies and the fused loop
MODULES = {"qdv": "agents.qdv.fused"}


def fused_module(game_id: str) -> Any | None:
    """The game's ``agents.<game>.fused`` module, or None when it has no compiled policies."""
    name = MODULES.get(game_id)
    return importlib.import_module(name) if name else None


class FusedLineup:
    """A lineup whose every member has a compiled policy for the game: ``play`` advances a
    batch with all of them in one compiled call."""

    def __init__(self, game: Any, module: Any, kinds: np.ndarray, params: np.ndarray):
        self.game, self.module, self.kinds, self.params = game, module, kinds, params
        self.tables = tuple(module.tables(game))

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
        bad = self.module.play_seats_kernel(st.data, st.hot, self.game._rec, int(decisions),
                                            counts, seats, self.kinds, self.params,
                                            bool(round_stop), *self.tables)
        return int(counts[0]), int(counts[1]), int(counts[2]), int(bad)


def fused_lineup(game: Any, lineup: list[Any]) -> FusedLineup | None:
    """A ``FusedLineup`` for the agents of ``lineup`` (built for ``game``), or None when the
    game has no fused loop or some agent has no compiled policy for it."""
    module = fused_module(getattr(game, "game_id", ""))
    if module is None or not hasattr(game, "_rec"):
        return None
    kinds = np.zeros(len(lineup), np.int64)
    params = np.zeros((len(lineup), MAX_PARAMS), np.float64)
    for j, agent in enumerate(lineup):
        entry = module.POLICIES.get(type(agent))
        if entry is None or type(agent).act is not entry[2] or "act" in vars(agent):
            return None
        kinds[j], names = entry[0], entry[1]
        params[j, :len(names)] = [float(agent.config[n]) for n in names]
    return FusedLineup(game, module, kinds, params)
