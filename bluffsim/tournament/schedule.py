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

A game count that is not a whole number of cycles (``Schedule.cycle_games``: the ``S``
seatings, times the ``L`` lineups with a pool) leaves the seatings unbalanced: the last,
partial cycle favours its first seatings (at 6 players with ``permute``, 90 games seat one
agent in seat 0 in all 90).  The runner plays it anyway (a quick look at a few games is
legitimate) but says so before playing and records it: ``Schedule.balance()`` gives the
cycle, the nearest whole counts below and above, and how unequal the counts the design
balances end up (games per agent and seat; games in which one agent sits right after
another, for ``permute`` and ``balanced``; games per agent, with a pool).
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
    def mode(self) -> str:
        """The seating cycle by name: "balanced" | "permute" | "rotate" | "fixed"."""
        return ("balanced" if self.balanced else "permute" if self.permute
                else "rotate" if self.rotate else "fixed")

    @property
    def cycle_games(self) -> int:
        """Games in one whole cycle of the design: every seating (of every pool lineup) once."""
        return len(self.seatings) * (len(self.lineups) if self.lineups is not None else 1)

    def balance(self) -> SeatingBalance:
        """How ``num_games`` fits the seating cycle, and how unequal a partial cycle leaves the
        counts the design balances (module docstring)."""
        if self.lineups is not None:
            return SeatingBalance(self.num_games, self.cycle_games, self.mode, self.num_players,
                                  len(self.seatings), len(self.lineups), self.duplicate,
                                  agent_games=_pool_agent_games(self))
        seat, after = _seat_and_after_games(self.seatings, self.num_games)
        return SeatingBalance(self.num_games, self.cycle_games, self.mode, self.num_players,
                              len(self.seatings), 0, self.duplicate,
                              seat_games=seat if self.mode != "fixed" else None,
                              after_games=after if self.mode in ("permute", "balanced") else None)

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


@dataclass(frozen=True)
class SeatingBalance:
    """Whether a schedule's game count is a whole number of seating cycles, and the spread
    (fewest, most) of the counts its design balances: equal exactly when ``whole``."""

    games: int
    cycle: int                                 # games in one whole cycle (``cycle_games``)
    mode: str                                  # "balanced" | "permute" | "rotate" | "fixed"
    players: int
    seatings: int                              # seatings in the cycle
    lineups: int = 0                           # pool lineups (0 without a pool)
    duplicate: bool = False
    seat_games: tuple[int, int] | None = None  # games of one agent in one seat (no pool)
    after_games: tuple[int, int] | None = None  # games with agent b right after agent a
    agent_games: tuple[int, int] | None = None  # games per pool agent

    @property
    def whole(self) -> bool:
        """True when every seating (of every lineup) is played equally often."""
        return self.games % self.cycle == 0

    @property
    def below(self) -> int:
        """The nearest whole number of cycles' games at or below ``games`` (0 if under one)."""
        return self.games // self.cycle * self.cycle

    @property
    def above(self) -> int:
        """The nearest whole number of cycles' games above ``games``."""
        return self.below + self.cycle

    def spread(self) -> str:
        """The unequal counts in words, e.g. "an agent plays 0 to 90 games in one seat"."""
        parts = []
        if self.agent_games is not None:
            parts.append(_counts(self.agent_games, "agents play {} games each",
                                 "every agent plays {} games"))
        if self.seat_games is not None:
            parts.append(_counts(self.seat_games, "an agent plays {} games in one seat",
                                 "every agent plays {} games in every seat"))
        if self.after_games is not None:
            parts.append(_counts(self.after_games, "one agent sits right after another in {} games",
                                 "every agent sits right after every other in {} games"))
        return ", ".join(parts)

    def cycle_text(self) -> str:
        """What one cycle is, e.g. "720 games: every one of the 720 seatings of 6 players"."""
        seating = (f"all {self.seatings} orders" if self.mode == "permute"
                   else f"the {self.seatings} {self.mode} seatings")
        if self.lineups:
            what = f"{self.lineups:,} lineups x {seating} of {self.players} players"
        else:
            what = f"{seating} of {self.players} players"
        return f"{self.cycle:,} games ({what}{', duplicate deals' if self.duplicate else ''})"

    def warning(self) -> str:
        """One line for a partial cycle: the cycle, the spread and the nearest whole counts."""
        nearest = (f"{self.below:,} or {self.above:,}" if self.below else f"{self.above:,}")
        return (f"{self.games:,} games is not a whole number of seating cycles, so the seatings "
                f"are unbalanced ({self.spread()}); one cycle is {self.cycle_text()}: play "
                f"{nearest} games for an exact balance")

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form (the manifest's ``seating`` entry)."""
        return {"mode": self.mode, "cycle_games": self.cycle, "seatings": self.seatings,
                "lineups": self.lineups or None, "games": self.games,
                "whole_cycles": self.whole, "nearest_below": self.below,
                "nearest_above": self.above,
                "seat_games": None if self.seat_games is None else list(self.seat_games),
                "after_games": None if self.after_games is None else list(self.after_games),
                "agent_games": None if self.agent_games is None else list(self.agent_games)}


def _counts(span: tuple[int, int], unequal: str, equal: str) -> str:
    """``unequal`` with "lo to hi" when the counts differ, else ``equal`` with the one count."""
    lo, hi = span
    return unequal.format(f"{lo:,} to {hi:,}") if lo != hi else equal.format(f"{lo:,}")


def _seatings_played(num_seatings: int, games: int) -> np.ndarray:
    """How many of ``games`` consecutive games (from 0) play each seating of the cycle."""
    q, r = divmod(games, num_seatings)
    return q + (np.arange(num_seatings) < r).astype(np.int64)


def _seat_and_after_games(seatings: np.ndarray, games: int) -> tuple[tuple[int, int],
                                                                       tuple[int, int] | None]:
    """(fewest, most) games of a lineup entry in one seat, and of entry b right after entry a
    (seat ``+1`` mod ``P``; None below 2 players), over ``games`` games from 0."""
    s, p = seatings.shape
    played = _seatings_played(s, games)
    entries = np.broadcast_to(np.arange(p), (s, p))
    seat = np.zeros((p, p), np.int64)
    np.add.at(seat, (entries, seatings), np.broadcast_to(played[:, None], (s, p)))
    seat_range = (int(seat.min()), int(seat.max()))
    if p < 2:
        return seat_range, None
    at = np.empty_like(seatings)
    at[np.arange(s)[:, None], seatings] = entries           # at[s, k] = entry in seat k
    nxt = at[np.arange(s)[:, None], (seatings + 1) % p]      # entry right after each entry
    after = np.zeros((p, p), np.int64)
    np.add.at(after, (entries, nxt), np.broadcast_to(played[:, None], (s, p)))
    off = after[~np.eye(p, dtype=bool)]
    return seat_range, (int(off.min()), int(off.max()))


def _pool_agent_games(sched: Schedule) -> tuple[int, int]:
    """(fewest, most) games of the pool agents that are in some lineup, over the schedule."""
    lineups = np.asarray(sched.lineups, dtype=np.int64)
    s = len(sched.seatings)
    per_lineup = _seatings_played(len(lineups), sched.num_games // s) * s
    rest = sched.num_games % s                       # the partial block of the next lineup
    per_lineup[(sched.num_games // s) % len(lineups)] += rest
    counts = np.bincount(lineups.ravel(), weights=np.repeat(per_lineup, lineups.shape[1]))
    present = counts[np.unique(lineups)]
    return int(present.min()), int(present.max())


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
