"""``bluffsim play``: play a game in the terminal against bluffsim agents, or watch agents play.

Every seat is ``human`` or an agent name, optionally with parameters
(``heuristic:bluff=0.3:trust=0.7``).  The loop here is generic: it asks the
agents and the human for decisions, applies them on the reference engine and
prints what each decision showed.  All game text comes from the game's display
module, ``bluffsim.games.<id>.display`` (looked up by game id), which words an
action, the table and a round's end.

What a human sees is built from **their own observation** (their information
set) before and after each decision, and from the *public* part of an opponent's
action name (``GameDisplay.public_action``: ``play carrot-3`` -> ``play``), so a
face-down card is never shown before the rules reveal it, and then only to the
players the rules show it to.  ``--watch`` plays an all-agent game as an
omniscient spectator: every hand and every face-down card is shown, labelled
``[spectator view]``.

Input at a human's turn: the number of a listed action or its engine name;
bad input re-prompts; ``q`` or end of input leaves the game (exit status 0).
The game is reproducible from ``--seed`` (printed at the start; 0..2**64-1).
With several humans at one terminal the log is worded for the first human seat.
``--delay`` (seconds, finite, >= 0) paces ``--watch`` only.

A tournament game plays again exactly (same deal, decisions and placements) with
``bluffsim play GAME --watch --seed SEED --seats A,B,C --rule K=V ...``: the game's
rows in ``games.parquet`` give ``SEED`` (column ``seed``) and, in ``seat`` order, each
seat's label (column ``agent``); ``config.json``'s ``identity`` gives each label's agent
and ``params`` (``heuristic:bluff=0.3:call_margin=2.0``) and the run's ``rules``.
``replay_command(results_dir, game)`` writes that command.  It holds because agents draw
from streams keyed by (game seed, seat, decision) and the reference engine played here
agrees with the runner's compiled one bit for bit.

When numba's cache lacks the agents' compiled kernels (a first ``play`` with ``counting``
compiles for tens of seconds), ``play`` says so on stderr and compiles them before the game
starts, on a throwaway game the agents play among themselves (``TerminalGame.warm_up``),
so a human never waits mid-game.
"""

from __future__ import annotations

import math
import os
import random
import sys
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import agents as agent_registry
import bluffsim
from bluffsim import kernel_cache
from bluffsim.adapters.single import SingleGame
from bluffsim.api import BluffsimError
from bluffsim.games.display import Event, GameDisplay
from bluffsim.kernel_cache import COMPILING

HUMAN = "human"
SEED_MAX = 2**64 - 1
SPECTATOR = "[spectator view]"


# ---------------------------------------------------------------- seats and seeds
@dataclass(frozen=True)
class SeatSpec:
    """One seat of ``--seats``: ``human`` or an agent name with its parameters."""

    name: str
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """The seat as written on the command line, e.g. ``heuristic:bluff=0.3``."""
        return ":".join([self.name, *(f"{k}={v}" for k, v in self.params.items())])


def _param_value(text: str) -> Any:
    """A parameter value: a TOML scalar (number, bool, quoted string) or a bare string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def parse_seats(text: str, watch: bool = False) -> list[SeatSpec]:
    """Seats from ``human,counting,heuristic:bluff=0.3,mypkg.mod:MyAgent`` (``:`` separates an
    agent's ``name=value`` parameters; a custom ``package.module:ClassName`` is checked like
    ``agents.check_name``); unknown agents raise ``BluffsimError``.  A normal game
    needs a ``human`` seat; ``watch`` needs none."""
    seats = []
    for item in (s.strip() for s in text.split(",")):
        if not item:
            continue
        name, params = _seat_name_and_params(item)
        if name != HUMAN:
            check_seat_name(name)
        values: dict[str, Any] = {}
        for p in params:
            key, sep, value = p.partition("=")
            if not sep or not key.strip():
                raise BluffsimError(f"--seats: agent parameter {p!r} of {name!r}: write "
                                    f"NAME=VALUE, e.g. heuristic:bluff=0.3")
            values[key.strip()] = _param_value(value.strip())
        if name == HUMAN and values:
            raise BluffsimError("--seats: a human seat takes no parameters")
        seats.append(SeatSpec(name, values))
    humans = sum(s.name == HUMAN for s in seats)
    if watch and humans:
        raise BluffsimError("--watch: every seat must be an agent (no 'human' seat)")
    if not watch and not humans:
        raise BluffsimError("--seats: name at least one 'human' seat, e.g. human,counting "
                            "(or --watch to watch agents play)")
    return seats


def check_seat_name(name: str) -> None:
    """Refuse a seat that is neither ``human``, a registered agent nor an importable
    ``package.module:ClassName``, in one line that names it once."""
    try:
        agent_registry.check_name(name)
    except ValueError as e:
        if ":" in name:   # a class or text function that does not import: the name said once
            why = str(e).removeprefix(f"agent {name!r}: ")
            raise BluffsimError(f"--seats: unknown seat {name!r}: {why}") from None
        raise BluffsimError(f"--seats: unknown seat {name!r}; available: {HUMAN}, "
                            f"{', '.join(agent_registry.list_agents())}, or "
                            "\"package.module:ClassName\"") from None


def check_seat_count(game_id: str, seats: list[SeatSpec]) -> None:
    """Refuse a number of seats the game is not played by (one seat per player)."""
    lo, hi, _ = bluffsim.spec(game_id).players
    if not lo <= len(seats) <= hi:
        raise BluffsimError(f"--seats: {len(seats)} seat{'' if len(seats) == 1 else 's'}; "
                            f"{game_id} is played by {lo}..{hi} players, one seat each")


def _seat_name_and_params(item: str) -> tuple[str, list[str]]:
    """Split ``name:k=v:k=v``; a custom agent ``package.module:ClassName`` keeps its own ``:``
    (after a name that is neither ``human`` nor registered, a part without ``=`` is its class),
    and so does a text agent ``text:package.module:function``."""
    parts = [p.strip() for p in item.split(":")]
    if f"{parts[0]}:" == agent_registry.custom.TEXT_PREFIX and len(parts) > 2:
        return ":".join(parts[:3]), parts[3:]        # text:package.module:function
    known = parts[0] == HUMAN or parts[0] in agent_registry.list_agents()
    if not known and len(parts) > 1 and "=" not in parts[1]:
        return f"{parts[0]}:{parts[1]}", parts[2:]
    return parts[0], parts[1:]


def check_seed(seed: int | None) -> int:
    """The game seed: ``seed`` if it is in 0..2**64-1, a random one if None."""
    if seed is None:
        return random.SystemRandom().randrange(2**31)
    if not 0 <= seed <= SEED_MAX:
        raise BluffsimError(f"--seed {seed}: give an integer in 0..{SEED_MAX} (2**64-1)")
    return seed


def check_delay(delay: float, watch: bool) -> float:
    """``--delay``: a finite number of seconds >= 0, and only with ``--watch`` (a game with a
    human waits for their moves)."""
    if not math.isfinite(delay) or delay < 0:
        raise BluffsimError(f"--delay {delay:g}: give a finite number of seconds >= 0 (e.g. 0.5)")
    if delay and not watch:
        raise BluffsimError(f"--delay {delay:g} paces --watch only: a game with a human seat "
                            "waits for your moves")
    return delay


def display_for(game_id: str, rules: Any, labels: list[str], viewer: int,
                omniscient: bool = False) -> GameDisplay:
    """The display of ``game_id`` (its spec's ``display`` module, class ``DISPLAY``)."""
    module = bluffsim.spec(game_id).display_module()
    return module.DISPLAY(rules, labels, viewer, omniscient)


def agents_cold(vec: bluffsim.Game, names: list[str]) -> bool:
    """True when the compiled kernels of agents ``names`` (registered or ``package.module:Class``)
    are not in numba's cache, so their first decisions compile (a first ``play`` with
    ``counting``: tens of seconds).  The game itself runs on the reference engine and
    compiles nothing, so the engine's own kernels are left out."""
    classes = [agent_registry.custom.import_class(n) if agent_registry.custom.is_spec(n)
               else agent_registry.REGISTRY[n][vec.game_id]
               for n in names if agent_registry.custom.is_spec(n) or vec.game_id in
               agent_registry.REGISTRY.get(n, {})]
    if not classes:
        return False
    engine = getattr(type(vec), "kernels", None)
    skip = {id(engine.start_kernel), id(engine.step_kernel)} if engine is not None else set()
    return not all(kernel_cache.cached(d) for d in kernel_cache.entry_kernels(vec, classes)
                   if id(d) not in skip)


# ---------------------------------------------------------------- the loop
@dataclass
class Record:
    """What one decision printed (kept for tests and replays)."""

    seat: int
    action: str
    lines: list[str]


class TerminalGame:
    """One game between humans at this terminal and agents, or an all-agent game watched."""

    def __init__(self, game_id: str, seats: list[SeatSpec], seed: int, options: dict[str, Any],
                 read: Callable[[str], str] = input, out: TextIO = sys.stdout,
                 watch: bool = False, delay: float = 0.0, err: TextIO | None = None):
        self.single = SingleGame(game_id, len(seats), **options)
        self.game_id, self.seats, self.seed = game_id, seats, seed
        self.watch, self.delay = watch, delay
        vec = self.single.vectorised()
        names = [s.name for s in seats if s.name != HUMAN]
        # a custom class's contract check (agents.make) already calls act: a cold one compiles
        # there, so its note comes first; the built-in agents are built (and their parameters
        # checked) before theirs
        custom_cold = agents_cold(vec, [n for n in names if agent_registry.custom.is_spec(n)])
        if custom_cold:
            print(COMPILING, file=err or sys.stderr, flush=True)
        self.agents = {}
        for i, spec in enumerate(seats):
            if spec.name != HUMAN:
                try:
                    self.agents[i] = agent_registry.make(spec.name, vec, **spec.params)
                except (ValueError, TypeError) as e:
                    raise BluffsimError(f"--seats: seat {i}: {e}") from None
        if custom_cold or agents_cold(vec, names):
            if not custom_cold:
                print(COMPILING, file=err or sys.stderr, flush=True)
            self.warm_up()
        self.humans = [i for i, s in enumerate(seats) if s.name == HUMAN]
        self.viewer = self.humans[0] if self.humans else 0
        self.display = display_for(game_id, self.single.rules, [s.label for s in seats],
                                   self.viewer, omniscient=watch)
        self.read, self.out = read, out
        self.state = self.single.new_state(seed)
        self.log: list[Record] = []
        self.rounds = 0            # rounds played, the one under way included
        self.shown: dict[str, str] = {}   # --watch: the hands last printed

    def warm_up(self, max_decisions: int = 400) -> None:
        """Compile the agents' kernels before the game starts (not at a human's first wait): the
        agents play a throwaway game of the same rules and seed among themselves, every seat
        taken in turn, so each decision kernel they reach is compiled (agents keep no state
        between calls, so the real game is unchanged)."""
        lineup = list(self.agents.values())
        s = self.single.new_state(self.seed)
        for _ in range(max_decisions):
            if s.done:
                break
            agent = lineup[s.current_player % len(lineup)]
            self.single.apply(s, self.single.agent_action(agent, s, self.seed))

    def say(self, text: str = "") -> None:
        """Print a line."""
        print(text, file=self.out, flush=True)

    def play(self) -> bool:
        """Play to the end; False if a human left."""
        s = self.state
        self.say(f"{self.game_id}, seed {self.seed}: "
                 + ", ".join(f"seat {i} {spec.label}" for i, spec in enumerate(self.seats)))
        for line in self.display.opening(self.single.observation(s, self.viewer)):
            self.say(line)
        if self.watch:
            self.say(f"{SPECTATOR} every hand and every face-down card is shown: "
                     "no player at the table sees all this")
            self.say(f"{SPECTATOR} hands: {self.display.hands_line(s)}")
            self.shown = dict(self.display.hands_parts(s))
        while not s.done:
            seat = s.current_player
            if seat in self.agents:
                action = self.single.agent_action(self.agents[seat], s, self.seed)
            else:
                action = self.ask(seat)
                if action is None:
                    self.say("you left the game.")
                    return False
            self.step(seat, action)
        for line in self.display.final(s, self.rounds):
            self.say(line)
        return True

    def step(self, seat: int, action: int) -> None:
        """Apply ``action`` of ``seat`` and print what the viewer saw of it."""
        s = self.state
        name = self.single.action_names[action]
        observer = seat if self.watch else self.viewer
        before = self.single.observation(s, observer)
        state_before = self.single.clone(s) if self.watch else None
        rounds_before = s.num_rounds
        self.single.apply(s, action)
        # the round under way counts; a game ending mid-round leaves num_rounds behind by one
        self.rounds = s.num_rounds + (not (s.done and s.num_rounds != rounds_before))
        after = self.single.observation(s, observer)
        shown = name if (self.watch or seat == self.viewer) else self.display.public_action(name)
        ev = Event(actor=seat, name=shown, viewer=observer, before=before, after=after,
                   omniscient=self.watch, state_before=state_before,
                   state_after=s if self.watch else None)
        lines = self.display.describe(ev)
        if self.watch:
            changed = self.changed_hands()
            if changed:
                lines.append(f"  {SPECTATOR} changed: {self.display.hands_line(s, changed)}")
        for line in lines:
            self.say(line)
        self.log.append(Record(seat, name, lines))
        if self.watch and self.delay > 0:
            time.sleep(self.delay)

    def changed_hands(self) -> list[tuple[str, str]]:
        """--watch: the hands (and hidden piles) that changed since they were last printed, seats
        first; a pile that emptied reads ``none``, a seat no longer in play ``out``."""
        prev, now = self.shown, dict(self.display.hands_parts(self.state))
        self.shown = now
        keys = [*now, *(k for k in prev if k not in now)]
        seats = sorted((k for k in keys if k.startswith("seat ")), key=lambda k: int(k.split()[1]))
        changed = []
        for k in seats + [k for k in keys if not k.startswith("seat ")]:
            v = now.get(k, "out" if k.startswith("seat ") else "none")
            if prev.get(k) != v:
                changed.append((k, v))
        return changed

    def ask(self, seat: int) -> int | None:
        """Show ``seat``'s table and read a legal action (None when the human leaves)."""
        s = self.state
        legal = self.single.legal_actions(s)
        obs = self.single.observation(s, seat)
        self.say(f"\n=== seat {seat}, your turn ===")
        for line in self.display.status(obs):
            self.say(f"  {line}")
        names = [self.single.action_names[a] for a in legal]
        for n, name in enumerate(names):
            self.say(f"  [{n}] {self.display.action_label(name, obs)}")
        while True:
            try:
                answer = self.read(f"seat {seat}, your move (0-{len(legal) - 1}, name, q): ").strip()
            except EOFError:
                return None
            if answer == "q":
                return None
            if answer.isdigit() and int(answer) < len(legal):
                return legal[int(answer)]
            if answer in names:
                return legal[names.index(answer)]
            self.say(f"  {answer!r} is not a legal choice: enter a number 0-{len(legal) - 1}, "
                     f"one of the action names, or q to leave")


# ---------------------------------------------------------------- a tournament game again
def replay_command(results: str | Path, game: int) -> str:
    """The ``bluffsim play --watch`` command that replays game ``game`` of a ``bluffsim run``
    results dir exactly (same deal, decisions and placements): the game's ``seed`` and its seats
    in ``seat`` order from ``games.parquet`` (the ``agent`` column holds each seat's label),
    each label's agent and parameters and the run's rules from ``config.json``."""
    import json
    import shlex

    import pandas as pd

    out = Path(results)
    if not (out / "games.parquet").is_file() or not (out / "config.json").is_file():
        raise BluffsimError(f"{str(out)!r} holds no games.parquet and config.json; give a results "
                            "dir written by `bluffsim run`")
    rows = pd.read_parquet(out / "games.parquet", columns=["game", "seed", "seat", "agent"],
                           filters=[("game", "==", int(game))]).sort_values("seat")
    if rows.empty:
        raise BluffsimError(f"{str(out)!r} has no game {game}: games are numbered from 0 in the "
                            "`game` column of games.parquet")
    ident = json.loads((out / "config.json").read_text(encoding="utf-8"))["identity"]
    seat_of = {s["label"]: ":".join([s["agent"], *(f"{k}={json.dumps(v)}"
                                                   for k, v in s["params"].items())])
               for s in ident["seats"]}
    words = ["bluffsim", "play", ident["game"], "--watch", "--seed", str(int(rows["seed"].iloc[0])),
             "--seats", ",".join(seat_of[a] for a in rows["agent"])]
    for k, v in ident["rules"].items():
        words += ["--rule", f"{k}={json.dumps(v)}"]
    return shlex.join(words)


def play_in_terminal(game_id: str, seats_text: str, seed: int | None, options: dict[str, Any],
                     watch: bool = False, delay: float = 0.0) -> int:
    """``bluffsim play`` body: exit status 0 when the game finished or a human left with ``q``
    (130 on Ctrl-C)."""
    seats = parse_seats(seats_text, watch=watch)
    check_seat_count(game_id, seats)
    seed = check_seed(seed)
    delay = check_delay(delay, watch)
    try:
        TerminalGame(game_id, seats, seed, options, watch=watch, delay=delay).play()
    except BrokenPipeError:  # the output was piped into a pager or ``head`` that closed
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - stays open until exit
    except KeyboardInterrupt:
        print("\ninterrupted: the game is abandoned", file=sys.stderr)
        return 130
    return 0
