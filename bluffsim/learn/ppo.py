"""PPO in JAX + optax on the batched Gymnasium env (needs the ``learn`` extra: ``pip install -e '.[learn]'``).

Proximal policy optimisation (clipped ratio, GAE, separate policy and value MLPs of the same
shape, Adam with global-norm clipping) on ``bluffsim.adapters.gymnasium.vector_env``: the learner
sits at a rotating seat; every other seat plays a ``MixedOpponent`` of built-in agents and frozen
snapshots of the learner.  The policy network is exactly ``agents.learned.forward`` (symlog input,
tanh hidden layers, masked softmax), so the trained weights run in plain numpy.  PPO rather than
NFSP/CFR: the games are long (dozens of decisions, imperfect information, 2-6 seats) and PPO with
action masking is the standard, cheap baseline on such vectorised card-game benchmarks.

Determinism and resume: iteration ``i`` draws its JAX key as ``fold_in(key(seed), i)`` and its
minibatch order from ``default_rng([seed, i])``; at every checkpoint boundary (``i`` a multiple of
``checkpoint_every``) the env is reset with game seed ``word(seed, RESEED_STREAM, i)`` (games in
progress are dropped, their last values bootstrapped).  A checkpoint stores parameters, optimizer
state, the snapshot pool, ``i`` and the best responses in the mixture (file name and sha256), so
``--resume`` continues to the same weights as an uninterrupted run (on the same machine and
library versions).  Before it writes anything, ``--resume`` refuses (``CheckpointError``, one
line naming the file and how to start over) a checkpoint that is not complete, one whose arrays
do not fit the config's network, a best response it records that is missing or changed, and a
missing ``log.csv``; it keeps the log's rows up to the checkpoint (an interrupted run logged
iterations it trains again).  ``--resume`` without a checkpoint starts from iteration 0.  The
checkpoint does not record the other settings: resuming with a changed config trains on with it.
"""

from __future__ import annotations

import csv
import hashlib
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax

import bluffsim
from agents.learned import LearnedAgent, save_weights
from bluffsim import rng as brng
from bluffsim.adapters.gymnasium import vector_env
from bluffsim.api import BluffsimError
from bluffsim.learn import (
    RESPONSE_ENVS,
    RESPONSE_PPO,
    RESPONSE_ROLLOUT,
    MixedOpponent,
    TrainConfig,
    build_opponent,
    parse_opponent,
)

RESEED_STREAM = brng.Stream.RESEED
RESPONSE_STREAM = brng.Stream.RESPONSE  # seeds of the best responses to snapshots


class TrainingError(BluffsimError, RuntimeError):
    """Training cannot go on (the loss or the parameters stopped being finite)."""

Params = dict[str, list[tuple[jax.Array, jax.Array]]]


def init_params(key: jax.Array, obs_size: int, hidden: tuple[int, ...], num_actions: int) -> Params:
    """Policy and value MLPs: scaled-normal weights (1/sqrt(fan-in)), a near-uniform first policy."""
    sizes = [obs_size, *hidden]
    out: Params = {}
    for head, (last, scale) in {"pi": (num_actions, 0.01), "v": (1, 1.0)}.items():
        layers = []
        dims = [*sizes, last]
        for i, (a, b) in enumerate(zip(dims[:-1], dims[1:], strict=True)):
            key, sub = jax.random.split(key)
            s = (scale if i == len(dims) - 2 else 1.0) / np.sqrt(a)
            layers.append((jax.random.normal(sub, (a, b), jnp.float32) * s, jnp.zeros(b, jnp.float32)))
        out[head] = layers
    return out


def mlp(layers: list[tuple[jax.Array, jax.Array]], x: jax.Array) -> jax.Array:
    """The network of ``agents.learned.forward`` in JAX: symlog, tanh hidden layers, linear output."""
    h = jnp.sign(x) * jnp.log1p(jnp.abs(x))
    for w, b in layers[:-1]:
        h = jnp.tanh(h @ w + b)
    w, b = layers[-1]
    return h @ w + b


def masked_logits(params: Params, x: jax.Array, mask: jax.Array) -> jax.Array:
    """Policy logits with illegal actions at -1e9."""
    return jnp.where(mask, mlp(params["pi"], x), -1e9)


@jax.jit
def sample(params: Params, x: jax.Array, mask: jax.Array, key: jax.Array
           ) -> tuple[jax.Array, jax.Array, jax.Array]:
    """(action, log-probability, value) per row."""
    logits = masked_logits(params, x, mask)
    a = jax.random.categorical(key, logits)
    logp = jax.nn.log_softmax(logits)[jnp.arange(a.shape[0]), a]
    return a, logp, mlp(params["v"], x)[:, 0]


@jax.jit
def value(params: Params, x: jax.Array) -> jax.Array:
    """State values."""
    return mlp(params["v"], x)[:, 0]


def ppo_loss(params: Params, batch: dict[str, jax.Array], clip: float, ent_coef: float,
             vf_coef: float) -> tuple[jax.Array, dict[str, jax.Array]]:
    """Clipped PPO objective + value loss - entropy bonus, and its parts."""
    logits = masked_logits(params, batch["x"], batch["mask"])
    logp_all = jax.nn.log_softmax(logits)
    logp = logp_all[jnp.arange(logits.shape[0]), batch["a"]]
    ratio = jnp.exp(logp - batch["logp"])
    adv = batch["adv"]
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    pg = -jnp.minimum(ratio * adv, jnp.clip(ratio, 1 - clip, 1 + clip) * adv).mean()
    v = mlp(params["v"], batch["x"])[:, 0]
    vf = 0.5 * ((v - batch["ret"]) ** 2).mean()
    p = jnp.exp(logp_all)
    ent = -jnp.where(batch["mask"], p * logp_all, 0.0).sum(axis=1).mean()
    kl = (batch["logp"] - logp).mean()
    return pg + vf_coef * vf - ent_coef * ent, {"pg": pg, "vf": vf, "entropy": ent, "kl": kl}


def make_optimizer(cfg: TrainConfig, steps: int) -> optax.GradientTransformation:
    """Adam with global-norm clipping; the step size decays linearly to 0 over ``steps`` if
    ``anneal``, starting again from ``lr`` at each of ``anneal_restarts`` (in iterations) and
    reaching 0 at the end of each segment."""
    lr = learning_rate(cfg, steps) if cfg.anneal else cfg.lr
    return optax.chain(optax.clip_by_global_norm(cfg.max_grad_norm), optax.adam(lr, eps=1e-5))


def learning_rate(cfg: TrainConfig, steps: int) -> optax.Schedule:
    """The annealed step size over ``steps`` optimizer steps (``make_optimizer``)."""
    per_iteration = cfg.epochs * cfg.minibatches
    bounds = [r * per_iteration for r in cfg.anneal_restarts if r * per_iteration < steps]
    ends = [*bounds, steps]
    starts = [0, *bounds]
    pieces = [optax.linear_schedule(cfg.lr, 0.0, end - start) for start, end in zip(starts, ends,
                                                                                     strict=True)]
    return pieces[0] if not bounds else optax.join_schedules(pieces, bounds)


def make_update(cfg: TrainConfig, opt: optax.GradientTransformation) -> Any:
    """The jitted minibatch update."""

    @jax.jit
    def update(params: Params, opt_state: Any, batch: dict[str, jax.Array]) -> tuple[Any, Any, Any]:
        grads, stats = jax.grad(ppo_loss, has_aux=True)(params, batch, cfg.clip, cfg.ent_coef,
                                                        cfg.vf_coef)
        updates, opt_state = opt.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, stats

    return update


_UPDATES: dict[tuple, tuple[optax.GradientTransformation, Any]] = {}


def optimizer_and_update(cfg: TrainConfig, steps: int) -> tuple[optax.GradientTransformation, Any]:
    """``make_optimizer(cfg, steps)`` and its ``make_update``, made once per process for the
    settings they read: a new jitted update per ``train`` call would compile again each time
    (the marks of a plateau run, a resume, the seeds of a cell)."""
    key = (cfg.lr, cfg.max_grad_norm, cfg.anneal, tuple(cfg.anneal_restarts), cfg.epochs,
           cfg.minibatches, steps, cfg.clip, cfg.ent_coef, cfg.vf_coef)
    if key not in _UPDATES:
        opt = make_optimizer(cfg, steps)
        _UPDATES[key] = opt, make_update(cfg, opt)
    return _UPDATES[key]


def gae(rew: np.ndarray, val: np.ndarray, done: np.ndarray, last_val: np.ndarray, gamma: float,
        lam: float) -> tuple[np.ndarray, np.ndarray]:
    """(advantages, returns) [T, N]; ``done[t]`` = the game ended after decision ``t``."""
    t_len = rew.shape[0]
    adv = np.zeros_like(rew)
    run = np.zeros(rew.shape[1], np.float32)
    for t in reversed(range(t_len)):
        nxt = last_val if t == t_len - 1 else val[t + 1]
        keep = 1.0 - done[t]
        delta = rew[t] + gamma * nxt * keep - val[t]
        run = delta + gamma * lam * keep * run
        adv[t] = run
    return adv, adv + val


def numpy_layers(layers: list[tuple[jax.Array, jax.Array]]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Parameters as float32 numpy arrays."""
    return [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in layers]


class CheckpointError(BluffsimError, ValueError):
    """``--resume`` cannot continue: the checkpoint is damaged or written by other settings, or a
    file it needs is missing or changed; the message names the file and how to recover."""


def sha256(path: Path) -> str:
    """The hex sha256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _save_checkpoint(path: Path, it: int, params: Params, opt_state: Any,
                     snaps: list[list[tuple[np.ndarray, np.ndarray]]], stats: dict[str, float],
                     responses: list[Path]) -> None:
    """Write the checkpoint atomically (a temporary file renamed over it); it records the best
    responses in the mixture by file name and sha256, so a resume can check they are there."""
    leaves = jax.tree_util.tree_leaves((params, opt_state))
    arrays = {f"leaf{i}": np.asarray(v) for i, v in enumerate(leaves)}
    for k, layers in enumerate(snaps):
        for i, (w, b) in enumerate(layers):
            arrays[f"snap{k}_w{i}"], arrays[f"snap{k}_b{i}"] = w, b
    needs = [[r.name, sha256(r)] for r in responses]
    tmp = path.with_suffix(".tmp.npz")
    np.savez(tmp, iteration=np.int64(it), num_snaps=np.int64(len(snaps)),
             decisions=np.int64(stats.get("decisions", 0)), seconds=np.float64(stats.get("seconds", 0)),
             responses=np.array(json.dumps(needs)), **arrays)
    tmp.replace(path)


def start_over(cfg: TrainConfig) -> str:
    """How to recover from a checkpoint that cannot be resumed."""
    return (f"start over without --resume (that rewrites {cfg.out}/log.csv and checkpoint.npz) "
            "or give a fresh --out")


def read_checkpoint(path: Path, cfg: TrainConfig) -> dict[str, np.ndarray]:
    """Every array of the checkpoint, read in full; a file that is not a complete checkpoint
    (truncated, overwritten, not ours) raises ``CheckpointError``."""
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: np.asarray(z[k]) for k in z.files}
        for key in ("iteration", "num_snaps", "decisions", "seconds", "leaf0"):
            if key not in arrays:
                raise ValueError(f"no {key!r} array")
        int(arrays["iteration"]), int(arrays["num_snaps"])
    except Exception as e:  # zipfile.BadZipFile, EOFError, ValueError, OSError, KeyError ...
        why = (str(e).splitlines() or [type(e).__name__])[0][:120]
        raise CheckpointError(f"{path} is damaged or incomplete ({why}): it cannot be resumed; "
                              f"{start_over(cfg)}") from None
    return arrays


def responses_due(cfg: TrainConfig, upto: int) -> list[Path]:
    """The best-response files a run of ``cfg`` has in its mixture after iteration ``upto``
    (one per snapshot, the last ``max_responses``), from the settings alone."""
    if cfg.responses <= 0:
        return []
    its = range(cfg.snapshot_every, upto + 1, cfg.snapshot_every)
    return [response_path(Path(cfg.out), i) for i in its][-cfg.max_responses:]


def needed_responses(cfg: TrainConfig, arrays: dict[str, np.ndarray]) -> list[Path]:
    """The best responses a checkpoint's mixture plays, checked on disk: each must be there
    with the bytes it had (a checkpoint without the record: the files its settings imply)."""
    out, it = Path(cfg.out), int(arrays["iteration"])
    ckpt = out / "checkpoint.npz"
    if "responses" in arrays:
        record = [(out / "responses" / name, digest) for name, digest in json.loads(str(arrays["responses"]))]
    else:
        record = [(r, None) for r in responses_due(cfg, it)]
    for path, digest in record:
        if not path.is_file():
            raise CheckpointError(f"{path} is missing: {ckpt} (iteration {it}) plays this best "
                                  "response in the opponent mixture, and resuming without it "
                                  f"would train other weights; restore it, or {start_over(cfg)}")
        if digest is not None and sha256(path) != digest:
            raise CheckpointError(f"{path} changed since {ckpt} (iteration {it}) was written; "
                                  f"restore the file it had, or {start_over(cfg)}")
    return [path for path, _ in record]


def check_resume(cfg: TrainConfig) -> int | None:
    """Before ``--resume`` writes anything: the iteration its checkpoint continues from (None
    when there is none: the run starts over), every file the checkpoint needs checked (the best
    responses of its mixture, ``log.csv``); raises ``CheckpointError`` (one line)."""
    out = Path(cfg.out)
    ckpt = out / "checkpoint.npz"
    if not ckpt.is_file():
        return None
    arrays = read_checkpoint(ckpt, cfg)
    check_network(ckpt, cfg, arrays, fresh_state(cfg))
    needed_responses(cfg, arrays)
    if not (out / "log.csv").is_file():
        raise CheckpointError(f"{out / 'log.csv'} is missing: the resumed run's log would lack "
                              f"iterations 1..{int(arrays['iteration'])}; restore it, or "
                              f"{start_over(cfg)}")
    return int(arrays["iteration"])


def fresh_state(cfg: TrainConfig) -> tuple[Params, Any]:
    """The parameters and optimizer state a run of ``cfg`` starts from (their shapes are what a
    checkpoint of it holds)."""
    game = bluffsim.make(cfg.game, cfg.players, **cfg.rules)
    obs_size = int(game.observation_tensor(game.init(np.zeros(1, np.uint64))).shape[1])
    params = init_params(jax.random.PRNGKey(cfg.seed), obs_size, cfg.hidden, game.num_actions)
    return params, make_optimizer(cfg, 1).init(params)


def check_network(path: Path, cfg: TrainConfig, arrays: dict[str, np.ndarray], template: Any) -> int:
    """The number of parameter and optimizer arrays of ``template``, once the checkpoint's
    ``arrays`` are shown to have exactly their shapes (else ``CheckpointError``)."""
    shapes = [np.shape(leaf) for leaf in jax.tree_util.tree_leaves(template)]
    got = [arrays[f"leaf{i}"].shape if f"leaf{i}" in arrays else None for i in range(len(shapes))]
    if got != shapes or f"leaf{len(shapes)}" in arrays:
        raise CheckpointError(f"{path} was written by a run with another network (train.game, "
                              "players, rules, hidden or anneal differ): resume with the config that "
                              f"wrote it, or {start_over(cfg)}")
    return len(shapes)


def _load_checkpoint(path: Path, cfg: TrainConfig, params: Params, opt_state: Any
                     ) -> tuple[int, Params, Any, list, dict[str, float], list[Path]]:
    """(iteration, parameters, optimizer state, snapshots, totals, best responses) of a
    checkpoint; one written by other network settings raises ``CheckpointError``."""
    z = read_checkpoint(path, cfg)
    n = check_network(path, cfg, z, (params, opt_state))
    treedef = jax.tree_util.tree_structure((params, opt_state))
    params, opt_state = jax.tree_util.tree_unflatten(treedef, [jnp.asarray(z[f"leaf{i}"])
                                                               for i in range(n)])
    depth = len(cfg.hidden) + 1
    snaps = [[(z[f"snap{k}_w{i}"], z[f"snap{k}_b{i}"]) for i in range(depth)]
             for k in range(int(z["num_snaps"]))]
    stats = {"decisions": int(z["decisions"]), "seconds": float(z["seconds"])}
    return int(z["iteration"]), params, opt_state, snaps, stats, needed_responses(cfg, z)


def resume_log(log_path: Path, start: int) -> None:
    """Keep the log's rows up to the checkpoint's iteration ``start``: rows logged after it (an
    interrupted run) are trained again and logged once more."""
    with log_path.open(newline="") as f:
        rows = list(csv.reader(f))
    keep = rows[:1] + [r for r in rows[1:] if r and r[0].isdigit() and int(r[0]) <= start]
    if len(keep) != len(rows):
        with log_path.open("w", newline="") as f:
            csv.writer(f).writerows(keep)


def interrupted_message(cfg: TrainConfig, resume_command: str) -> str:
    """The one line ``bluffsim train`` prints on Ctrl-C: what the checkpoint keeps and how to go
    on from it."""
    ckpt = Path(cfg.out) / "checkpoint.npz"
    try:
        kept = _checkpoint_iteration(ckpt) if ckpt.is_file() else None
    except Exception:   # an unreadable checkpoint is reported by --resume itself
        kept = None
    if kept is None:
        return (f"training interrupted before its first checkpoint (after iteration "
                f"{min(cfg.checkpoint_every, cfg.iterations)}): nothing to resume; no weights "
                "written; rerun the same command to start over")
    return (f"training interrupted; {ckpt} keeps iteration {kept} of {cfg.iterations} (one "
            f"checkpoint every {cfg.checkpoint_every} iterations); no weights written; "
            f"`{resume_command}` continues from it to the same weights")


def _finite(params: Params, stats: dict[str, Any]) -> bool:
    """The loss parts of the last update and every parameter are finite (no NaN or inf)."""
    return (all(bool(np.isfinite(float(v))) for v in stats.values())
            and all(bool(jnp.isfinite(leaf).all()) for leaf in jax.tree_util.tree_leaves(params)))


def _checkpoint_iteration(path: Path) -> int:
    with np.load(path) as z:
        return int(z["iteration"])


def mixture(cfg: TrainConfig, base: list[Any], snapshots: list[Any], responses: list[Any]
            ) -> tuple[list[Any], list[float]]:
    """(members, weights) of the opponent mixture: the configured agents share what the snapshots
    (``cfg.snapshots``, split equally) and the best responses (``cfg.responses``) leave."""
    s_share = cfg.snapshots if snapshots else 0.0
    r_share = cfg.responses if responses else 0.0
    w = np.asarray(cfg.opponent_weights, np.float64)
    weights = (list(w / w.sum() * (1 - s_share - r_share))
               + [s_share / max(1, len(snapshots))] * len(snapshots)
               + [r_share / max(1, len(responses))] * len(responses))
    return base + snapshots + responses, weights


def response_path(out: Path, iteration: int) -> Path:
    """Where the best response to the snapshot taken after ``iteration`` is written."""
    return out / "responses" / f"br_{iteration:06d}.npz"


def kept_responses(out: Path, upto: int, keep: int) -> list[Path]:
    """The last ``keep`` best-response files in ``out/responses`` up to iteration ``upto`` (what
    is on disk; a run keeps its own list, and a resume the one its checkpoint records)."""
    found = sorted((out / "responses").glob("br_*.npz"))
    return [p for p in found if int(p.stem[3:]) <= upto][-keep:]


def train_response(cfg: TrainConfig, game: Any, frozen: list[tuple[np.ndarray, np.ndarray]],
                   iteration: int) -> Path:
    """Train a best response to the frozen snapshot (every other seat plays it, the response's
    seat rotates) with the best-response settings (``RESPONSE_*``, as ``bluffsim exploit``) for
    ``cfg.response_iterations``; its seed is ``word(cfg.seed, RESPONSE_STREAM, iteration)``."""
    out = Path(cfg.out)
    path = response_path(out, iteration)
    br = replace(cfg, seed=int(brng.word(cfg.seed, RESPONSE_STREAM, iteration)) % 2**32,
                 envs=RESPONSE_ENVS, rollout=RESPONSE_ROLLOUT, iterations=cfg.response_iterations,
                 anneal_iterations=None, anneal_restarts=(), checkpoint_every=cfg.response_iterations,
                 snapshot_every=10**9, out=str(out / "responses" / f"run_{iteration:06d}"),
                 weights=str(path), opponents=("learned",), opponent_weights=(1.0,),
                 snapshots=0.0, responses=0.0, **RESPONSE_PPO)
    target = LearnedAgent(game, layers=frozen)
    train(br, progress=False, command=f"best response to the snapshot after iteration {iteration}",
          opponent_agents=[target])
    return path


def train(cfg: TrainConfig, resume: bool = False, progress: bool = True,
          command: str = "", opponent_agents: list[Any] | None = None) -> Path:
    """Run PPO as configured; writes ``cfg.out`` (checkpoint.npz, log.csv) and ``cfg.weights``.

    ``opponent_agents`` (agents built for ``cfg.game``, one per ``cfg.opponents`` entry) replace
    the agents ``cfg.opponents`` names, so they may carry parameters (e.g. ``learned`` with its
    ``weights``, ``heuristic`` with ``bluff``): the approximate best response uses it.

    A loss or parameter that is not finite after an iteration raises ``TrainingError`` before that
    iteration logs, checkpoints or writes weights (the last checkpoint stays valid).  With
    ``resume``, a checkpoint that cannot be continued (``check_resume``) raises
    ``CheckpointError`` before anything is written."""
    out = Path(cfg.out)
    ckpt = out / "checkpoint.npz"
    resume = resume and check_resume(cfg) is not None
    mix = MixedOpponent([], [])
    env = vector_env(cfg.game, cfg.envs, seat=cfg.seat, opponents=[mix] * (cfg.players - 1),
                     num_players=cfg.players, reward=cfg.reward, end_when_out=cfg.end_when_out,
                     shaping=cfg.shaping, deals=cfg.deals, **cfg.rules)
    game = env.game
    base = ([build_opponent(parse_opponent(o), game) for o in cfg.opponents]
            if opponent_agents is None else list(opponent_agents))
    if len(base) != len(cfg.opponent_weights):
        raise BluffsimError(f"{len(base)} opponent agents for {len(cfg.opponent_weights)} "
                            "opponent weights; give one agent per weight")

    def set_mixture(snaps: list, responses: list[Path]) -> None:
        snap_agents = [LearnedAgent(game, layers=s) for s in snaps]
        br_agents = [LearnedAgent(game, weights=str(r)) for r in responses]
        mix.set(*mixture(cfg, base, snap_agents, br_agents))

    key = jax.random.PRNGKey(cfg.seed)
    params = init_params(key, env.obs_size, cfg.hidden, env.num_actions)
    n_batch = cfg.envs * cfg.rollout
    mb = n_batch // cfg.minibatches
    opt, update = optimizer_and_update(
        cfg, (cfg.anneal_iterations or cfg.iterations) * cfg.epochs * cfg.minibatches)
    opt_state = opt.init(params)
    start, snaps, totals = 0, [], {"decisions": 0, "seconds": 0.0}
    responses: list[Path] = []
    if resume:
        start, params, opt_state, snaps, totals, responses = _load_checkpoint(ckpt, cfg, params,
                                                                              opt_state)
    set_mixture(snaps, responses)
    out.mkdir(parents=True, exist_ok=True)
    log_path = out / "log.csv"
    log_cols = ["iteration", "decisions", "seconds", "episodes", "mean_reward", "win_share",
                "pg", "vf", "entropy", "kl", "sps"]
    if resume:
        resume_log(log_path, start)
    else:
        with log_path.open("w", newline="") as f:
            csv.writer(f).writerow(log_cols)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=cfg.iterations, initial=start, desc=f"train {cfg.game} {cfg.players}p",
                   unit="it")
    t_len, n = cfg.rollout, cfg.envs
    buf_x = np.zeros((t_len, n, env.obs_size), np.float32)
    buf_m = np.zeros((t_len, n, env.num_actions), bool)
    buf_a = np.zeros((t_len, n), np.int32)
    buf_lp, buf_v, buf_r, buf_d = (np.zeros((t_len, n), np.float32) for _ in range(4))
    x = mask = None
    try:
        for it in range(start, cfg.iterations):
            t0 = time.perf_counter()
            if x is None or it % cfg.checkpoint_every == 0:
                seed = int(brng.word(cfg.seed, RESEED_STREAM, it))
                x, info = env.reset(seed=seed)
                mask = info["action_mask"]
            ikey = jax.random.fold_in(key, it)
            rewards, wins = [], []
            for t in range(t_len):
                a, lp, v = sample(params, x, mask, jax.random.fold_in(ikey, t))
                a = np.asarray(a)
                buf_x[t], buf_m[t], buf_a[t] = x, mask, a
                buf_lp[t], buf_v[t] = np.asarray(lp), np.asarray(v)
                x, r, term, trunc, info = env.step(a)
                mask = info["action_mask"]
                d = term | trunc
                buf_r[t], buf_d[t] = r, d
                if d.any():
                    rewards.append(r[d])
                    wins.append(info["final_info"]["placement"][d] == 1)
            last = np.asarray(value(params, x))
            adv, ret = gae(buf_r, buf_v, buf_d, last, cfg.gamma, cfg.gae_lambda)
            flat = {"x": buf_x.reshape(n_batch, -1), "mask": buf_m.reshape(n_batch, -1),
                    "a": buf_a.reshape(-1), "logp": buf_lp.reshape(-1), "adv": adv.reshape(-1),
                    "ret": ret.reshape(-1)}
            order_rng = np.random.default_rng([cfg.seed, it])
            stats: dict[str, Any] = {}
            for _ in range(cfg.epochs):
                perm = order_rng.permutation(n_batch)
                for k in range(cfg.minibatches):
                    idx = perm[k * mb:(k + 1) * mb]
                    params, opt_state, stats = update(params, opt_state,
                                                      {key_: v[idx] for key_, v in flat.items()})
            if not _finite(params, stats):
                parts = ", ".join(f"{k} {float(v):.4g}" for k, v in stats.items())
                kept = (f"{ckpt} keeps iteration {_checkpoint_iteration(ckpt)}" if ckpt.is_file()
                        else "no checkpoint was written")
                raise TrainingError(f"training diverged at iteration {it + 1}: the loss is not finite "
                                    f"({parts}); no weights written ({kept}); lower train.lr (now "
                                    f"{cfg.lr:g}) or train.max_grad_norm (now {cfg.max_grad_norm:g})")
            dt = time.perf_counter() - t0
            totals["decisions"] += n_batch
            totals["seconds"] += dt
            r_all = np.concatenate(rewards) if rewards else np.zeros(0)
            w_all = np.concatenate(wins) if wins else np.zeros(0)
            row = [it + 1, totals["decisions"], round(totals["seconds"], 2), r_all.size,
                   float(r_all.mean()) if r_all.size else float("nan"),
                   float(w_all.mean()) if w_all.size else float("nan"),
                   *(float(stats[s]) for s in ("pg", "vf", "entropy", "kl")), round(n_batch / dt)]
            with log_path.open("a", newline="") as f:
                csv.writer(f).writerow(row)
            if (it + 1) % cfg.snapshot_every == 0 and (cfg.snapshots > 0 or cfg.responses > 0):
                frozen = numpy_layers(params["pi"])
                if cfg.snapshots > 0:
                    snaps = (snaps + [frozen])[-cfg.max_snapshots:]
                if cfg.responses > 0:
                    path = train_response(cfg, game, frozen, it + 1)
                    responses = (responses + [path])[-cfg.max_responses:]
                set_mixture(snaps, responses)
            if (it + 1) % cfg.checkpoint_every == 0 or it + 1 == cfg.iterations:
                _save_checkpoint(ckpt, it + 1, params, opt_state, snaps, totals, responses)
            if bar is not None:
                bar.update(1)
                bar.set_postfix(reward=f"{row[4]:.3f}", win=f"{row[5]:.3f}", sps=row[-1])
    finally:   # Ctrl-C included: the bar's line ends before the message
        if bar is not None:
            bar.close()
    meta = {"game": cfg.game, "num_players": cfg.players, "obs_size": env.obs_size,
            "num_actions": env.num_actions, "hidden": list(cfg.hidden), "rules": cfg.rules,
            "iterations": cfg.iterations, "decisions": int(totals["decisions"]),
            "train_seconds": round(float(totals["seconds"]), 1), "command": command,
            "config": cfg.source, "algorithm": "PPO (bluffsim.learn.ppo)"}
    save_weights(cfg.weights, numpy_layers(params["pi"]), meta)
    return Path(cfg.weights)
