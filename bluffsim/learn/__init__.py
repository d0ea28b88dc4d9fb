"""Training learned agents: TOML configs and opponent mixtures (numpy only; PPO itself is in ``ppo``).

A training config (``bluffsim train CONFIG``, e.g. ``experiments/train_qdv_2p.toml``)::

    [train]
    game = "qdv"            # game id
    players = 2             # seats; the learner plays one, rotating (seat = "rotate") or fixed
    seed = 1                # seeds the network init, the env's games (reset seed) and sampling
    envs = 512              # games played side by side (vector env)
    rollout = 32            # learner decisions per game slot per iteration
    iterations = 300        # PPO iterations (envs * rollout decisions each)
    hidden = [128, 128]     # MLP hidden sizes (tanh)
    lr = 3e-4               # Adam step size (linearly decayed to 0 if anneal = true)
    anneal_iterations = 400 # the decay reaches 0 after this many iterations (default: iterations;
                            # more = a run stopped early on the schedule of a longer one)
    anneal_restarts = []    # iterations where the decay starts again from lr, each segment
                            # reaching 0 at its end (warm restarts: bluffsim.plateau)
    epochs = 4              # passes over each rollout
    minibatches = 4
    gamma = 0.995           # discount per learner decision
    gae_lambda = 0.95
    clip = 0.2              # PPO ratio clip
    ent_coef = 0.01
    vf_coef = 0.5
    max_grad_norm = 0.5
    reward = "zero_sum"     # or "win" (bluffsim.adapters.gymnasium)
    end_when_out = false    # end the learner's episode once its place is settled (games
                            # whose spec declares `settled`, e.g. qdv, veru)
    shaping = 0.0           # + shaping * change of the game's potential (its spec's `potential`;
                            # qdv: the learner's share of the tokens in play)
    deals = 0               # 0: every deal; n: only game seeds 0..n-1 (an OpenSpiel preset's)
    checkpoint_every = 10   # iterations between checkpoints (out/checkpoint.npz)
    snapshot_every = 25     # iterations between frozen copies added to the opponent pool
    out = "results/train_qdv_2p"              # checkpoints, log.csv
    weights = "agents/weights/qdv_2p.npz"      # the trained policy (agents.learned format)

    [opponents]             # each opponent seat of each game draws one member of the mixture
    agents = ["random", "heuristic:bluff=0.3", "counting"]
    weights = [1.0, 2.0, 2.0]
    snapshots = 0.3         # share of the mixture given to past snapshots (split equally)
    max_snapshots = 5       # keep the most recent ones
    responses = 0.2         # share given to best responses to past snapshots (PSRO style):
                            # at each snapshot a short PPO run trains a response against it
                            # (every other seat the snapshot) and it joins the mixture
    max_responses = 4       # keep the most recent ones
    response_iterations = 40  # PPO iterations of each response (256 games x 16 decisions each)

    [rules]                 # rules options of the game (as experiment configs)

An ``[opponents] agents`` entry is written as on the command line (``bluffsim exploit --agent``,
``bluffsim evaluate``): a registered agent (``"counting"``), with ``:k=v`` parameters separated by
commas (``"heuristic:bluff=0.3,call_margin=1"``; values are TOML scalars), a class of your own
(``"package.module:ClassName"``, then ``:k=v`` parameters; imported from the working directory
first), a trained policy (``"learned:weights=PATH"``), or as an inline table like an experiment
config's seat (``{ agent = "learned", params = { weights = "PATH" } }``, the form for a path that
holds ``:`` or ``,``).  Each is built for the game when the config loads, so an unknown agent or
parameter, a class that does not fit the agent contract or a missing weights file is a one-line
error naming the entry before anything is written.  Agents with a compiled policy (the built-in
ones) play inside the fused loop of the training env; a class of your own has none, so when one
is in the mixture every opponent plays through Python (same games, slower; ``bluffsim train``
says so).
"""

from __future__ import annotations

import json
import math
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import numpy as np

import bluffsim
from agents.base import Traits
from bluffsim import rng as brng
from bluffsim.api import REWARD_KINDS, BluffsimError
from bluffsim.rng import AgentRNG
from bluffsim.tournament.config import MAX_BATCH, ConfigError, RunKey, _check, _is_int

MIX_STREAM = brng.Stream.MIX  # picks the mixture member of each (game, seat)

# A best response's training (``bluffsim exploit``'s approximate best response, and the
# population's responses to snapshots, ``[opponents] responses``): games side by side, learner
# decisions per game slot per PPO iteration, and the PPO settings (the shipped qdv configs'
# step size and entropy bonus).
RESPONSE_ENVS = 256
RESPONSE_ROLLOUT = 16
RESPONSE_PPO = {"lr": 8e-4, "epochs": 4, "minibatches": 4, "gamma": 0.995, "gae_lambda": 0.95,
                "ent_coef": 0.005, "hidden": (128, 128)}


@dataclass(frozen=True)
class TrainConfig:
    """A training run's settings (module docstring)."""

    game: str = ""      # required in a config: load_train_config refuses a missing game
    players: int = 2
    seed: int = 1
    envs: int = 512
    rollout: int = 32
    iterations: int = 300
    hidden: tuple[int, ...] = (128, 128)
    lr: float = 3e-4
    anneal: bool = True
    anneal_iterations: int | None = None
    anneal_restarts: tuple[int, ...] = ()
    epochs: int = 4
    minibatches: int = 4
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    reward: str = "zero_sum"
    end_when_out: bool = False
    shaping: float = 0.0
    deals: int = 0
    seat: str | int = "rotate"
    checkpoint_every: int = 10
    snapshot_every: int = 25
    out: str = "results/train"
    weights: str = "results/train/weights.npz"
    opponents: tuple[str | dict[str, Any], ...] = ("random", "heuristic", "counting")
    opponent_weights: tuple[float, ...] = (1.0, 1.0, 1.0)
    snapshots: float = 0.0
    max_snapshots: int = 5
    responses: float = 0.0
    max_responses: int = 4
    response_iterations: int = 40
    rules: dict[str, Any] = field(default_factory=dict)
    source: str = ""

    def with_overrides(self, **kw: Any) -> TrainConfig:
        """A copy with the non-None keywords replaced, validated again."""
        cfg = replace(self, **{k: v for k, v in kw.items() if v is not None})
        cfg.validate()
        return cfg

    def validate(self) -> None:
        """Every key against its declared check (``TRAIN``, ``OPPONENTS``), then the keys together;
        raises ``ConfigError`` naming the key, its value and what is allowed."""
        self.check_keys()
        if len(self.opponent_weights) != len(self.opponents):
            raise ConfigError(f"opponents.weights has {len(self.opponent_weights)} entries for "
                              f"{len(self.opponents)} agents; allowed: one weight per agent")
        _check(sum(self.opponent_weights) > 0, "opponents.weights", list(self.opponent_weights),
               "at least one weight above 0")
        _check(self.snapshots + self.responses < 1, "opponents.responses", self.responses,
               f"a number with snapshots + responses < 1 (snapshots = {self.snapshots:g})")
        try:
            bluffsim.make(self.game, self.players, **self.rules)
        except bluffsim.RulesError as e:
            raise ConfigError(f"[rules]/train.players: {e}") from None
        self.check_opponents()
        _check(self.seat == "rotate" or self.seat < self.players, "train.seat", self.seat,
               f"\"rotate\" or a seat 0..{self.players - 1}")
        _check(self.minibatches <= self.envs * self.rollout, "train.minibatches", self.minibatches,
               f"at most envs * rollout = {self.envs * self.rollout} (decisions per iteration)")
        # which games support them: those whose spec declares ``settled`` / ``potential``
        settled = [g for g in bluffsim.list_games() if bluffsim.spec(g).settled is not None]
        potentials = [g for g in bluffsim.list_games() if bluffsim.spec(g).potential is not None]
        _check(not self.end_when_out or self.game in settled, "train.end_when_out",
               self.end_when_out, f"false, or true with the games {', '.join(settled)}")
        _check(not self.shaping or self.game in potentials, "train.shaping", self.shaping,
               f"0.0, or a number with the games {', '.join(potentials)}")
        self.check_schedule()

    def check_opponents(self) -> None:
        """Build every ``[opponents] agents`` entry for the game once (name, parameters, weights
        file, a custom class's contract); raises ``ConfigError`` naming the entry."""
        game = bluffsim.make(self.game, self.players, **self.rules)
        for entry in self.opponents:
            build_opponent(parse_opponent(entry), game)

    def check_keys(self) -> None:
        """Each key alone against its declared check (``TRAIN``, ``OPPONENTS``)."""
        for key in TRAIN:
            _check(key.check(getattr(self, key.name)), f"train.{key.name}", getattr(self, key.name),
                   key.allowed)
        for key in OPPONENTS:
            value = getattr(self, OPPONENT_FIELDS[key.name])
            _check(key.check(value), f"opponents.{key.name}", value, key.allowed)

    def check_schedule(self) -> None:
        """Refuse an ``anneal_iterations`` below ``iterations``: the step size would sit at 0 for
        the last iterations."""
        if self.anneal and self.anneal_iterations is not None and self.anneal_iterations < self.iterations:
            raise ConfigError(f"train.anneal_iterations ({self.anneal_iterations}) is below iterations "
                              f"({self.iterations}): the step size would be 0 for the last iterations; "
                              "allowed: at least iterations, or leave it out")
        end = self.anneal_iterations or self.iterations
        _check(not self.anneal_restarts or (self.anneal and self.anneal_restarts[-1] < end),
               "train.anneal_restarts", list(self.anneal_restarts),
               f"increasing iterations below anneal_iterations ({end}), with anneal = true")


def _num(v: Any) -> bool:
    """A finite int or float (not a bool)."""
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _int_key(name: str, meaning: str, low: int = 1, high: int | None = None) -> RunKey:
    allowed = f"an integer {low}..{high}" if high is not None else f"an integer >= {low}"
    return RunKey(name, None, lambda v: _is_int(v) and low <= v and (high is None or v <= high),
                  allowed, meaning)


def _num_key(name: str, meaning: str, low: float, high: float | None = None,
             low_open: bool = False) -> RunKey:
    def ok(v: Any) -> bool:
        return _num(v) and (v > low if low_open else v >= low) and (high is None or v <= high)

    allowed = (f"a number in [{low:g}, {high:g}]" if high is not None
               else f"a finite number {'>' if low_open else '>='} {low:g}")
    return RunKey(name, None, ok, allowed, meaning)


def _bool_key(name: str, meaning: str) -> RunKey:
    return RunKey(name, None, lambda v: isinstance(v, bool), "true | false", meaning)


# The [train] keys, each with its check and "allowed" text (as the [run] keys of experiment
# configs: bluffsim.tournament.config.RUN); defaults are TrainConfig's.
TRAIN: tuple[RunKey, ...] = (
    RunKey("game", None, lambda v: v in bluffsim.list_games(), " | ".join(bluffsim.list_games()),
           "game id"),
    RunKey("players", None, _is_int, "an integer (the game's player counts: bluffsim games)",
           "seats"),
    _int_key("seed", "seeds the network init (a JAX key: 32 bits), the games and sampling",
             0, 2**32 - 1),
    _int_key("envs", "games played side by side", 1, MAX_BATCH),
    _int_key("rollout", "learner decisions per game slot per iteration"),
    _int_key("iterations", "PPO iterations"),
    RunKey("hidden", None, lambda v: isinstance(v, list | tuple) and all(_is_int(h) and h >= 1 for h in v),
           "a list of integers >= 1 (hidden layer sizes), e.g. [128, 128]", "MLP hidden sizes"),
    _num_key("lr", "Adam step size", 0.0, low_open=True),
    _bool_key("anneal", "decay the step size linearly to 0"),
    RunKey("anneal_iterations", None, lambda v: v is None or (_is_int(v) and v >= 1),
           "an integer >= iterations, or leave it out", "iterations until the decay reaches 0"),
    RunKey("anneal_restarts", None, lambda v: isinstance(v, list | tuple) and all(
        _is_int(r) and r >= 1 for r in v) and list(v) == sorted(set(v)),
           "increasing integers >= 1, below anneal_iterations, e.g. [40, 80]",
           "iterations where the decay starts again"),
    _int_key("epochs", "passes over each rollout"),
    _int_key("minibatches", "minibatches per epoch"),
    _num_key("gamma", "discount per learner decision", 0.0, 1.0),
    _num_key("gae_lambda", "GAE lambda", 0.0, 1.0),
    _num_key("clip", "PPO ratio clip", 0.0, low_open=True),
    _num_key("ent_coef", "entropy bonus", 0.0),
    _num_key("vf_coef", "value loss weight", 0.0),
    _num_key("max_grad_norm", "global gradient norm clip", 0.0, low_open=True),
    RunKey("reward", None, lambda v: v in REWARD_KINDS, " | ".join(f'"{k}"' for k in REWARD_KINDS),
           "reward kind"),
    _bool_key("end_when_out", "end the learner's episode once its place is settled"),
    RunKey("shaping", None, _num, "a finite number",
           "potential shaping (games whose spec declares a potential)"),
    _int_key("deals", "0 (every deal) or the deals played (game seeds 0..deals-1)", 0),
    RunKey("seat", None, lambda v: v == "rotate" or (_is_int(v) and v >= 0),
           "\"rotate\" or a seat number", "the learner's seat"),
    _int_key("checkpoint_every", "iterations between checkpoints"),
    _int_key("snapshot_every", "iterations between snapshots"),
    RunKey("out", None, lambda v: isinstance(v, str) and v.strip() != "", "a directory path",
           "checkpoints, log.csv"),
    RunKey("weights", None, lambda v: isinstance(v, str) and v.endswith(".npz") and len(v) > 4,
           "a file path ending in .npz", "the trained policy"),
)
# the [opponents] keys -> their TrainConfig fields
OPPONENT_FIELDS = {"agents": "opponents", "weights": "opponent_weights", "snapshots": "snapshots",
                   "max_snapshots": "max_snapshots", "responses": "responses",
                   "max_responses": "max_responses", "response_iterations": "response_iterations"}
OPPONENTS: tuple[RunKey, ...] = (
    RunKey("agents", None, lambda v: isinstance(v, list | tuple) and len(v) > 0
           and all(isinstance(n, str | dict) for n in v),
           "a list of agents, e.g. [\"random\", \"heuristic:bluff=0.3\", \"pkg.mod:Class\"]",
           "the mixture's agents"),
    RunKey("weights", None, lambda v: isinstance(v, list | tuple) and all(_num(w) and w >= 0 for w in v),
           "a list of finite numbers >= 0, one per agent", "the agents' weights"),
    RunKey("snapshots", None, lambda v: _num(v) and 0 <= v < 1, "a number in [0, 1)",
           "share of the mixture given to past snapshots"),
    _int_key("max_snapshots", "snapshots kept"),
    RunKey("responses", None, lambda v: _num(v) and 0 <= v < 1, "a number in [0, 1)",
           "share of the mixture given to best responses to past snapshots"),
    _int_key("max_responses", "best responses kept"),
    _int_key("response_iterations", "PPO iterations of each best response"),
)
_TRAIN_FIELDS = {f.name for f in fields(TrainConfig)} - set(OPPONENT_FIELDS.values()) - {"rules", "source"}
if _TRAIN_FIELDS != {k.name for k in TRAIN}:
    raise TypeError(f"TrainConfig's [train] fields {sorted(_TRAIN_FIELDS)} differ from the declared "
                    "TRAIN keys")


OPPONENT_FORMS = ("a registered agent (" + "{agents}" + ") with optional :k=v parameters "
                  "(\"heuristic:bluff=0.3\"), \"package.module:ClassName\", \"learned:weights=PATH\", "
                  "or { agent = \"NAME\", params = { ... } }")


@dataclass(frozen=True)
class Opponent:
    """One ``[opponents] agents`` entry: as written (for messages), its agent name or
    ``package.module:ClassName`` spec, and its parameters."""

    text: str
    agent: str
    params: dict[str, Any]


def opponent_error(text: str, why: str) -> ConfigError:
    """A one-line ``ConfigError`` for entry ``text``: what is wrong and the forms allowed."""
    import agents

    forms = OPPONENT_FORMS.replace("{agents}", ", ".join(agents.list_agents()))
    return ConfigError(f"opponents.agents: {text!r}: {why}; allowed: {forms}")


def _scalar(text: str) -> Any:
    """A parameter value: a TOML scalar (number, bool, quoted string) or a bare string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def parse_opponent(entry: str | dict[str, Any]) -> Opponent:
    """An ``[opponents] agents`` entry (module docstring) -> ``Opponent``; the agent is imported
    or looked up, not built (``build_opponent``); raises ``ConfigError`` (one line)."""
    import agents

    if isinstance(entry, dict):
        return _table_opponent(entry)
    text = entry.strip()
    if not text:
        raise opponent_error(entry, "an empty agent")
    parts = [q.strip() for q in text.split(":")]
    if text.endswith(".npz") and parts[0] not in agents.REGISTRY:
        return Opponent(text, "learned", {"weights": text})     # a bare weights file
    if parts[0] in agents.REGISTRY:
        name, rest = parts[0], parts[1:]
    elif f"{parts[0]}:" == agents.custom.TEXT_PREFIX and len(parts) > 2:
        name, rest = ":".join(parts[:3]), parts[3:]              # text:package.module:function
    elif len(parts) >= 2 and parts[1] and "=" not in parts[1]:
        name, rest = f"{parts[0]}:{parts[1]}", parts[2:]         # package.module:ClassName
    else:
        raise opponent_error(text, f"unknown agent {parts[0]!r}")
    params: dict[str, Any] = {}
    for item in (x.strip() for r in rest for x in r.split(",")):
        if not item:
            continue
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise opponent_error(text, f"parameter {item!r}: write NAME=VALUE")
        params[key.strip()] = _scalar(value.strip())
    _check_agent_name(text, name)
    return Opponent(text, name, params)


def _table_opponent(entry: dict[str, Any]) -> Opponent:
    """``{ agent = "NAME", params = { ... } }`` -> ``Opponent``."""
    text = inline_table(entry)
    unknown = sorted(set(entry) - {"agent", "params"})
    if unknown:
        raise opponent_error(text, f"unknown key(s) {', '.join(unknown)} (a table takes agent and "
                                   "params)")
    name, params = entry.get("agent"), entry.get("params", {})
    if not isinstance(name, str) or not name.strip():
        raise opponent_error(text, "agent must be an agent name")
    if not isinstance(params, dict):
        raise opponent_error(text, "params must be a table, e.g. params = { bluff = 0.3 }")
    _check_agent_name(text, name.strip())
    return Opponent(text, name.strip(), dict(params))


def inline_table(value: Any) -> str:
    """A value as TOML writes it inline (``{ agent = "learned", params = { weights = "w.npz" } }``),
    for messages."""
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {inline_table(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(inline_table(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value) if isinstance(value, str) else str(value)


def _check_agent_name(text: str, name: str) -> None:
    """Refuse an unknown agent or a class that does not import, naming the entry."""
    import agents

    try:
        agents.check_name(name)
    except ValueError as e:
        why = str(e).removeprefix(f"agent {name!r}: ")
        raise opponent_error(text, why.split("; available:")[0]) from None


def missing_shipped_weights(agent: str, params: dict[str, Any], game: Any) -> str | None:
    """Why ``learned`` without a ``weights`` parameter cannot play ``game`` (no file is shipped
    for its game and player count), or None when it can (or the agent is another one)."""
    if agent != "learned" or params.get("weights") is not None:
        return None
    from agents.learned import WEIGHTS_DIR, shipped_weights

    if shipped_weights(game.game_id, game.num_players).is_file():
        return None
    shipped = ", ".join(sorted(q.stem for q in WEIGHTS_DIR.glob("*.npz"))) or "none"
    return (f"no shipped weights for {game.game_id} with {game.num_players} players (shipped: "
            f"{shipped})")


def build_opponent(opponent: Opponent, game: Any) -> Any:
    """The agent of ``opponent`` built for ``game``; raises ``ConfigError`` naming the entry
    (a ``learned`` agent without weights is told the forms that give it a file)."""
    import agents

    missing = missing_shipped_weights(opponent.agent, opponent.params, game)
    if missing is not None:
        raise ConfigError(f"opponents.agents: {opponent.text!r}: {missing}; write "
                          "\"learned:weights=PATH\" or { agent = \"learned\", params = { weights = "
                          f"\"PATH\" }} }} with a file trained for {game.game_id} with "
                          f"{game.num_players} players (bluffsim train)")
    try:
        return agents.make(opponent.agent, game, **opponent.params)
    except (ValueError, BluffsimError) as e:
        why = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise ConfigError(f"opponents.agents: {opponent.text!r}: {why}") from None


def uncompiled_opponents(cfg: TrainConfig) -> list[str]:
    """The ``[opponents] agents`` entries (as written) without a compiled policy for the game:
    with one in the mixture the training env plays every opponent through Python."""
    from agents.fused import fused_lineup

    game = bluffsim.make(cfg.game, cfg.players, **cfg.rules)
    out = []
    for entry in cfg.opponents:
        opponent = parse_opponent(entry)
        lineup = fused_lineup(game, [build_opponent(opponent, game)], external=True)
        if lineup is None or lineup.external.any():
            out.append(opponent.text)
    return out


def load_train_config(path: str | Path) -> TrainConfig:
    """Parse and validate a training TOML; errors name the key, its value and what is allowed."""
    p = Path(path)
    if p.is_dir():
        raise ConfigError(f"training config {str(path)!r} is a directory; give a training TOML "
                          "file, e.g. experiments/train_qdv_2p.toml")
    if not p.is_file():
        raise ConfigError(f"training config {str(path)!r} not found")
    try:
        text = p.read_text(encoding="utf-8")
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not a UTF-8 text file") from None
    unknown = set(raw) - {"train", "opponents", "rules"}
    if unknown:
        raise ConfigError(f"{path}: unknown table(s) {', '.join(sorted(unknown))}; allowed: "
                          "train, opponents, rules")
    for table in ("train", "opponents", "rules"):
        if not isinstance(raw.get(table, {}), dict):
            raise ConfigError(f"{path}: [{table}] must be a table")
    train = dict(raw.get("train", {}))
    known = {k.name for k in TRAIN}
    bad = set(train) - known
    if bad:
        raise ConfigError(f"{path}: unknown [train] key(s) {', '.join(sorted(bad))}; allowed: "
                          f"{', '.join(sorted(known))}")
    if "game" not in train:
        raise ConfigError(f"{path}: [train] has no game; allowed: game = one of "
                          f"{', '.join(bluffsim.list_games())}")
    opp = dict(raw.get("opponents", {}))
    bad = set(opp) - set(OPPONENT_FIELDS)
    if bad:
        raise ConfigError(f"{path}: unknown [opponents] key(s) {', '.join(sorted(bad))}; allowed: "
                          f"{', '.join(OPPONENT_FIELDS)}")
    # each value is checked as given (TrainConfig.validate), then lists become tuples
    if "agents" in opp and "weights" not in opp and isinstance(opp["agents"], list):
        opp["weights"] = [1.0] * len(opp["agents"])
    values = {**train, **{OPPONENT_FIELDS[k]: v for k, v in opp.items()}}
    cfg = TrainConfig(**values, rules=dict(raw.get("rules", {})), source=text)
    cfg.check_keys()      # the values as given, before lists become tuples
    cfg = replace(cfg, hidden=tuple(cfg.hidden), anneal_restarts=tuple(cfg.anneal_restarts),
                  opponents=tuple(cfg.opponents),
                  opponent_weights=tuple(float(w) for w in cfg.opponent_weights),
                  snapshots=float(cfg.snapshots), responses=float(cfg.responses),
                  lr=float(cfg.lr))
    cfg.validate()
    return cfg


class MixedOpponent:
    """An agent that plays, in each (game, seat), one member of a weighted mixture of agents.

    The member is drawn from ``word(game seed, MIX_STREAM, seat)``, so it stays the same for a
    whole game (as long as the mixture does not change).
    """

    name = "mixture"
    traits = Traits(stochastic=True)

    def __init__(self, members: list[Any], weights: list[float]):
        self.members, self.weights = list(members), list(weights)
        self.version = 0  # counts ``set`` calls (the Gymnasium env's fused loop rebuilds on it)

    def set(self, members: list[Any], weights: list[float]) -> None:
        """Replace the mixture (e.g. after a new snapshot)."""
        self.members, self.weights = list(members), list(weights)
        self.version += 1

    def member_of(self, seeds: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """int[n]: the member playing seat ``seats[i]`` of the game with seed ``seeds[i]``."""
        w = np.asarray(self.weights, dtype=np.float64)
        cdf = np.cumsum(w / w.sum())
        streams = (brng.Stream.AGENT + np.maximum(np.asarray(seats, np.int64), 0)).astype(np.uint64)
        u = (brng.words(np.asarray(seeds, np.uint64), MIX_STREAM, streams, 0) >> np.uint64(11)
             ).astype(np.float64) * 2.0**-53
        return np.minimum(np.searchsorted(cdf, u, side="right"), len(self.members) - 1)

    def act(self, obs: dict[str, np.ndarray], legal_mask: np.ndarray, rng: AgentRNG) -> np.ndarray:
        """Each row's member acts on its rows."""
        pick = self.member_of(rng.seeds, rng.streams.astype(np.int64) - brng.Stream.AGENT)
        out = np.zeros(legal_mask.shape[0], np.int64)
        for k, member in enumerate(self.members):
            rows = np.flatnonzero(pick == k)
            if rows.size == 0:
                continue
            sub_rng = AgentRNG(rng.seeds[rows], rng.streams[rows] - brng.Stream.AGENT,
                               rng.decisions[rows])
            sub = {key: v[rows] for key, v in obs.items()}
            out[rows] = member.act(sub, legal_mask[rows], sub_rng)
        return out
