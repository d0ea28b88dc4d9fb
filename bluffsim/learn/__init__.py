"""Training learned agents: TOML configs and opponent mixtures (numpy only; PPO itself is in ``ppo``).

A training config (``bluffsim train CONFIG``, e.g. ``experiments/train_qdv.toml``)::

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
    epochs = 4              # passes over each rollout
    minibatches = 4
    gamma = 0.995           # discount per learner decision
    gae_lambda = 0.95
    clip = 0.2              # PPO ratio clip
    ent_coef = 0.01
    vf_coef = 0.5
    max_grad_norm = 0.5
    reward = "zero_sum"     # or "win" (bluffsim.adapters.gymnasium)
    end_when_out = false    # end the learner's episode once its place is settled (qdv, veru)
    shaping = 0.0           # qdv: + shaping * change of the learner's share of the tokens in play
    checkpoint_every = 10   # iterations between checkpoints (out/checkpoint.npz)
    snapshot_every = 25     # iterations between frozen copies added to the opponent pool
    out = "results/train_qdv_2p"              # checkpoints, log.csv
    weights = "agents/weights/qdv_2p.npz"      # the trained policy (agents.learned format)

    [opponents]             # each opponent seat of each game draws one member of the mixture
    agents = ["random", "heuristic", "counting"]
    weights = [1.0, 2.0, 2.0]
    snapshots = 0.3         # share of the mixture given to past snapshots (split equally)
    max_snapshots = 5       # keep the most recent ones

    [rules]                 # rules options of the game (as experiment configs)
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Traits
from bluffsim import rng as brng
from bluffsim.api import BluffsimError
from bluffsim.rng import AgentRNG

MIX_STREAM = brng.Stream.MIX  # picks the mixture member of each (game, seat)


@dataclass(frozen=True)
class TrainConfig:
    """A training run's settings (module docstring)."""

    game: str = "qdv"
    players: int = 2
    seed: int = 1
    envs: int = 512
    rollout: int = 32
    iterations: int = 300
    hidden: tuple[int, ...] = (128, 128)
    lr: float = 3e-4
    anneal: bool = True
    anneal_iterations: int | None = None
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
    seat: str | int = "rotate"
    checkpoint_every: int = 10
    snapshot_every: int = 25
    out: str = "results/train"
    weights: str = "results/train/weights.npz"
    opponents: tuple[str, ...] = ("random", "heuristic", "counting")
    opponent_weights: tuple[float, ...] = (1.0, 1.0, 1.0)
    snapshots: float = 0.0
    max_snapshots: int = 5
    rules: dict[str, Any] = field(default_factory=dict)
    source: str = ""

    def with_overrides(self, **kw: Any) -> TrainConfig:
        """A copy with the non-None keywords replaced (the schedule checked again)."""
        cfg = replace(self, **{k: v for k, v in kw.items() if v is not None})
        cfg.check_schedule()
        return cfg

    def check_schedule(self) -> None:
        """Refuse an ``anneal_iterations`` below ``iterations``: the step size would sit at 0 for
        the last iterations."""
        if self.anneal and self.anneal_iterations is not None and self.anneal_iterations < self.iterations:
            raise BluffsimError(f"train.anneal_iterations ({self.anneal_iterations}) is below iterations "
                                f"({self.iterations}): the step size would be 0 for the last iterations; "
                                "allowed: at least iterations, or leave it out")


def load_train_config(path: str | Path) -> TrainConfig:
    """Parse and validate a training TOML; errors name the key and what is allowed."""
    p = Path(path)
    if not p.is_file():
        raise BluffsimError(f"training config {str(path)!r} not found")
    try:
        raw = tomllib.loads(p.read_text())
    except tomllib.TOMLDecodeError as e:
        raise BluffsimError(f"{path}: not valid TOML: {e}") from None
    unknown = set(raw) - {"train", "opponents", "rules"}
    if unknown:
        raise BluffsimError(f"{path}: unknown table(s) {', '.join(sorted(unknown))}; allowed: "
                            "train, opponents, rules")
    train = dict(raw.get("train", {}))
    known = {f.name for f in fields(TrainConfig)} - {"opponents", "opponent_weights", "snapshots",
                                                     "max_snapshots", "rules", "source"}
    bad = set(train) - known
    if bad:
        raise BluffsimError(f"{path}: unknown [train] key(s) {', '.join(sorted(bad))}; allowed: "
                            f"{', '.join(sorted(known))}")
    if "hidden" in train:
        train["hidden"] = tuple(int(h) for h in train["hidden"])
    opp = dict(raw.get("opponents", {}))
    bad = set(opp) - {"agents", "weights", "snapshots", "max_snapshots"}
    if bad:
        raise BluffsimError(f"{path}: unknown [opponents] key(s) {', '.join(sorted(bad))}; allowed: "
                            "agents, weights, snapshots, max_snapshots")
    names = tuple(opp.get("agents", TrainConfig.opponents))
    ws = tuple(float(w) for w in opp.get("weights", [1.0] * len(names)))
    if len(ws) != len(names) or not names:
        raise BluffsimError(f"{path}: [opponents] needs as many weights as agents (and at least one)")
    cfg = TrainConfig(**train, opponents=names, opponent_weights=ws,
                      snapshots=float(opp.get("snapshots", 0.0)),
                      max_snapshots=int(opp.get("max_snapshots", 5)),
                      rules=dict(raw.get("rules", {})), source=p.read_text())
    import agents
    import bluffsim

    bluffsim.make(cfg.game, cfg.players, **cfg.rules)  # validates game, players and rules
    for n in names:
        if n not in agents.list_agents():
            raise BluffsimError(f"{path}: unknown opponent agent {n!r}; available: "
                                f"{', '.join(agents.list_agents())}")
    cfg.check_schedule()
    if not 0.0 <= cfg.snapshots < 1.0:
        raise BluffsimError(f"{path}: [opponents] snapshots must be in [0, 1)")
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

    def set(self, members: list[Any], weights: list[float]) -> None:
        """Replace the mixture (e.g. after a new snapshot)."""
        self.members, self.weights = list(members), list(weights)

    def act(self, obs: dict[str, np.ndarray], legal_mask: np.ndarray, rng: AgentRNG) -> np.ndarray:
        """Each row's member acts on its rows."""
        w = np.asarray(self.weights, dtype=np.float64)
        cdf = np.cumsum(w / w.sum())
        u = (brng.words(rng.seeds, MIX_STREAM, rng.streams.astype(np.uint64), 0) >> np.uint64(11)
             ).astype(np.float64) * 2.0**-53
        pick = np.minimum(np.searchsorted(cdf, u, side="right"), len(self.members) - 1)
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
