"""Which games are played: seeds from the master seed, seatings, and shards.

Game ``i`` (0-based, global) is played with

* ``deal(i) = i // P`` if duplicate deals are on (every deal replayed under all
  ``P`` rotations of the lineup), else ``i``;
* seed ``word(master, SCHEDULE, deal(i))`` (a 64-bit counter-based hash);
* rotation ``i % P`` if seat rotation is on, else 0: lineup entry ``j`` sits in
  seat ``(j + rotation) % P``, so over ``P`` consecutive games every agent sits
  in every seat once;
* with ``permute`` instead, seating ``i % P!`` of all ``P!`` orders
  (``itertools.permutations``): lineup entry ``j`` sits in seat ``perm[j]``, so
  every agent also meets every other in every relative position — needed where
  the neighbour order matters (in veru the player after a reckless one profits).
  Duplicate deals then replay each deal under all ``P!`` seatings.
* with ``balanced`` (``[run] seating = "balanced"``), seating ``i % S`` of a
  neighbour-balanced design of ``S`` seatings (``balanced_seatings``): every
  agent sits in every seat equally often, immediately after (and so
  immediately before) every other agent equally often around the table, and
  even between every ordered pair of others (previous, next) equally often.
  ``S`` = 2, 6, 12, 60, 60 for ``P`` = 2…6, against ``P!`` = 2, 6, 24, 120, 720.
  Duplicate deals replay each deal under all ``S``.

How the design was chosen.  A row-complete Latin square (Williams design, ``P``
or ``2P`` rows) balances the *linear* order of its rows, but the table is a
circle (seat ``P-1`` is followed by seat 0; turn order may also run
backwards), and each row's wrap-around pair then counts twice (in a 4-player
Williams square agent 0 has agent 2 after it twice, 1 and 3 once).  Around the
circle, balancing successors alone needs ``P(P-1)`` seatings and is possible
(20 at 5 players), but measured on veru, 5 players (counting, heuristic,
random, heuristic, random; jokers = 6; 12,000 games) it still misleads:
counting won 0.323 with it, 0.369 with all 120 seatings, and 0.357 with this
design, which also balances each agent's (previous, next) pair.  So the design
is: the directed Hamiltonian cycles of the table that contain every directed
path ``b -> a -> c`` of three distinct agents exactly once (an exact cover,
found by a deterministic backtracking search, ``neighbourhood_cycles``; for
``P <= 4`` that is every cycle), each cycle laid at ``P/g`` rotations
``o, o+g, …`` with ``g = gcd(#cycles, P)`` and ``o`` chosen so that every
agent sits in every seat equally often (``S = lcm(#cycles, P)``).  Balance is
exact over every multiple of ``S`` games; tests/test_seating.py checks it on
the runner's schedule for ``P = 2…6``.

With a **pool** (``lineups`` set: more agents than seats, ``bluffsim.tournament.pool``)
the games run in blocks of one seating cycle: block ``c = i // S`` (``S`` seatings)
plays lineup ``c % L`` of the ``L`` lineups, seated by seating ``i % S``; so
every lineup plays every seating equally once ``games`` is a multiple of ``L·S``,
and duplicate deals replay a deal under the ``S`` seatings of one lineup.
``seat_lineup`` then gives pool indices.

Shards are consecutive ranges of ``shard_games`` games; results never depend on
how shards are distributed over workers or executors.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

import numpy as np

from bluffsim import rng

SCHEDULE_STREAM = rng.Stream.SCHEDULE


@dataclass(frozen=True)
class Schedule:
    """Seeds and seatings of an experiment's games."""

    master_seed: int
    num_games: int
    num_players: int
    rotate: bool = True
    duplicate: bool = False
    shard_games: int = 5000
    permute: bool = False
    lineups: tuple[tuple[int, ...], ...] | None = None   # pool lineups (pool indices), or None
    balanced: bool = False    # the neighbour-balanced design (overrides rotate and permute)

    @property
    def seatings(self) -> np.ndarray:
        """int8[S, P]: seat of each lineup entry in each seating of the cycle."""
        p = self.num_players
        if self.balanced:
            return balanced_seatings(p)
        if self.permute:
            return np.asarray(list(itertools.permutations(range(p))), dtype=np.int8)
        if self.rotate:
            return ((np.arange(p)[None, :] + np.arange(p)[:, None]) % p).astype(np.int8)
        return np.arange(p, dtype=np.int8)[None, :]

    @property
    def num_shards(self) -> int:
        """Number of shards."""
        return -(-self.num_games // self.shard_games)

    def shard_range(self, shard: int) -> range:
        """Global game indices of shard ``shard``."""
        lo = shard * self.shard_games
        return range(lo, min(lo + self.shard_games, self.num_games))

    def deals(self, games: np.ndarray) -> np.ndarray:
        """Deal index of each game (shared by the seatings of a duplicate deal)."""
        return games // len(self.seatings) if self.duplicate else games

    def seeds(self, games: np.ndarray) -> np.ndarray:
        """uint64 game seeds."""
        return rng.words(np.uint64(self.master_seed), SCHEDULE_STREAM,
                         self.deals(np.asarray(games)).astype(np.uint64), 0)

    def rotations(self, games: np.ndarray) -> np.ndarray:
        """Index of each game's seating in the cycle (``seatings``)."""
        return np.asarray(games) % len(self.seatings)

    def lineup_index(self, games: np.ndarray) -> np.ndarray:
        """Index of each game's pool lineup in ``lineups`` (0 without a pool)."""
        if self.lineups is None:
            return np.zeros(np.asarray(games).shape, np.int64)
        return (np.asarray(games) // len(self.seatings)) % len(self.lineups)

    def seat_lineup(self, games: np.ndarray) -> np.ndarray:
        """int[G, P]: lineup index (pool index with a pool) of the agent in each seat of each game."""
        seats = self.seatings[self.rotations(games)]          # [G, P]: lineup j -> seat
        rows = np.arange(seats.shape[0])[:, None]
        if self.lineups is None:
            out = np.empty_like(seats)
            out[rows, seats] = np.arange(self.num_players, dtype=np.int8)[None, :]
            return out
        members = np.asarray(self.lineups, dtype=np.int16)[self.lineup_index(games)]  # [G, P]
        out = np.empty(seats.shape, np.int16)
        out[rows, seats] = members
        return out


MAX_BALANCED_PLAYERS = 6   # the games seat at most 6; the search grows fast beyond


@functools.cache
def neighbourhood_cycles(p: int) -> tuple[tuple[int, ...], ...]:
    """Directed Hamiltonian cycles of ``p`` lineup entries (each starting at 0) holding every
    directed path ``b -> a -> c`` of three distinct entries exactly once (for ``p <= 2``, the one
    cycle).  Deterministic: the first exact cover in ``itertools.permutations`` order."""
    if p <= 2:
        return (tuple(range(p)),)
    cycles = [(0, *c) for c in itertools.permutations(range(1, p))]
    paths = [[(c[k - 1], c[k], c[(k + 1) % p]) for k in range(p)] for c in cycles]
    todo = [(b, a, c) for a in range(p) for b in range(p) for c in range(p) if len({a, b, c}) == 3]
    holding = {t: [i for i, ps in enumerate(paths) if t in ps] for t in todo}
    used: set[tuple[int, int, int]] = set()
    chosen: list[tuple[int, ...]] = []

    def cover() -> bool:
        t = next((t for t in todo if t not in used), None)
        if t is None:
            return True
        for i in holding[t]:
            if used.isdisjoint(paths[i]):
                used.update(paths[i])
                chosen.append(cycles[i])
                if cover():
                    return True
                chosen.pop()
                used.difference_update(paths[i])
        return False

    if not cover():  # pragma: no cover - exists for every p <= MAX_BALANCED_PLAYERS (tested)
        raise ValueError(f"no neighbourhood-balanced design for {p} players")
    return tuple(chosen)


def _rotation_classes(cycles: tuple[tuple[int, ...], ...], p: int) -> list[int]:
    """Per cycle the rotation class ``o`` mod ``g = gcd(#cycles, p)`` so that every entry sits
    in every class equally often over the cycles (then in every seat, at rotations o, o+g, …)."""
    g = math.gcd(len(cycles), p)
    need = len(cycles) // g
    count = np.zeros((p, g), np.int64)
    pick: list[int] = []

    def place(i: int) -> bool:
        if i == len(cycles):
            return True
        for o in range(g):
            cls = [(cycles[i].index(a) + o) % g for a in range(p)]
            if all(count[a, k] < need for a, k in enumerate(cls)):
                for a, k in enumerate(cls):
                    count[a, k] += 1
                pick.append(o)
                if place(i + 1):
                    return True
                pick.pop()
                for a, k in enumerate(cls):
                    count[a, k] -= 1
        return False

    if not place(0):  # pragma: no cover - found for every p <= MAX_BALANCED_PLAYERS (tested)
        raise ValueError(f"no seat-balanced rotations for {p} players")
    return pick


@functools.cache
def _balanced(p: int) -> np.ndarray:
    cycles = neighbourhood_cycles(p)
    g = math.gcd(len(cycles), p)
    rows = []
    for cycle, o in zip(cycles, _rotation_classes(cycles, p), strict=True):
        for r in range(o, p, g):
            seat = np.empty(p, np.int8)
            seat[list(cycle)] = (np.arange(p) + r) % p      # cycle[k] sits in seat k + r
            rows.append(seat)
    out = np.asarray(rows, dtype=np.int8)
    out.setflags(write=False)
    return out


def balanced_seatings(p: int) -> np.ndarray:
    """int8[S, P] (read-only): the neighbour-balanced design (module docstring); row ``s``,
    column ``j`` = seat of lineup entry ``j`` in seating ``s``."""
    if not 1 <= p <= MAX_BALANCED_PLAYERS:
        raise ValueError(f"balanced seating is defined for 1..{MAX_BALANCED_PLAYERS} players, "
                         f"not {p}")
    if p == 1:
        return np.zeros((1, 1), np.int8)
    return _balanced(p)
