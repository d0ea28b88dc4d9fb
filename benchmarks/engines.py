"""Throughput benchmark: decisions, rounds and games per second, state size and memory.

For each game and agent mix (every seat played by one agent, e.g. ``random`` or
``counting``):

- the vectorised engine at each batch size, finished games autoreset in place
  so the batch stays full: the batched Python loop (agent ``act`` + ``step`` each step);
- for every agent with a compiled policy (``agents.fused``: random, heuristic, counting,
  learned): the ``fused_*`` columns of its rows, the engine and the compiled agent in one
  compiled loop, each game advancing 20 decisions in a row per call (game-major), the same
  games (``random`` through the engine's ``play_random``; NaN where there is none);
- the scalar reference engine on one game at a time (``random`` draws uniform
  legal actions directly; other agents are asked with a batch of one);
- when the optional ``open-spiel`` extra is installed, two peer anchors on
  OpenSpiel's ``liars_dice`` (numdice=5, 2 players), both uniform random legal play:
  the Python loop, the way a Python user of OpenSpiel runs it (``openspiel_run``;
  its decisions are player decisions, and its ``rounds_per_s`` column holds every
  applied action, dice rolls included), and the C++ anchor, OpenSpiel's
  ``RandomRolloutEvaluator`` under a one-simulation ``MCTSBot`` (``openspiel_cpp_run``:
  player decisions/s = rollouts/s x player decisions per game, the latter measured
  alongside).  Half of each anchor's repeats run before the games, half after, so a
  drift of the machine's load over the run shows in their min – max.  Every row gets its
  ratio to both (``x_openspiel``, ``x_openspiel_cpp``; ``fused_x_*`` for the fused loop);
  without open-spiel they are NaN and the run says so;
- with ``cores`` > 1, random play on ``cores`` cores at the ``cores_batches`` sizes:
  ``cores`` processes, each pinned to its own core and playing its share of the batch
  (as ``bluffsim run --workers`` does; ``cores_via="threads"`` measures the alternative,
  a numba ``prange`` over batch chunks in one process), timed together, each repeat next
  to a one-core run of the whole batch so ``x_one_core`` is a same-moment ratio.

Each rate is the median of ``repeats`` runs of at least ``seconds`` seconds, in
one process pinned to one core (``os.sched_setaffinity`` where the OS has it);
finished games are refilled in groups as the tournament runner does
(``REFILL_SHARE``), and only decisions of games in play are counted;
min and max are kept so noise on a shared machine stays visible, and
``cpu_decisions_per_s`` divides by the process's CPU time instead of the wall
clock (the two differ when other processes share the core).  ``state_bytes``
is the vectorised state's array bytes per game; ``peak_mib`` is the peak of
memory allocated while 20 steps run, measured apart (``tracemalloc``, which
numpy reports to) so the timing runs carry no tracing cost.  ``load1`` is the
machine's one-minute load average when the row's measure ended.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import random
import time
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

import agents
import bluffsim
from agents.fused import fused_lineup
from bluffsim.adapters.single import SingleGame
from bluffsim.games.compiled import CompiledGame
from bluffsim.kernel_cache import COMPILING, kernels_cold
from bluffsim.rng import AgentRNG
from bluffsim.tournament.runner import REFILL_SHARE

DEFAULT_BATCHES = (1, 64, 1024, 4096, 16384)
CPP_ROLLOUTS_PER_STEP = 100  # rollouts per MCTSBot step: the bot's per-step cost is < 2% of it
OPENSPIEL_SKIPPED = "skipped: open-spiel is not installed (pip install -e '.[adapters]')"
ANCHOR_ENGINES = {"python": "openspiel python loop", "cpp": "openspiel c++ rollouts"}


@dataclass
class Run:
    """Counts of one timed run."""

    decisions: int
    rounds: int
    games: int
    seconds: float
    cpu_seconds: float = float("nan")

    def rates(self) -> dict[str, float]:
        """Per-second rates (wall clock; decisions also per CPU second)."""
        return {"decisions_per_s": self.decisions / self.seconds,
                "rounds_per_s": self.rounds / self.seconds,
                "games_per_s": self.games / self.seconds,
                "cpu_decisions_per_s": self.decisions / self.cpu_seconds}


def pin_to_one_core() -> tuple[int | None, set[int] | None]:
    """Pin this process to its first allowed CPU; returns (that CPU, the previous CPU set)."""
    if not hasattr(os, "sched_setaffinity"):
        return None, None
    before = os.sched_getaffinity(0)
    cpu = min(before)
    os.sched_setaffinity(0, {cpu})
    return cpu, before



def played_decisions(game: Any, batch: int, choose: Callable[[dict, Any, AgentRNG], np.ndarray]
                     ) -> Iterator[tuple[Any, dict]]:
    """Endless steps of ``batch`` games of ``game`` (seeds 0, 1, ...; a finished game is
    replaced by the next seed at once): yields (state, its observation) before each step,
    then steps with ``choose(obs, state, rng)``'s actions (int[B]; finished games ignore theirs)."""
    st = game.init(np.arange(batch))
    nxt = batch
    while True:
        obs = game.observe(st)
        yield st, obs
        rng = AgentRNG(st.seed, st.current_player, st.num_decisions)
        game.step(st, np.where(st.done, -1, choose(obs, st, rng)))
        done = np.flatnonzero(st.done)
        if done.size:
            game.reset_games(st, done, np.arange(nxt, nxt + done.size))
            nxt += done.size

class VectorisedLoop:
    """A full batch of one game under one agent, stepped with autoreset.

    ``fused``: every seat played in one compiled loop with the engine, game-major, instead of
    ``act`` + ``step`` per step: ``random`` by the engine's ``play_random``, other agents by
    their compiled policies (``agents.fused``).
    """

    def __init__(self, game_id: str, players: int, batch: int, agent_name: str,
                 fused: bool = False, first_seed: int = 0):
        self.game = bluffsim.make(game_id, players)
        self.agent = agents.make(agent_name, self.game)
        self.needs_obs = agents.Traits.of(self.agent.traits).uses_observation
        self.batch = batch
        self.st = self.game.init(np.arange(first_seed, first_seed + batch))
        self.next_seed = first_seed + batch
        self.refill_at = max(1, batch // REFILL_SHARE)
        self.counted = np.zeros(batch, bool)  # finished games already counted
        self.fused = fused
        self.lineup = None
        if fused and not (agent_name == "random" and hasattr(self.game, "play_random")):
            self.lineup = fused_lineup(self.game, [self.agent] * players)
            if self.lineup is None:
                raise ValueError(f"no fused loop for {agent_name!r} on {game_id!r}")
            self.seats = np.zeros((batch, players), np.int64)

    def steps(self, n: int) -> tuple[int, int, int]:
        """Run ``n`` steps; returns (decisions, rounds finished, games finished)."""
        if self.fused:
            return self.fused_steps(n)
        st, game, decisions, rounds, games = self.st, self.game, 0, 0, 0
        for _ in range(n):
            live = int(self.batch - st.done.sum())
            rng = AgentRNG(st.seed, st.current_player, st.num_decisions)
            obs = game.observe(st) if self.needs_obs else None
            game.step(st, self.agent.act(obs, st.legal_action_mask, rng))
            decisions += live
            rounds += int(st.round_over.sum())
            games += int((st.done & ~self.counted).sum())
            self.counted |= st.done
            done = np.flatnonzero(st.done)
            if done.size >= self.refill_at:  # as the tournament runner: refill in groups
                self.counted[done] = False
                game.reset_games(st, done, np.arange(self.next_seed, self.next_seed + done.size))
                self.next_seed += done.size
        return decisions, rounds, games

    def fused_steps(self, n: int) -> tuple[int, int, int]:
        """``n`` decisions per running game in one compiled call, then the group refill."""
        st = self.st
        out = self.play(n)
        done = np.flatnonzero(st.done)
        if done.size >= self.refill_at:
            self.game.reset_games(st, done, np.arange(self.next_seed, self.next_seed + done.size))
            self.next_seed += done.size
        return out

    def play(self, n: int) -> tuple[int, int, int]:
        """The fused loop alone: ``n`` decisions per running game (``play_random``, or the
        agent's compiled policy in every seat)."""
        if self.lineup is not None:
            return self.lineup.play(self.st, self.seats, n, round_stop=False)[:3]
        return self.game.play_random(self.st, n)


def vectorised_run(game_id: str, players: int, batch: int, seconds: float,
                   agent_name: str = "random", fused: bool = False, first_seed: int = 0) -> Run:
    """One timed run of the vectorised engine (at least ``seconds``)."""
    return timed_steps(VectorisedLoop(game_id, players, batch, agent_name, fused, first_seed),
                       seconds)


def timed_steps(loop: Any, seconds: float) -> Run:
    """Step ``loop`` (anything with ``steps(n)``) 20 at a time for at least ``seconds``."""
    loop.steps(1)  # compiled code loaded before the clock starts
    total = [0, 0, 0]
    start, cpu = time.perf_counter(), time.process_time()
    while True:
        for i, v in enumerate(loop.steps(20)):
            total[i] += v
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return Run(*total, elapsed, time.process_time() - cpu)


def vectorised_memory(game_id: str, players: int, batch: int, agent_name: str) -> tuple[float, float]:
    """(state bytes per game, peak MiB allocated during 20 steps) — an untimed run."""
    tracemalloc.start()
    try:
        loop = VectorisedLoop(game_id, players, batch, agent_name)
        loop.steps(20)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return loop.st.nbytes() / batch, peak / 2**20


def reference_run(game_id: str, players: int, seconds: float, agent_name: str = "random") -> Run:
    """One timed run of the scalar reference engine, one game at a time."""
    single = SingleGame(game_id, players)
    agent = None if agent_name == "random" else agents.make(agent_name, single.vectorised())
    gen = random.Random(0)
    seed, decisions, rounds, games = 0, 0, 0, 0
    s = single.new_state(seed)
    start, cpu = time.perf_counter(), time.process_time()
    while True:
        for _ in range(50):
            if s.done:
                games += 1
                rounds += s.num_rounds
                seed += 1
                s = single.new_state(seed)
            legal = single.engine.legal_actions(s)
            a = gen.choice(legal) if agent is None else single.agent_action(agent, s, seed)
            single.engine.apply(s, a)
            decisions += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return Run(decisions, rounds + s.num_rounds, games, elapsed,
                       time.process_time() - cpu)


def _pyspiel() -> Any:
    """The ``pyspiel`` module, or None when open-spiel is not installed."""
    try:
        import pyspiel
    except ImportError:
        return None
    return pyspiel


def _liars_dice(pyspiel: Any) -> Any:
    return pyspiel.load_game("liars_dice", {"numdice": 5, "players": 2})


def openspiel_run(seconds: float) -> Run | None:
    """One timed run of OpenSpiel's liars_dice from a Python loop (None without open-spiel).

    Decisions are player decisions, as ours are (our chance events happen inside
    ``step``); with the dice rolls counted too the loop applies about 3x as many
    actions, kept in ``Run.rounds`` here.  Dice are uniform, so chance nodes draw
    from ``legal_actions()`` as players do.
    """
    pyspiel = _pyspiel()
    if pyspiel is None:
        return None
    game = _liars_dice(pyspiel)
    probs = {p for _, p in game.new_initial_state().chance_outcomes()}
    assert len(probs) == 1, "liars_dice dice are uniform"
    gen = random.Random(0)
    actions, decisions, games = 0, 0, 0
    start, cpu = time.perf_counter(), time.process_time()
    while True:
        for _ in range(20):
            state = game.new_initial_state()
            while not state.is_terminal():
                decisions += not state.is_chance_node()
                state.apply_action(gen.choice(state.legal_actions()))
                actions += 1
            games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return Run(decisions, actions, games, elapsed, time.process_time() - cpu)


def _deals(game: Any, n: int, seed: int) -> list[Any]:
    """``n`` liars_dice states just after the dice are rolled (the first bid to make)."""
    gen = random.Random(seed)
    out = []
    for _ in range(n):
        state = game.new_initial_state()
        while state.is_chance_node():
            state.apply_action(gen.choice(state.legal_actions()))
        out.append(state)
    return out


def openspiel_decisions_per_game(games: int = 10_000, seed: int = 0) -> float | None:
    """Mean player decisions per liars_dice game (numdice=5, 2 players) under uniform random
    legal play, over ``games`` games played from the deal in Python (None without open-spiel).

    The C++ rollouts play the same way from a deal, so this is their mean length in player
    decisions; the number of legal bids does not depend on the dice, and the exact mean is
    4.7579 (a recursion over the last bid).
    """
    pyspiel = _pyspiel()
    if pyspiel is None:
        return None
    game = _liars_dice(pyspiel)
    gen = random.Random(seed)
    decisions = 0
    for state in _deals(game, games, seed):
        while not state.is_terminal():
            state.apply_action(gen.choice(state.legal_actions()))
            decisions += 1
    return decisions / games


def openspiel_cpp_run(seconds: float, decisions_per_game: float, seed: int = 0) -> Run | None:
    """One timed run of the C++ anchor (None without open-spiel or without its ``MCTSBot``).

    OpenSpiel's ``RandomRolloutEvaluator`` (``CPP_ROLLOUTS_PER_STEP`` rollouts per evaluation)
    under an ``MCTSBot`` with one simulation, stepped from Python on 16 freshly dealt
    liars_dice states in turn: a one-simulation step clones the state and evaluates it, i.e.
    plays ``CPP_ROLLOUTS_PER_STEP`` uniform random games to the end in C++.  ``games`` (and
    ``rounds``: one round per game) count rollouts; ``decisions`` = rollouts x
    ``decisions_per_game`` (``openspiel_decisions_per_game``).  The roots are player nodes:
    OpenSpiel's MCTS indexes the returns by the root's player, which a chance node has not.
    """
    pyspiel = _pyspiel()
    if pyspiel is None or not hasattr(pyspiel, "MCTSBot"):
        return None
    game = _liars_dice(pyspiel)
    evaluator = pyspiel.RandomRolloutEvaluator(CPP_ROLLOUTS_PER_STEP, seed)
    bot = pyspiel.MCTSBot(game, evaluator, 2.0, 1, 1000, False, seed, False)  # uct_c, 1 simulation
    roots = _deals(game, 16, seed)
    bot.step(roots[0])
    steps = 0
    start, cpu = time.perf_counter(), time.process_time()
    while True:
        for root in roots:
            bot.step(root)
        steps += len(roots)
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            rollouts = steps * CPP_ROLLOUTS_PER_STEP
            return Run(rollouts * decisions_per_game, rollouts, rollouts, elapsed,
                       time.process_time() - cpu)


# ===================================================================== several cores
def _core_worker(conn: Any, game_id: str, players: int, batch: int, fused: bool,
                 first_seed: int, cpu: int | None, agent_name: str = "random") -> None:
    """One ``--cores`` process: pinned to ``cpu``, it answers each ``seconds`` received with
    the counts of one timed run of its games (a fresh batch each time); None ends it."""
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})
    VectorisedLoop(game_id, players, 8, agent_name, fused).steps(1)  # compiled code loaded
    conn.send("ready")
    while (seconds := conn.recv()) is not None:
        r = vectorised_run(game_id, players, batch, seconds, agent_name, fused, first_seed)
        conn.send((r.decisions, r.rounds, r.games, r.seconds, r.cpu_seconds))


class CoreProcesses:
    """``len(cpus)`` spawned processes, each pinned to its own core and playing its share of
    ``batch`` games (its own seeds) with random play, as ``bluffsim run --workers`` shares
    work; ``run(seconds)`` times them together.  Use as a context manager."""

    def __init__(self, game_id: str, players: int, batch: int, fused: bool,
                 cpus: list[int | None], agent_name: str = "random"):
        ctx = mp.get_context("spawn")
        n = len(cpus)
        shares = [batch // n + (i < batch % n) for i in range(n)]
        self.conns, self.procs = [], []
        for i, (share, cpu) in enumerate(zip(shares, cpus, strict=True)):
            here, there = ctx.Pipe()
            proc = ctx.Process(target=_core_worker, daemon=True,
                               args=(there, game_id, players, share, fused, sum(shares[:i]), cpu,
                                     agent_name))
            proc.start()
            self.conns.append(here)
            self.procs.append(proc)
        for conn in self.conns:
            conn.recv()

    def run(self, seconds: float) -> Run:
        """One timed run on every core at once: counts summed, the longest wall time."""
        for conn in self.conns:
            conn.send(seconds)
        outs = [conn.recv() for conn in self.conns]
        return Run(sum(o[0] for o in outs), sum(o[1] for o in outs), sum(o[2] for o in outs),
                   max(o[3] for o in outs), sum(o[4] for o in outs))

    def close(self) -> None:
        """Stop the processes."""
        for conn, proc in zip(self.conns, self.procs, strict=True):
            try:
                conn.send(None)
            except OSError:
                pass
            proc.join(10)
            if proc.is_alive():
                proc.terminate()

    def __enter__(self) -> CoreProcesses:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_CHUNKED: dict[Any, Any] = {}


def _chunked_prange(kernel: Any) -> Any:
    """A numba ``parallel=True`` loop running the serial ``kernel`` (a game's
    ``play_random_kernel``) on chunks of the batch, one chunk per ``prange`` iteration.
    Jitted apart from the serial kernel and not cached (numba's cache key ignores
    ``parallel=``); each chunk gets its own rules record, whose shuffle scratch space the
    kernel writes."""
    if kernel not in _CHUNKED:
        from numba import njit, prange

        @njit(parallel=True)
        def play_chunks(data, hot, rules, decisions, counts, bounds):  # noqa: ANN001, ANN202
            for c in prange(bounds.size - 1):
                lo, hi = bounds[c], bounds[c + 1]
                kernel(data[lo:hi], hot[lo:hi], rules[c:c + 1], decisions, counts[c])

        _CHUNKED[kernel] = play_chunks
    return _CHUNKED[kernel]


def has_chunked_prange(game_id: str, players: int) -> bool:
    """Whether ``--cores-via threads`` can run ``game_id``: a ``CompiledGame`` engine, whose
    ``kernels.play_random_kernel`` takes the game's rules record (``_rec``)."""
    return isinstance(bluffsim.make(game_id, players), CompiledGame)


class ChunkedPrangeLoop(VectorisedLoop):
    """The threads alternative to ``CoreProcesses``: one process plays the whole batch with
    random play, ``cores`` chunks of it at once in a numba ``prange`` (the same games and
    decisions as the serial fused loop); needs the game's ``kernels.play_random_kernel``."""

    def __init__(self, game_id: str, players: int, batch: int, cores: int):
        super().__init__(game_id, players, batch, "random", fused=True)
        if not has_chunked_prange(game_id, players):
            raise ValueError(f"{game_id!r} has no compiled play_random_kernel for threads")
        self.kernel = _chunked_prange(self.game.kernels.play_random_kernel)
        self.rules = np.repeat(self.game._rec, cores)
        self.bounds = np.linspace(0, batch, cores + 1).astype(np.int64)
        self.counts = np.zeros((cores, 3), np.int64)

    def play(self, n: int) -> tuple[int, int, int]:
        """``n`` decisions per running game, the chunks in parallel."""
        st = self.st
        self.kernel(st.data, st.hot, self.rules, n, self.counts, self.bounds)
        made, rounds, ended = (int(v) for v in self.counts.sum(axis=0))
        return made, rounds, ended


def bench_cores(game_id: str, players: int, batch: int, seconds: float, repeats: int,
                cpus: list[int | None], via: str = "processes",
                agent_name: str = "random") -> dict[str, Any]:
    """Play of ``batch`` games by ``agent_name`` in every seat (the fused loop where it has
    one) on ``len(cpus)`` cores (``via`` "processes" or "threads", random only), each repeat
    next to a one-core run of the whole batch in this process (which the caller has pinned to
    one core): one table row, ``x_one_core`` the median (min, max) of the per-repeat ratios."""
    cores = len(cpus)
    fused = _has_fused(game_id, players, agent_name)
    ones, many = [], []
    if via == "processes":
        with CoreProcesses(game_id, players, batch, fused, cpus, agent_name) as procs:
            for _ in range(repeats):
                ones.append(vectorised_run(game_id, players, batch, seconds, agent_name, fused))
                many.append(procs.run(seconds))
    elif via == "threads":
        from numba import get_num_threads, set_num_threads

        # OpenMP starts its worker threads at the first parallel call, made below with this
        # thread widened to ``cpus``: they inherit that CPU set
        loop = ChunkedPrangeLoop(game_id, players, batch, cores)
        one = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
        threads = get_num_threads()
        try:
            for _ in range(repeats):
                ones.append(vectorised_run(game_id, players, batch, seconds, "random", fused))
                if one is not None and None not in cpus:
                    os.sched_setaffinity(0, set(cpus))
                set_num_threads(min(cores, threads))
                many.append(timed_steps(loop, seconds))
                if one is not None:
                    os.sched_setaffinity(0, one)
        finally:
            set_num_threads(threads)
    else:
        raise ValueError(f"via={via!r}: 'processes' or 'threads'")
    ratios = np.array([m.decisions / m.seconds / (o.decisions / o.seconds)
                       for m, o in zip(many, ones, strict=True)])
    cpu_ratio = np.median([(m.decisions / m.cpu_seconds) / (o.decisions / o.cpu_seconds)
                           for m, o in zip(many, ones, strict=True)])
    return {"game": game_id, "engine": f"vectorised, {cores} cores ({via})", "agents": agent_name,
            "batch": batch, **_stats(many), "path": "fused" if fused else "stepwise",
            "cores": cores, "one_core_decisions_per_s": _stats(ones)["decisions_per_s"],
            "x_one_core": float(np.median(ratios)), "x_one_core_min": float(ratios.min()),
            "x_one_core_max": float(ratios.max()), "x_one_core_cpu": float(cpu_ratio),
            "load1": os.getloadavg()[0]}


def _stats(runs: list[Run]) -> dict[str, float]:
    rates = pd.DataFrame([r.rates() for r in runs])
    out = {k: float(v) for k, v in rates.median().items()}
    out["min"] = float(rates["decisions_per_s"].min())
    out["max"] = float(rates["decisions_per_s"].max())
    return out


FUSED = ("decisions_per_s", "min", "max", "cpu_decisions_per_s")


def bench_engines(games: list[str], players: int = 4,
                  batches: tuple[int, ...] | list[int] = DEFAULT_BATCHES, repeats: int = 5,
                  seconds: float = 0.5, agent_names: tuple[str, ...] = ("random",),
                  anchor: bool = True, cores: int = 1,
                  cores_batches: tuple[int, ...] | list[int] = (4096,),
                  cores_via: str = "processes", env_players: tuple[int, ...] | list[int] = (),
                  env_batch: int = 1024,
                  progress: Callable[[str], None] | None = None) -> pd.DataFrame:
    """Benchmark table: one row per (game, engine, agents, batch) — module docstring.

    ``progress`` (e.g. a print to stderr) gets a line before the measures (how many rows,
    the least time their timed runs take), ``kernel_cache.COMPILING`` when numba must
    compile first, and one line per row as it is measured (``row_line``).

    Columns: game, engine, agents, batch, decisions_per_s (median), min, max,
    rounds_per_s, games_per_s, cpu_decisions_per_s, state_bytes, peak_mib, x_reference
    (vs the reference engine with the same agents), fused_decisions_per_s, fused_min,
    fused_max, fused_cpu_decisions_per_s (the fused loop, NaN where none), load1,
    decisions_per_game (the C++ anchor's row; its games_per_s are rollouts/s), the
    ``cores`` rows' path, cores, one_core_decisions_per_s, x_one_core (min, max, and
    per CPU second: x_one_core_cpu), then x_openspiel and x_openspiel_cpp (vs the Python-loop
    and C++ anchors; NaN when skipped), fused_x_openspiel, fused_x_openspiel_cpp, players,
    cpu.  ``attrs``: "openspiel", "openspiel_cpp" (measured, or why skipped) and "load"
    (the one-minute load average at the start and at the end).
    """
    cpu, before = pin_to_one_core()
    load_start = os.getloadavg()[0]
    cpus: list[int | None] = [None] * cores
    if before is not None:
        if len(before) < cores:
            raise ValueError(f"cores={cores}: this process may use {len(before)} CPU(s)")
        cpus = sorted(before)[:cores]
    spiel: list[Run | None] = [None]
    cpp: list[Run | None] = [None]
    pyspiel = _pyspiel() if anchor else None
    anchors = 0 if pyspiel is None else 1 + hasattr(pyspiel, "MCTSBot")
    say = _Progress(progress, _planned_rows(games, players, batches, agent_names, anchors,
                                            cores_batches if cores > 1 else (), cores_via,
                                            env_players), repeats, seconds)
    if progress is not None:
        if any(kernels_cold(bluffsim.make(g, players), agent_names) for g in games):
            progress(COMPILING)
        if anchors:
            progress("bench: OpenSpiel anchors: the mean liars_dice game length, then half of "
                     "their repeats (the other half after the games)")
    per_game = openspiel_decisions_per_game() if anchors else None
    try:
        if per_game is not None:  # the anchors' repeats: half before the games, half after
            first = (repeats + 1) // 2
            spiel = [openspiel_run(seconds) for _ in range(first)]
            cpp = [openspiel_cpp_run(seconds, per_game) for _ in range(first)]
        rows = _bench_rows(games, players, batches, repeats, seconds, agent_names, say)
        if per_game is not None and repeats > first:
            spiel += [openspiel_run(seconds) for _ in range(repeats - first)]
            cpp += [openspiel_cpp_run(seconds, per_game) for _ in range(repeats - first)]
        if spiel[0] is not None:
            rows.append(say({"game": "liars_dice (OpenSpiel)", "engine": ANCHOR_ENGINES["python"],
                             "agents": "random", "batch": 1, **_stats(spiel),
                             "x_reference": np.nan, "load1": os.getloadavg()[0]}))
        if cpp[0] is not None:
            rows.append(say({"game": "liars_dice (OpenSpiel)", "engine": ANCHOR_ENGINES["cpp"],
                             "agents": "random", "batch": 1, **_stats(cpp), "x_reference": np.nan,
                             "decisions_per_game": per_game, "load1": os.getloadavg()[0]}))
        if cores > 1:
            for gid in games:
                for name in _cores_agents(agent_names, cores_via):
                    for b in cores_batches:
                        rows.append(say(bench_cores(gid, players, b, seconds, repeats, cpus,
                                                    cores_via, name)))
        for gid in games:
            for p in env_players:
                for name in agent_names:
                    if not _plays(gid, p, name):  # a table size or agent the game lacks
                        continue
                    for fused in (True, False):
                        rows.append(say(bench_env(gid, p, name, env_batch, seconds, repeats,
                                                  fused)))
    finally:
        if before is not None:
            os.sched_setaffinity(0, before)
    table = pd.DataFrame(rows)
    for c in ["state_bytes", "peak_mib", *(f"fused_{k}" for k in FUSED), "decisions_per_game",
              "path", "cores", "one_core_decisions_per_s", "x_one_core", "x_one_core_min",
              "x_one_core_max", "x_one_core_cpu"]:
        if c not in table:
            table[c] = np.nan
    table["cores"] = table["cores"].fillna(1).astype(int)
    for key, suffix in (("python", ""), ("cpp", "_cpp")):
        rate = table.loc[table["engine"] == ANCHOR_ENGINES[key], "decisions_per_s"].max()
        table[f"x_openspiel{suffix}"] = table["decisions_per_s"] / rate
        table[f"fused_x_openspiel{suffix}"] = table["fused_decisions_per_s"] / rate
    table["players"] = players
    table["cpu"] = cpu if cpu is not None else -1
    skipped = "skipped: --no-anchor" if not anchor else OPENSPIEL_SKIPPED
    table.attrs["openspiel"] = "measured" if spiel[0] is not None else skipped
    table.attrs["openspiel_cpp"] = ("measured" if cpp[0] is not None else skipped
                                    if spiel[0] is None else
                                    "skipped: this open-spiel has no MCTSBot in pyspiel")
    table.attrs["load"] = (load_start, os.getloadavg()[0])
    return table


def _has_fused(game_id: str, players: int, agent_name: str) -> bool:
    """Whether every seat of ``agent_name`` can play in one compiled loop with the engine."""
    game = bluffsim.make(game_id, players)
    if agent_name == "random" and hasattr(game, "play_random"):
        return True
    try:
        return fused_lineup(game, [agents.make(agent_name, game)] * players) is not None
    except bluffsim.BluffsimError:  # e.g. learned without shipped weights for this table
        return False


def _planned_rows(games: list[str], players: int, batches: tuple[int, ...] | list[int],
                  agent_names: tuple[str, ...], anchors: int,
                  cores_batches: tuple[int, ...] | list[int], cores_via: str = "processes",
                  env_players: tuple[int, ...] | list[int] = ()) -> list[int]:
    """Timed runs per repeat of each row ``bench_engines`` will measure, in its order (a fused
    row and a cores row time two runs per repeat; ``anchors`` and env rows one)."""
    rows = []
    for gid in games:
        for name in agent_names:
            rows += [1] + [1 + _has_fused(gid, players, name) for _ in batches]
    rows += [1] * anchors
    rows += [2] * (len(games) * len(cores_batches) * len(_cores_agents(agent_names, cores_via)))
    return rows + [1, 1] * sum(_plays(g, p, name) for g in games for p in env_players
                               for name in agent_names)


def _plays(game_id: str, players: int, agent_name: str) -> bool:
    """Whether the game has tables of ``players`` and ``agent_name`` can be made for one
    (``learned`` needs shipped weights)."""
    low, high = bluffsim.spec(game_id).players[:2]
    if not low <= players <= high:
        return False
    try:
        agents.make(agent_name, bluffsim.make(game_id, players))
    except bluffsim.BluffsimError:
        return False
    return True


def _cores_agents(agent_names: tuple[str, ...], via: str) -> tuple[str, ...]:
    """The agents of the ``--cores`` rows: each, with processes; random alone with threads (a
    ``prange`` over ``play_random``)."""
    return agent_names if via == "processes" else ("random",)


def bench_env(game_id: str, players: int, opponent: str, num_envs: int, seconds: float,
              repeats: int, fused: bool = True) -> dict[str, Any]:
    """Learner steps per second of the Gymnasium vector env (``num_envs`` games, random legal
    learner actions, every other seat ``opponent``), the opponents in the fused loop or
    stepped (``use_fused=False``): one table row, ``decisions_per_s`` = learner steps/s."""
    from bluffsim.adapters.gymnasium import throughput

    def run(clock_cpu: bool) -> float:
        return throughput(game_id, num_envs, opponents=opponent, num_players=players,
                          seconds=seconds, cpu=clock_cpu, use_fused=fused)

    wall = [run(False) for _ in range(repeats)]
    cpu = [run(True) for _ in range(repeats)]
    path = "fused" if fused else "stepwise"
    return {"game": game_id, "engine": f"vector env, {players} players, {path}",
            "agents": f"{opponent} opponents", "batch": num_envs,
            "decisions_per_s": float(np.median(wall)), "min": float(min(wall)),
            "max": float(max(wall)), "cpu_decisions_per_s": float(np.median(cpu)),
            "path": path, "load1": os.getloadavg()[0]}


class _Progress:
    """``bench_engines``'s progress lines: a plan first, then ``row_line`` of each row."""

    def __init__(self, out: Callable[[str], None] | None, planned: list[int], repeats: int,
                 seconds: float):
        self.out, self.total, self.done = out, len(planned), 0
        if out is not None:
            least = sum(planned) * repeats * seconds
            runs = "1 timed run" if repeats == 1 else f"the median of {repeats} timed runs"
            out(f"bench: {self.total} rows, each {runs} of at least {seconds:g} s: at least "
                f"{least:,.{0 if least >= 10 else 1}f} s in all (one line per row as it is measured)")

    def __call__(self, row: dict[str, Any]) -> dict[str, Any]:
        self.done += 1
        if self.out is not None:
            self.out(f"bench {self.done}/{self.total}: {row_line(row)}")
        return row


def row_line(row: dict[str, Any]) -> str:
    """One measured row in a line: what was measured and its median decisions per second."""
    what = f"{row['game']} {row['engine']} {row['agents']} batch {row['batch']:,}"
    line = (f"{what}: {_rate(row['decisions_per_s'])} decisions/s ({_rate(row['min'])} – "
            f"{_rate(row['max'])})")
    if not pd.isna(row.get("fused_decisions_per_s", np.nan)):
        line += f", fused {_rate(row['fused_decisions_per_s'])}"
    if not pd.isna(row.get("x_one_core", np.nan)):
        line += f", {_x(row['x_one_core'])}x one core"
    return line


def _bench_rows(games: list[str], players: int, batches: tuple[int, ...] | list[int],
                repeats: int, seconds: float, agent_names: tuple[str, ...],
                say: Callable[[dict[str, Any]], dict[str, Any]] = lambda row: row) -> list[dict]:
    rows = []
    for gid in games:
        for name in agent_names:
            ref = _stats([reference_run(gid, players, seconds, name) for _ in range(repeats)])
            rows.append(say({"game": gid, "engine": "reference", "agents": name, "batch": 1,
                             **ref, "x_reference": 1.0, "load1": os.getloadavg()[0]}))
            for b in batches:
                vec = _stats([vectorised_run(gid, players, b, seconds, name)
                              for _ in range(repeats)])
                state_bytes, peak = vectorised_memory(gid, players, b, name)
                row = {"game": gid, "engine": "vectorised", "agents": name, "batch": b, **vec,
                       "state_bytes": state_bytes, "peak_mib": peak,
                       "x_reference": vec["decisions_per_s"] / ref["decisions_per_s"]}
                if _has_fused(gid, players, name):
                    fused = _stats([vectorised_run(gid, players, b, seconds, name, fused=True)
                                    for _ in range(repeats)])
                    row.update({f"fused_{k}": fused[k] for k in FUSED})
                row["load1"] = os.getloadavg()[0]
                rows.append(say(row))
    return rows


# ===================================================================== printing
def _rate(v: float) -> str:
    return "–" if pd.isna(v) else f"{v:,.0f}"


def _x(v: float) -> str:
    return "–" if pd.isna(v) else f"{v:.2f}"


def anchor_lines(table: pd.DataFrame) -> list[str]:
    """One line per OpenSpiel anchor (median, min – max), or one line saying why skipped."""
    py = table[table["engine"] == ANCHOR_ENGINES["python"]]
    cpp = table[table["engine"] == ANCHOR_ENGINES["cpp"]]
    if py.empty and cpp.empty:
        return [f"OpenSpiel anchor: {table.attrs.get('openspiel', OPENSPIEL_SKIPPED)}; "
                "the x_openspiel columns are empty"]
    lines = []
    for _, r in py.iterrows():
        lines.append(f"OpenSpiel anchor: Python loop, liars_dice (numdice=5, 2 players), uniform "
                     f"random: {_rate(r['decisions_per_s'])} player decisions/s "
                     f"({_rate(r['min'])} – {_rate(r['max'])})")
    for _, r in cpp.iterrows():
        lines.append(f"OpenSpiel anchor: C++, RandomRolloutEvaluator under a one-simulation "
                     f"MCTSBot: {_rate(r['games_per_s'])} rollouts/s x "
                     f"{r['decisions_per_game']:.3f} player decisions per game = "
                     f"{_rate(r['decisions_per_s'])} player decisions/s "
                     f"({_rate(r['min'])} – {_rate(r['max'])})")
    if cpp.empty:
        lines.append(f"OpenSpiel anchor: C++ {table.attrs.get('openspiel_cpp', '')}")
    return lines


def summary_lines(table: pd.DataFrame) -> list[str]:
    """The anchors, then each game's random play against both anchors (stepwise, fused and on
    several cores), then the load average: what ``bluffsim bench`` prints under its table."""
    lines = anchor_lines(table)
    vec = table[(table["engine"] == "vectorised") & (table["agents"] == "random")]
    multi = table[table["cores"] > 1]
    if not vec.empty or not multi.empty:
        lines.append("Random play against both anchors (x OS py = x the Python loop, x OS C++ = "
                     "x the C++ rollouts; fused = engine + random agent in one compiled loop):")
        lines.append(f"  {'game':<8} {'batch':>6}  {'stepwise dec/s':>14} {'x OS py':>8} "
                     f"{'x OS C++':>8}  {'fused dec/s (min – max)':>36} {'x OS py':>8} "
                     f"{'x OS C++':>8}")
    for _, r in vec.iterrows():
        fused = ("–" if pd.isna(r["fused_decisions_per_s"]) else
                 f"{_rate(r['fused_decisions_per_s'])} ({_rate(r['fused_min'])} – "
                 f"{_rate(r['fused_max'])})")
        lines.append(f"  {r['game']:<8} {r['batch']:>6}  {_rate(r['decisions_per_s']):>14} "
                     f"{_x(r['x_openspiel']):>8} {_x(r['x_openspiel_cpp']):>8}  {fused:>36} "
                     f"{_x(r['fused_x_openspiel']):>8} {_x(r['fused_x_openspiel_cpp']):>8}")
    for _, r in multi.iterrows():
        lines.append(f"  {r['game']:<8} {r['batch']:>6}  {r['agents']}, "
                     f"{r['engine'].removeprefix('vectorised, ')}"
                     f", {r['path']}: {_rate(r['decisions_per_s'])} decisions/s ({_rate(r['min'])}"
                     f" – {_rate(r['max'])}) = {_x(r['x_one_core'])}x one core "
                     f"({_x(r['x_one_core_min'])} – {_x(r['x_one_core_max'])}; per CPU second "
                     f"{_x(r['x_one_core_cpu'])}x), x OS py {_x(r['x_openspiel'])}, "
                     f"x OS C++ {_x(r['x_openspiel_cpp'])}")
    agents_fused = table[(table["engine"] == "vectorised") & (table["agents"] != "random")
                         & table["fused_decisions_per_s"].notna()]
    if not agents_fused.empty:
        lines.append("Agents in every seat, stepwise (act + step) and fused (compiled policies "
                     "in the engine's loop), decisions/s per CPU second:")
    for _, r in agents_fused.iterrows():
        lines.append(f"  {r['game']:<8} {r['agents']:<10} batch {r['batch']:>6}: stepwise "
                     f"{_rate(r['cpu_decisions_per_s'])}, fused "
                     f"{_rate(r['fused_cpu_decisions_per_s'])} "
                     f"({_x(r['fused_cpu_decisions_per_s'] / r['cpu_decisions_per_s'])}x)")
    env = table[table["engine"].str.startswith("vector env")]
    if not env.empty:
        lines.append("Gymnasium vector env, learner steps/s (per CPU second):")
    for _, r in env.iterrows():
        lines.append(f"  {r['game']:<8} {r['engine'].removeprefix('vector env, '):<22} "
                     f"{r['agents']:<22} {r['batch']:>6} envs: {_rate(r['decisions_per_s'])} "
                     f"({_rate(r['min'])} – {_rate(r['max'])}; per CPU second "
                     f"{_rate(r['cpu_decisions_per_s'])})")
    start, end = table.attrs.get("load", (np.nan, np.nan))
    lines.append(f"load average (1 min): {start:.2f} at the start, {end:.2f} at the end "
                 f"({table['load1'].min():.2f} – {table['load1'].max():.2f} after the rows; "
                 f"{os.cpu_count()} CPUs)")
    return lines


def markdown_lines(table: pd.DataFrame) -> list[str]:
    """The table in Markdown (docs/bench.md's throughput table): medians with min – max, the ratio
    to the reference and to both anchors, for the batched loop and the fused loop (a vector-env
    row's decisions are the learner's steps)."""
    out = ["| game | engine | agents | batch | decisions/s | min – max | × ref | × OS py | "
           "× OS C++ | fused decisions/s | fused min – max | fused × OS py | fused × OS C++ | "
           "state B | peak MiB |",
           "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for _, r in table.iterrows():
        engine = r["engine"]
        if r["cores"] > 1:
            engine = f"{engine} ({r['path']}; {_x(r['x_one_core'])}× one core, " \
                     f"{_x(r['x_one_core_min'])} – {_x(r['x_one_core_max'])})"
        fused = not pd.isna(r["fused_decisions_per_s"])
        cells = [r["game"], engine, r["agents"], f"{r['batch']:,}", _rate(r["decisions_per_s"]),
                 f"{_rate(r['min'])} – {_rate(r['max'])}",
                 "–" if pd.isna(r["x_reference"]) else f"{r['x_reference']:.1f}",
                 _x(r["x_openspiel"]), _x(r["x_openspiel_cpp"]), _rate(r["fused_decisions_per_s"]),
                 f"{_rate(r['fused_min'])} – {_rate(r['fused_max'])}" if fused else "–",
                 _x(r["fused_x_openspiel"]), _x(r["fused_x_openspiel_cpp"]),
                 _rate(r["state_bytes"]), "–" if pd.isna(r["peak_mib"]) else f"{r['peak_mib']:.1f}"]
        out.append("| " + " | ".join(cells) + " |")
    return out


def bench_figure(table: pd.DataFrame) -> Any:
    """``analysis.plots.throughput_vs_batch`` plus, in the same colours, the fused loop
    (dotted), the several-core rows (triangles) and the C++ anchor (dash-dot line)."""
    from bluffsim.analysis.plots import throughput_vs_batch

    fig = throughput_vs_batch(table)
    ax = fig.axes[0]
    vec = table[table["engine"] == "vectorised"]
    for i, ((game, agent), part) in enumerate(vec.groupby(["game", "agents"], sort=True)):
        part = part.sort_values("batch")
        color = f"C{i % 10}"  # throughput_vs_batch's colour of this (game, agents)
        if part["fused_decisions_per_s"].notna().any():
            ax.plot(part["batch"], part["fused_decisions_per_s"], ls=":", marker=".", color=color,
                    label=f"{game} · {agent}, fused")
        multi = table[(table["cores"] > 1) & (table["game"] == game) & (table["agents"] == agent)]
        for _, r in multi.iterrows():
            ax.scatter([r["batch"]], [r["decisions_per_s"]], marker="^", s=50, color=color,
                       label=f"{game} · {agent}, {r['cores']} cores")
    for _, r in table[table["engine"] == ANCHOR_ENGINES["cpp"]].iterrows():
        ax.axhline(r["decisions_per_s"], color="black", ls="-.", lw=1.2,
                   label="OpenSpiel liars_dice, C++ rollouts")
    ax.set_ylabel("decisions per second (one core unless marked)")
    ax.legend(fontsize=6, loc="lower right", ncol=2)
    return fig
