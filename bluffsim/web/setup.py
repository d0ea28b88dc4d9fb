"""What ``bluffsim serve`` serves, checked before the server starts: the game and its rules, the
table (the human's seat and the opponents), the master seed, the address and the results dir.

Every bad flag is a ``BluffsimError`` of one line naming the flag, the value and what is
allowed.  The table is a ``bluffsim.tournament`` ``Experiment`` with fixed seating (lineup entry
``j`` sits at seat ``j``, the human's entry labelled ``human``): the results dir holds what
``bluffsim run`` of that experiment would write, so the report, the notebooks and
``bluffsim replay`` read it as any run.  Game ``k`` is dealt from seed
``word(master, SCHEDULE, k)``, the seed ``bluffsim run`` gives its game ``k``.
"""

from __future__ import annotations

import dataclasses
import json
import random
import socket
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import agents
import bluffsim
from bluffsim.api import BluffsimError
from bluffsim.play import HUMAN, SeatSpec, parse_seats
from bluffsim.results import LOCK_FILE, check_not_in_use
from bluffsim.tournament.config import Experiment, Seat, _parse_seats
from bluffsim.tournament.output import describe_differences
from bluffsim.tournament.runner import schedule_of

SEED_MAX = 2**63 - 1          # a results dir's master seed (experiment.seed)
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


@dataclass(frozen=True)
class ServeSetup:
    """The checked flags of ``bluffsim serve`` (module docstring)."""

    game: str
    players: int
    seat: int
    opponents: tuple[SeatSpec, ...]
    rules: dict[str, Any]
    seed: int
    host: str
    port: int
    out: Path
    first_game: int = 0       # the number of the next game (games started in this dir before)

    @property
    def seats(self) -> list[SeatSpec]:
        """Every seat in order: the opponents with the human at ``seat``."""
        seats = list(self.opponents)
        seats.insert(self.seat, SeatSpec(HUMAN))
        return seats

    def experiment(self, games: int) -> Experiment:
        """The results dir's experiment after ``games`` games were started (module docstring)."""
        raw = [{"agent": s.name, "params": dict(s.params)} if s.name != HUMAN
               else {"agent": HUMAN, "label": HUMAN} for s in self.seats]
        seats: tuple[Seat, ...] = _parse_seats(raw, "--opponents")
        return Experiment(name=experiment_name(self.out), game=self.game, players=self.players,
                          games=max(games, 1), seed=self.seed, rules=dict(self.rules),
                          seats=seats, batch=1, rotate=False, shard_games=1, out=str(self.out),
                          plots=False)

    def seed_of(self, game: int) -> int:
        """The seed of game number ``game`` (``bluffsim run``'s for its game ``game``)."""
        sched = schedule_of(self.experiment(game + 1))
        return int(sched.seeds(np.array([game], np.int64))[0])

    def describe(self) -> str:
        """``qdv, 3 players: you at seat 0; seat 1 counting, seat 2 heuristic``."""
        others = ", ".join(f"seat {i} {s.label}" for i, s in enumerate(self.seats) if s.name != HUMAN)
        return f"{self.game}, {self.players} players: you at seat {self.seat}; {others}"


def experiment_name(out: Path) -> str:
    """The experiment name of a results dir: its directory name (``serve`` if it has none)."""
    name = out.resolve().name
    return name if name and not name.startswith(".") else "serve"


# ---------------------------------------------------------------- flags
def parse_rules(items: list[str]) -> dict[str, Any]:
    """``--rule NAME=VALUE`` options (values read as TOML scalars, else as text)."""
    options: dict[str, Any] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise BluffsimError(f"--rule {item!r}: write NAME=VALUE, e.g. starting_tokens=3")
        if name.strip() == "num_players":
            raise BluffsimError(f"--rule {item!r}: the number of players is --players, not a rule")
        try:
            options[name.strip()] = tomllib.loads(f"v = {value}")["v"]
        except tomllib.TOMLDecodeError:
            options[name.strip()] = value
    return options


def parse_opponents(text: str | None, game: str, players: int | None) -> tuple[SeatSpec, ...]:
    """The agents of ``--opponents`` (one per other seat, or one for every other seat); without
    the flag, the opponents of ``bluffsim play``'s default seats, repeated to fill the table."""
    if text is None:
        default = [s for s in bluffsim.spec(game).terminal_seats().split(",") if s != HUMAN]
        count = (players or len(default) + 1) - 1
        return tuple(parse_seats(",".join(default[i % len(default)] for i in range(count)),
                                 watch=True))
    names = [s.strip() for s in text.split(",")]
    if not all(names):
        raise BluffsimError(f"--opponents {text!r}: give agent names separated by commas, "
                            "e.g. counting,heuristic")
    if HUMAN in (n.split(":")[0] for n in names):
        raise BluffsimError(f"--opponents {text!r}: the human is the browser's seat (--seat); "
                            "opponents are agents, e.g. counting,heuristic:bluff=0.3")
    try:
        seats = parse_seats(text, watch=True)
    except BluffsimError as e:   # play's wording of a seat, said of an opponent
        raise BluffsimError(str(e).replace("--seats", "--opponents", 1)
                            .replace("unknown seat", "unknown agent", 1)
                            .replace(f"available: {HUMAN}, ", "available: ", 1)) from None
    if players is not None and len(seats) == 1:
        seats = seats * (players - 1)
    if players is not None and len(seats) != players - 1:
        raise BluffsimError(f"--opponents {text!r}: {len(seats)} agents for --players {players}; "
                            f"give {players - 1} (one per other seat) or one for every other seat")
    return tuple(seats)


def check_agents(game: str, players: int, rules: dict[str, Any], seat: int,
                 opponents: tuple[SeatSpec, ...]) -> None:
    """Build every opponent once, so a bad agent parameter is refused before the server starts."""
    vec = bluffsim.make(game, players, **rules)
    seats = [i for i in range(players) if i != seat]
    for i, spec in zip(seats, opponents, strict=True):
        try:
            agents.make(spec.name, vec, **spec.params)
        except (ValueError, TypeError) as e:
            raise BluffsimError(f"--opponents: seat {i} ({spec.label}): {e}") from None


def check_players(game: str, players: int) -> None:
    """Refuse a table size the game is not played at."""
    lo, hi, _ = bluffsim.spec(game).players
    if not lo <= players <= hi:
        raise BluffsimError(f"--players {players}: {game} is played by {lo}..{hi} players "
                            "(the human and the opponents)")


def check_seat(seat: int, players: int) -> None:
    """Refuse a seat outside the table."""
    if not 0 <= seat < players:
        raise BluffsimError(f"--seat {seat}: give a seat 0..{players - 1} ({players} players)")


def check_port(port: int) -> None:
    """Refuse a port number outside 0..65535 (0: any free port)."""
    if not 0 <= port <= 65535:
        raise BluffsimError(f"--port {port}: give a port 0..65535 (0: any free port)")


def check_seed(seed: int) -> int:
    """The master seed, in 0..2**63-1 (a results dir's ``experiment.seed``)."""
    if not 0 <= seed <= SEED_MAX:
        raise BluffsimError(f"--seed {seed}: give an integer in 0..{SEED_MAX} (2**63-1)")
    return seed


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port``; a port in use or an address that is not this
    machine's is a one-line error."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as e:
        raise BluffsimError(f"--host {host!r}: not an address of this machine ({e.strerror})") \
            from None
    family, _, _, _, address = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(128)
    except OSError as e:
        sock.close()
        if e.errno == 98 or "in use" in str(e).lower():
            raise BluffsimError(f"--port {port}: port {port} on {host} is in use (another server "
                                "runs there); choose another with --port, or --port 0 for any "
                                "free one") from None
        raise BluffsimError(f"--host {host!r} --port {port}: cannot listen there "
                            f"({e.strerror or e})") from None
    sock.set_inheritable(True)
    return sock


# ---------------------------------------------------------------- the results dir
def saved_setup(out: Path) -> dict[str, Any] | None:
    """The ``config.json`` of the results dir ``out`` (None when there is none yet); refuses a
    dir that is a file, holds something else, or is in use by another server or run."""
    if out.exists() and not out.is_dir():
        raise BluffsimError(f"--out {str(out)!r} is a file; give a directory for the results")
    if not out.is_dir():
        return None
    check_not_in_use(out)
    cfg = out / "config.json"
    if not cfg.is_file():
        if any(p.name != LOCK_FILE for p in out.iterdir()):
            raise BluffsimError(f"--out {str(out)!r} is not empty and holds no results "
                                "(no config.json); choose another dir with --out")
        return None
    try:
        saved = json.loads(cfg.read_text(encoding="utf-8"))
        if isinstance(saved["identity"], dict) and isinstance(saved["config"], dict):
            return saved
    except (OSError, ValueError, KeyError, TypeError):
        pass
    raise BluffsimError(f"--out {str(out)!r}: its config.json is not one bluffsim writes; "
                        "choose another dir with --out")


def continued(setup: ServeSetup, saved: dict[str, Any] | None, seed_given: bool) -> ServeSetup:
    """``setup`` continuing the games of a results dir made by the same setup (the next game
    number after those started there, its master seed unless ``--seed`` was given); a dir of
    another setup is refused, naming what differs."""
    if saved is None:
        return setup
    if not seed_given and isinstance(saved["config"].get("seed"), int):
        setup = dataclasses.replace(setup, seed=saved["config"]["seed"])
    now = json.loads(json.dumps(setup.experiment(1).identity(), default=str))
    there = dict(saved["identity"])
    games = there.pop("games", 0)
    now.pop("games")
    if there != now:
        raise BluffsimError(f"--out {str(setup.out)!r} holds games of another setup: "
                            f"{describe_differences(there, now)}; choose another dir with --out")
    return dataclasses.replace(setup, first_game=int(games))


def from_flags(args: Any) -> ServeSetup:
    """The checked setup of the ``serve`` flags (binding the port is ``bind``'s)."""
    game = args.game
    bluffsim.spec(game)
    if args.players is not None:
        check_players(game, args.players)
    opponents = parse_opponents(args.opponents, game, args.players)
    players = len(opponents) + 1
    check_players(game, players)
    check_seat(args.seat, players)
    rules = parse_rules(args.rule)
    bluffsim.spec(game).make_rules(players, **rules)      # RulesError names a bad option
    check_agents(game, players, rules, args.seat, opponents)
    check_port(args.port)
    seed = check_seed(args.seed) if args.seed is not None else random.SystemRandom().randrange(2**31)
    out = Path(args.out or f"results/serve_{game}")
    setup = ServeSetup(game, players, args.seat, opponents, rules, seed, args.host, args.port, out)
    return continued(setup, saved_setup(out), args.seed is not None)
