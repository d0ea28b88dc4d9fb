"""Experiment configs: strict TOML (stdlib ``tomllib``) -> a frozen, validated ``Experiment``.

```toml
[experiment]
name = "quickstart"      # used for the default output dir
game = "qdv"             # a bluffsim game id
players = 4              # seats; must equal the number of [[seats]]
games = 20000            # games to play
seed = 1                 # master seed: every game seed derives from it

[rules]                  # game options (bluffsim games lists them)
max_rounds = 300

[[seats]]                # the lineup, one table per seat
agent = "random"         # agents.list_agents()
label = "random"         # optional name in the results (default: agent, made unique)
params = {}              # agent parameters

[run]
batch = 1024             # games played side by side per process
workers = 2              # processes (local) or dask workers (dask, no address)
executor = "local"       # local | dask
address = ""             # dask scheduler address; empty = start a LocalCluster
rotate = true            # rotate the lineup so every agent sits in every seat equally
permute = false          # cycle through all P! seatings instead (neighbour order balanced too)
seating = ""             # "rotate" | "permute" | "balanced" by name; "" = the booleans decide
duplicate = false        # replay each deal under every rotation (variance reduction)
shard_games = 5000       # games per shard (unit of parallel work, writing and resume)
out = ""                 # output dir; default results/<name>
plots = true             # write PNG plots at the end
```

Unknown keys and bad values raise ``ConfigError`` naming the key, the value and
what is allowed: agents are built once, so their parameters are checked against
their declared types and ranges (``agents.base.Param``) at load, before anything
is written.  Decisions: ``num_players`` is refused in ``[rules]`` (the players
are ``experiment.players``); ``name`` must be a plain name (it names
``results/<name>`` and must stay inside it); at most ``MAX_GAMES`` games and
``MAX_SHARDS`` shards per run; ``address`` must look like a dask scheduler
address.  ``Experiment.with_overrides`` applies CLI overrides.
"""

from __future__ import annotations

import dataclasses
import json
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import agents
import bluffsim
from bluffsim.api import BluffsimError


class ConfigError(BluffsimError, ValueError):
    """An experiment config is malformed; the message names the key and what is allowed."""


@dataclass(frozen=True)
class Seat:
    """One lineup entry: an agent, its parameters and its label in the results."""

    agent: str
    label: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Experiment:
    """A validated experiment (see the module docstring for every key)."""

    name: str
    game: str
    players: int
    games: int
    seed: int
    rules: dict[str, Any]
    seats: tuple[Seat, ...]
    batch: int = 1024
    workers: int = 1
    executor: str = "local"
    address: str = ""
    rotate: bool = True
    duplicate: bool = False
    shard_games: int = 5000
    permute: bool = False
    seating: str = ""        # "" (rotate/permute decide) | "rotate" | "permute" | "balanced"
    out: str = ""
    plots: bool = True
    lineups: Any = None      # pools (bluffsim.tournament.pool): "combinations" | int; None = no pool

    @property
    def out_dir(self) -> Path:
        """Where results go: ``out`` or ``results/<name>``."""
        return Path(self.out or f"results/{self.name}")

    @property
    def labels(self) -> tuple[str, ...]:
        """Result labels of the lineup, in lineup order."""
        return tuple(s.label for s in self.seats)

    def to_dict(self) -> dict[str, Any]:
        """Plain, JSON-ready form (the resolved config saved next to the results)."""
        d = dataclasses.asdict(self)
        d["seats"] = [dataclasses.asdict(s) for s in self.seats]
        return d

    def identity(self) -> dict[str, Any]:
        """The keys that decide the games played (resume refuses a dir made by other values)."""
        d = self.to_dict()
        for key in RUN:
            if not key.identity:
                d.pop(key.name)
        if d["seating"] == "":   # the old booleans decide: identity as before the key existed
            d.pop("seating")
        return d

    @property
    def seating_mode(self) -> str:
        """The seating cycle played: "fixed" | "rotate" | "permute" | "balanced"."""
        if self.seating:
            return self.seating
        return "permute" if self.permute else "rotate" if self.rotate else "fixed"

    def to_toml(self) -> str:
        """The resolved config as TOML text (printed at the start of a run)."""
        d = self.to_dict()
        lines = ["[experiment]"]
        for k in ("name", "game", "players", "games", "seed"):
            lines.append(f"{k} = {json.dumps(d[k])}")
        lines.append("\n[rules]")
        lines += [f"{k} = {json.dumps(v)}" for k, v in d["rules"].items()]
        for s in d["seats"]:
            lines.append("\n[[pool]]" if self.lineups is not None else "\n[[seats]]")
            lines.append(f"agent = {json.dumps(s['agent'])}")
            lines.append(f"label = {json.dumps(s['label'])}")
            params = ", ".join(f"{k} = {json.dumps(v)}" for k, v in s["params"].items())
            lines.append(f"params = {{{params}}}")
        lines.append("\n[run]")
        for key in RUN:
            v = d[key.name]
            if v is not None:
                lines.append(f"{key.name} = {json.dumps(v)}")
        return "\n".join(lines) + "\n"

    def with_overrides(self, **overrides: Any) -> Experiment:
        """A copy with CLI overrides applied (``None`` = keep) and validated again."""
        changes = {k: v for k, v in overrides.items() if v is not None}
        exp = dataclasses.replace(self, **changes)
        _validate_run(exp)
        _validate_experiment(exp)
        return exp


SECTIONS = {"experiment", "rules", "seats", "pool", "run", "sweep"}
# Largest run: at the ~17,000 4-player qdv games/s of 2 cores, 10**9 games take about 16 hours
# and write about 60 GB of parquet; a bigger study is several runs with different seeds.
MAX_GAMES = 10**9
# Shards are files (two each) and resume units; more than this is a file system's worth of
# small files and a slow start: raise run.shard_games instead.
MAX_SHARDS = 100_000
# a dask scheduler address: [protocol://]host[:port]
ADDRESS_RE = re.compile(r"(?:(?:tcp|tls|ucx|ws|wss)://)?(?:[A-Za-z0-9_.-]+|\[[0-9A-Fa-f:.]+\])"
                        r"(?::\d{1,5})?")
EXPERIMENT_KEYS = {"name", "game", "players", "games", "seed"}
SEAT_KEYS = {"agent", "label", "params"}
EXECUTORS = ("local", "dask")
SEATINGS = ("rotate", "permute", "balanced")
MAX_BATCH = 1 << 20   # games in one batch: a batch's state is held in memory at once


@dataclass(frozen=True)
class RunKey:
    """One ``[run]`` key declared once: validation, the resolved-config dump and the CLI derive from it.

    ``check(value)`` is True for a valid value, ``allowed`` the error's "allowed"
    text; ``identity`` keys decide the games played (``--resume`` compares them);
    ``flag`` is the ``bluffsim run`` option overriding the key (``flag_kwargs`` for
    argparse; a ``store_true`` flag sets the key to ``flag_value``).
    """

    name: str
    default: Any
    check: Callable[[Any], bool]
    allowed: str
    meaning: str
    identity: bool = False
    flag: str = ""
    flag_kwargs: dict[str, Any] = field(default_factory=dict)
    flag_value: Any = None


def _bool_key(name: str, default: bool, meaning: str, identity: bool = False, **kw: Any) -> RunKey:
    return RunKey(name, default, lambda v: isinstance(v, bool), "true | false", meaning, identity, **kw)


# in the order of the resolved config's [run] table
RUN: tuple[RunKey, ...] = (
    RunKey("batch", 1024, lambda v: _is_int(v) and 1 <= v <= MAX_BATCH, f"an integer 1..{MAX_BATCH}",
           "games played side by side per process", flag="--batch",
           flag_kwargs={"type": int, "help": "override run.batch"}),
    RunKey("workers", 1, lambda v: _is_int(v) and 1 <= v <= 256, "an integer 1..256",
           "processes (local) or dask workers (dask, no address)", flag="--workers",
           flag_kwargs={"type": int, "help": "override run.workers"}),
    RunKey("executor", "local", lambda v: v in EXECUTORS, " | ".join(EXECUTORS), "local | dask",
           flag="--executor", flag_kwargs={"choices": list(EXECUTORS), "help": "override run.executor"}),
    RunKey("address", "", lambda v: isinstance(v, str) and (v == "" or bool(ADDRESS_RE.fullmatch(v))),
           "a dask scheduler address such as \"tcp://10.0.0.5:8786\", or \"\"",
           "dask scheduler address; empty = start a LocalCluster", flag="--address",
           flag_kwargs={"help": "dask scheduler address (implies --executor dask)"}),
    _bool_key("rotate", True, "rotate the lineup so every agent sits in every seat equally", True),
    _bool_key("permute", False, "cycle through all P! seatings instead (neighbour order balanced too)",
              True),
    RunKey("seating", "", lambda v: v == "" or v in SEATINGS,
           " | ".join(f'"{v}"' for v in SEATINGS) + " (or leave it out: rotate/permute decide)",
           "the seating cycle by name: rotate | permute | balanced (neighbour-balanced, P(P-1) "
           "seatings)", identity=True),
    _bool_key("duplicate", False, "replay each deal under every rotation (variance reduction)", True),
    RunKey("shard_games", 5000, lambda v: _is_int(v) and v >= 1, "an integer >= 1",
           "games per shard (unit of parallel work, writing and resume)", identity=True),
    RunKey("out", "", lambda v: isinstance(v, str), "a directory path",
           "output dir; default results/<name>", flag="--out",
           flag_kwargs={"help": "override run.out (output dir)"}),
    _bool_key("plots", True, "write PNG plots at the end", flag="--no-plots",
              flag_kwargs={"action": "store_true", "help": "skip the PNG plots"}, flag_value=False),
    RunKey("lineups", None, lambda v: True, "\"combinations\" or a number of lineups (with a [[pool]])",
           "pools: \"combinations\" | int; none = no pool (checked by tournament.pool)", identity=True),
)
RUN_KEYS = {k.name for k in RUN}
_RUN_FIELDS = {f.name: f.default for f in dataclasses.fields(Experiment) if f.name in RUN_KEYS}
if _RUN_FIELDS != {k.name: k.default for k in RUN}:
    raise TypeError(f"Experiment's [run] fields {_RUN_FIELDS} differ from the declared RUN keys")


def add_run_flags(parser: Any, only: tuple[str, ...] | None = None) -> None:
    """Add the ``bluffsim run`` options that override ``[run]`` keys (from ``RUN``); ``only``
    those keys (``bluffsim evaluate`` takes ``executor`` and ``address``)."""
    for key in RUN:
        if key.flag and (only is None or key.name in only):
            kw = dict(key.flag_kwargs)
            if kw.get("action") != "store_true" and "choices" not in kw:
                kw["metavar"] = key.name.upper()
            parser.add_argument(key.flag, dest=f"run_{key.name}", **kw)


def run_overrides(args: Any) -> dict[str, Any]:
    """The ``[run]`` overrides given on the command line (``None`` = keep the config's)."""
    out = {}
    for key in RUN:
        if key.flag:
            value = getattr(args, f"run_{key.name}", None)
            out[key.name] = (key.flag_value if value else None) if key.flag_value is not None else value
    return out


def check_run_key(name: str, value: Any) -> None:
    """``ConfigError`` naming ``--flag``/``run.<name>``, the value and what is allowed, unless
    ``value`` is valid for the ``[run]`` key ``name`` (for commands that take a run key without
    a config, e.g. ``bluffsim evaluate --executor``)."""
    key = next(k for k in RUN if k.name == name)
    _check(key.check(value), key.flag or f"run.{name}", value, key.allowed)


def load_config(path: str | Path) -> Experiment:
    """Read and validate a TOML experiment config."""
    return parse_config(load_raw(path), source=str(path))


def load_raw(path: str | Path) -> dict[str, Any]:
    """Read a TOML config file without validating it (``--set`` and sweeps edit it first)."""
    p = Path(path)
    if p.is_dir():
        raise ConfigError(f"config {str(p)!r} is a directory; give an experiment TOML file, "
                          "e.g. experiments/quickstart.toml")
    if not p.is_file():
        raise ConfigError(f"config file {str(p)!r} not found")
    try:
        return tomllib.loads(p.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{p}: malformed TOML: {e}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{p}: not a UTF-8 text file") from None


def parse_config(raw: dict[str, Any], source: str = "config") -> Experiment:
    """Validate a parsed config dict (see the module docstring)."""
    _no_unknown(raw, SECTIONS, source, "top-level section")
    ex = _table(raw, "experiment", source)
    _no_unknown(ex, EXPERIMENT_KEYS, source, "key in [experiment]")
    for key in ("game", "players", "games"):
        if key not in ex:
            raise ConfigError(f"{source}: [experiment] needs {key!r}")
    rules = _table(raw, "rules", source, required=False)
    run = _table(raw, "run", source, required=False)
    _no_unknown(run, RUN_KEYS, source, "key in [run]")
    if "sweep" in raw:
        raise ConfigError(f"{source}: a [sweep] config is loaded with "
                          "bluffsim.tournament.sweep.load_plan (bluffsim run does)")
    if "pool" in raw:
        if "seats" in raw:
            raise ConfigError(f"{source}: give either [[seats]] (one per seat) or [[pool]] "
                              "(a pool of agents larger than the table), not both")
        run = {"lineups": "combinations", **run}
    elif "lineups" in run:
        raise ConfigError(f"{source}: run.lineups needs a [[pool]] of agents instead of [[seats]]")
    seats_raw = raw.get("pool", raw.get("seats"))
    if not isinstance(seats_raw, list) or not seats_raw:
        raise ConfigError(f"{source}: needs a lineup: one [[seats]] table per seat, "
                          "each with agent = \"<name>\" (or a [[pool]] of agents)")
    seats = _parse_seats(seats_raw, source, "pool" if "pool" in raw else "seats")
    name = ex.get("name", Path(source).stem)
    _check(isinstance(name, str) and name.strip() != "", "experiment.name", name,
           "a non-empty string")
    if "num_players" in rules:
        raise ConfigError(f"{source}: num_players is not a [rules] option in a config: the number "
                          "of players is experiment.players (with one [[seats]] per seat); move "
                          f"num_players = {rules['num_players']!r} there as players")
    exp = Experiment(
        name=name, game=ex["game"], players=ex["players"], games=ex["games"],
        seed=ex.get("seed", 0), rules=dict(rules), seats=seats, **run)
    _validate_run(exp)
    _validate_experiment(exp)
    return exp


def _parse_seats(seats_raw: list[Any], source: str, section: str = "seats") -> tuple[Seat, ...]:
    names = []
    for i, s in enumerate(seats_raw):
        if not isinstance(s, dict):
            raise ConfigError(f"{source}: {section}[{i}] must be a table with agent = \"<name>\"")
        _no_unknown(s, SEAT_KEYS, source, f"key in {section}[{i}]")
        if "agent" not in s:
            raise ConfigError(f"{source}: {section}[{i}] needs agent = \"<name>\"; "
                              f"agents: {', '.join(agents.list_agents())}")
        _check(isinstance(s.get("params", {}), dict), f"{section}[{i}].params", s.get("params"),
               "a table of agent parameters")
        names.append(s["agent"])
    seats = []
    for i, s in enumerate(seats_raw):
        short = str(s["agent"]).rpartition(":")[2]  # "package.module:ClassName" -> ClassName
        label = s.get("label") or (short if names.count(s["agent"]) == 1 else f"{short}-{i}")
        seats.append(Seat(agent=s["agent"], label=str(label), params=dict(s.get("params", {}))))
    labels = [s.label for s in seats]
    if len(set(labels)) != len(labels):
        raise ConfigError(f"{source}: seat labels must be unique; got {labels}")
    return tuple(seats)


def _validate_experiment(exp: Experiment) -> None:
    """Game, players, rules and agents exist and fit together (builds them once)."""
    _check(exp.game in bluffsim.list_games(), "experiment.game", exp.game,
           " | ".join(bluffsim.list_games()))
    _check(_is_int(exp.players), "experiment.players", exp.players, "an integer")
    _check(isinstance(exp.name, str) and _is_plain_name(exp.name), "experiment.name", exp.name,
           "a plain name without '/', '\\' or a leading '.' (it names the dir results/<name>)")
    _check(_is_int(exp.games) and exp.games >= 1, "experiment.games", exp.games,
           "an integer >= 1")
    _check(exp.games <= MAX_GAMES, "experiment.games", exp.games,
           f"at most {MAX_GAMES:,} per run (about 16 hours and 60 GB of parquet on 2 cores); "
           "split a bigger study into runs with different seeds")
    shards = -(-exp.games // exp.shard_games)
    _check(shards <= MAX_SHARDS, "run.shard_games", exp.shard_games,
           f"at least {-(-exp.games // MAX_SHARDS):,} for {exp.games:,} games (at most "
           f"{MAX_SHARDS:,} shards per run)")
    _check(_is_int(exp.seed) and 0 <= exp.seed < 2**63, "experiment.seed", exp.seed,
           "an integer in 0..2**63-1")
    try:
        game = bluffsim.make(exp.game, exp.players, **exp.rules)
    except bluffsim.RulesError as e:
        raise ConfigError(f"[rules]/[experiment]: {e}") from None
    from bluffsim.tournament.pool import check_pool

    if exp.lineups is not None:
        problem = check_pool(exp)
        if problem:
            raise ConfigError(problem)
    elif len(exp.seats) != exp.players:
        raise ConfigError(f"the lineup has {len(exp.seats)} [[seats]] but players = "
                          f"{exp.players}; give one [[seats]] per seat")
    for i, s in enumerate(exp.seats):
        try:
            agents.make(s.agent, game, **s.params)
        except ValueError as e:
            raise ConfigError(f"{'pool' if exp.lineups is not None else 'seats'}[{i}]: {e}") from None


def _validate_run(exp: Experiment) -> None:
    for key in RUN:
        value = getattr(exp, key.name)
        _check(key.check(value), f"run.{key.name}", value, key.allowed)
    if exp.seating and (not exp.rotate or (exp.permute and exp.seating != "permute")):
        clash = "rotate = false" if not exp.rotate else "permute = true"
        raise ConfigError(f"run.seating = {exp.seating!r} contradicts run.{clash}; allowed: "
                          "seating = \"rotate\" | \"permute\" | \"balanced\" alone, or the "
                          "booleans rotate / permute without seating")


def _table(raw: dict[str, Any], key: str, source: str, required: bool = True) -> dict[str, Any]:
    value = raw.get(key, None if required else {})
    if not isinstance(value, dict):
        raise ConfigError(f"{source}: [{key}] must be a table" if value is not None
                          else f"{source}: missing [{key}] table")
    return value


def _no_unknown(d: dict[str, Any], allowed: set[str], source: str, what: str) -> None:
    for k in d:
        if k not in allowed:
            raise ConfigError(f"{source}: unknown {what} {k!r}; allowed: "
                              f"{', '.join(sorted(allowed))}")


def _check(ok: bool, key: str, value: Any, allowed: str) -> None:
    if not ok:
        raise ConfigError(f"{key} = {value!r} is invalid; allowed: {allowed}")


def _is_plain_name(name: str) -> bool:
    """A name that stays one dir inside results/: no separators, not '.' or '..' or hidden."""
    return (name.strip() != "" and not name.startswith(".") and "/" not in name
            and "\\" not in name and "\0" not in name)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)
