"""Approximate best response (ABR): a lower bound on an agent's exploitability, measured.

``approximate_best_response(game, agent, players, budget, seed, out)`` trains a PPO policy
(``bluffsim.learn.ppo``) against a fixed agent ``A`` — every other seat plays ``A`` (with its
parameters), the learner's seat rotates — then evaluates the trained policy against the same
``A`` in a fresh tournament, and returns a record: win rate and mean placement with 95% CIs,
the budget spent (learner decisions, CPU seconds) and the learning curve.

What is measured.  The trained policy is *a* response to ``A``; a best response does at least
as well, so its win rate against ``A`` (above the fair share 1/P) is a **lower bound** on what
``A`` concedes to a best response.  A bigger budget can only find a better response: if the
bound still grows from ``small`` to ``full``, the bound is not tight yet.  On the qdv presets
(``bluffsim.adapters.exploit``) the exact NashConv is known and the ABR ordering is checked
against it (tests/test_abr.py, docs/exploit.md).

Budgets.  ``BUDGETS`` names PPO iterations of ``ENVS * ROLLOUT`` = 4,096 learner decisions
each: ``small`` 40 iterations (163,840 decisions), ``full`` 200 (819,200).  A number instead
of a name is a number of PPO iterations (``--budget 25``).  The step size decays linearly to 0
over the budget, so a budget is a complete schedule, not a prefix of a longer one.

Evaluation.  Two tables of ``eval_games`` games (``evaluate_policies``, played together by
``tournament.tables.play_tables``, in this process), the lineup
``subject`` (the trained ``learned`` policy) + (P-1) x ``A``, seats rotated, a game seed derived
from ``seed`` through a stream training never uses (``EVAL_STREAM``), so the deals differ from
training's.  The policy is evaluated twice: **sampling** (the stochastic policy PPO optimised;
the headline number, what the learning curve tracks) and **greedy** (its most probable action:
a best response to a fixed opponent can be deterministic, and greedy often gains a little once
the policy is sharp, but loses where training has not converged; reported beside it, never
maxed over, which would bias the bound upwards).  Games are independent (no duplicate deals),
so the win rate's 95% CI is the Wilson interval (``analysis.stats.wilson_interval``, as
``bluffsim evaluate`` uses) and the mean placement's is the normal interval
mean +- 1.96 sd / sqrt(n) over games.

CPU time is ``time.process_time`` of the training (all threads of this process: JAX's and
numba's), compilation included; ``train_seconds`` is the wall time PPO's log records.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import json
import math
import platform
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

import agents as agent_registry
import bluffsim
from bluffsim import rng as brng
from bluffsim.analysis.stats import Z95
from bluffsim.api import BluffsimError
from bluffsim.learn import RESPONSE_ENVS as ENVS  # games side by side in training
from bluffsim.learn import RESPONSE_PPO as PPO  # the response's PPO settings
from bluffsim.learn import RESPONSE_ROLLOUT as ROLLOUT  # learner decisions per slot per iteration
from bluffsim.learn import missing_shipped_weights

DECISIONS_PER_ITERATION = ENVS * ROLLOUT
BUDGETS = {"small": 40, "full": 200}   # PPO iterations (x 4,096 learner decisions)
EVAL_GAMES = 3000   # evaluation games per policy (sampling, greedy); a multiple of 2..6
EVAL_STREAM = brng.Stream.ABR_EVAL  # the eval tournament's master seed: word(seed, EVAL_STREAM, 0)


class AbrError(BluffsimError, ValueError):
    """Bad ``exploit --agent`` input: names what is wrong and what is allowed."""


SEED_MAX = 2**32 - 1   # the training seed is a JAX key


@dataclass(frozen=True)
class Target:
    """The fixed agent ``A``: its text as given, registered name (or ``package.module:ClassName``)
    and parameters, and for a class of your own the sha256 of its module's source."""

    text: str
    agent: str
    params: dict[str, Any]
    source_sha256: str | None = None

    @property
    def slug(self) -> str:
        """A file-name-safe short name."""
        return "".join(c if c.isalnum() or c in "-_." else "_" for c in self.text)[:60]


def parse_budget(text: str | int) -> tuple[str, int]:
    """``small`` / ``full`` / a number of PPO iterations -> (label, iterations)."""
    t = str(text).strip()
    if t in BUDGETS:
        return t, BUDGETS[t]
    try:
        n = int(t)
    except ValueError:
        n = 0
    if n < 1:
        raise AbrError(f"--budget {text!r}: give {' | '.join(BUDGETS)}, a number of PPO "
                       f"iterations >= 1 (each {DECISIONS_PER_ITERATION:,} learner decisions) or "
                       "plateau[:start=N,cap=N,gain=X,seeds=N]")
    return str(n), n


def split_pieces(text: str) -> list[str]:
    """``random,heuristic:bluff=0.3,trust=1,counting`` -> ``["random", "heuristic:bluff=0.3,trust=1",
    "counting"]``: a piece with ``=`` and no ``:`` is one more parameter of the piece before it."""
    out: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            continue
        if out and "=" in piece and ":" not in piece:
            out[-1] += "," + piece
        else:
            out.append(piece)
    return out


def split_agents(text: str) -> list[str]:
    """The agent texts of ``--agent`` (``split_pieces``); an empty list is an ``AbrError``."""
    out = split_pieces(text)
    if not out:
        raise AbrError("--agent is empty; give an agent, e.g. --agent counting or "
                       "--agent random,heuristic,counting,learned")
    return out


def parse_target(text: str) -> Target:
    """An agent text (``heuristic:bluff=0.3``, ``learned:weights=PATH``, ``pkg.mod:Class``) ->
    ``Target``; raises ``AbrError`` (one line)."""
    from bluffsim.evaluate import EvaluateError, parse_subject

    try:
        s = parse_subject(text)
    except EvaluateError as e:
        raise AbrError(str(e).replace("AGENT", "--agent")) from None
    return Target(text.strip(), s.agent, dict(s.params), class_source_digest(s.agent))


def class_source_digest(agent: str) -> str | None:
    """sha256 of the source of the module defining a ``package.module:ClassName`` agent (its
    code is its version), None for registered agents."""
    import inspect

    if not agent_registry.custom.is_spec(agent):
        return None
    cls = agent_registry.custom.import_class(agent)
    try:
        source = inspect.getsource(inspect.getmodule(cls))
    except (OSError, TypeError):
        source = ""
    return hashlib.sha256(source.encode()).hexdigest()


def check_seed(seed: int) -> None:
    """Refuse a training seed outside 0..2**32-1 (``--seed``), in one line."""
    if not 0 <= seed <= SEED_MAX:
        raise AbrError(f"--seed {seed}: give an integer 0..{SEED_MAX} (the training seed; the "
                       "evaluation's deals derive from it too)")


def default_players(game: str) -> int:
    """The smallest player count of ``game`` (its spec's; 2, veru 3)."""
    return int(bluffsim.spec(game).players[0])


def check_target(game: str, players: int, rules: dict[str, Any], target: Target) -> Any:
    """Build ``A`` for the game once (parameters, weights, rules checked); raises ``AbrError``."""
    try:
        g = bluffsim.make(game, players, **rules)
    except bluffsim.RulesError as e:
        raise AbrError(f"{game} with {players} players: {e}") from None
    missing = missing_shipped_weights(target.agent, target.params, g)
    if missing is not None:
        raise AbrError(f"--agent {target.text!r} in {game} {players}p: {missing}; write --agent "
                       f"learned:weights=PATH with a file trained for {game} with {players} "
                       "players (bluffsim train)")
    try:
        return agent_registry.make(target.agent, g, **target.params)
    except (ValueError, BluffsimError) as e:
        raise AbrError(f"--agent {target.text!r} in {game} {players}p: "
                       f"{str(e).splitlines()[0]}") from None


def weights_digest(game: str, players: int, target: Target) -> str | None:
    """sha256 of the weights file a ``learned`` target plays (its ``weights`` or the shipped
    file), None for other agents."""
    if target.agent != "learned":
        return None
    from agents.learned import shipped_weights

    path = Path(target.params.get("weights") or shipped_weights(game, players))
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


def identity(game: str, players: int, rules: dict[str, Any], target: Target, iterations: int,
             seed: int, eval_games: int, schedule: dict[str, Any] | None = None) -> dict[str, Any]:
    """What decides an ABR result (a cell is reused only when this matches); a ``learned``
    target counts by its weights file's content (new shipped weights are measured again), a
    class of your own by its module's source; ``schedule``: a plateau's (``bluffsim.plateau``)."""
    source = {} if target.source_sha256 is None else {"agent_source_sha256": target.source_sha256}
    if schedule is not None:
        source["schedule"] = dict(schedule)
    return {"game": game, "players": players, "rules": rules, "agent": target.agent,
            "agent_params": target.params, **source,
            "weights_sha256": weights_digest(game, players, target),
            "iterations": iterations,
            "decisions_per_iteration": DECISIONS_PER_ITERATION, "ppo": {**PPO, "hidden": list(PPO["hidden"])},
            "seed": seed, "eval_games": eval_games, "bluffsim": bluffsim.__version__}


def eval_seed(seed: int, draw: int = 0) -> int:
    """The evaluation tournament's seed: another stream than training's game seeds; ``draw``
    numbers independent sets of deals (``bluffsim.plateau`` re-evaluates on ``draw`` 1)."""
    return int(brng.word(seed, EVAL_STREAM, draw)) >> 1


POLICIES = ("sampling", "greedy")


def policy_table(game: str, players: int, rules: dict[str, Any], target: Target, weights: str,
                 greedy: bool, games: int, seed: int, draw: int = 0) -> Any:
    """The evaluation table (``eval_table``) of the trained policy: ``subject`` + (P-1) x
    ``A``."""
    from bluffsim.evaluate import SUBJECT

    entries = ([("learned", SUBJECT, {"weights": weights, "greedy": greedy})]
               + [(target.agent, target.agent, dict(target.params))] * (players - 1))
    return eval_table("abr_eval", f"abr_eval_{'greedy' if greedy else 'sampling'}", game,
                      players, rules, entries, games, seed, draw)


def eval_table(name: str, key: str, game: str, players: int, rules: dict[str, Any],
               entries: list[tuple[str, str, dict[str, Any]]], games: int, seed: int,
               draw: int) -> Any:
    """An ABR evaluation table (``tournament.tables.Table``, experiment ``name``, table ``key``)
    of the seats ``entries`` (agent, label, parameters), rotated, ``games`` games from
    ``eval_seed(seed, draw)``, one shard."""
    from bluffsim.evaluate import unique_seats
    from bluffsim.tournament.config import Experiment
    from bluffsim.tournament.tables import Table

    exp = Experiment(name=name, game=game, players=players, games=games,
                     seed=eval_seed(seed, draw), rules=dict(rules), seats=unique_seats(entries),
                     batch=1024, workers=1, seating="rotate", duplicate=False, shard_games=games,
                     plots=False)
    return Table(exp, key=key)


def evaluate_policies(game: str, players: int, rules: dict[str, Any], target: Target,
                      weights: str, games: int, seed: int, executor: Any = None,
                      kinds: tuple[str, ...] = POLICIES, draw: int = 0
                      ) -> dict[str, dict[str, Any]]:
    """``{"sampling": ..., "greedy": ...}`` (or the ``kinds`` asked for): the evaluation tables
    played together (``play_policies``), each scored by ``policy_score``."""
    played = play_policies(game, players, rules, target, weights, games, seed, executor, kinds,
                           draw)
    return {kind: policy_score(t, g, target) for kind, (t, g) in played.items()}


def play_policies(game: str, players: int, rules: dict[str, Any], target: Target, weights: str,
                  games: int, seed: int, executor: Any = None,
                  kinds: tuple[str, ...] = POLICIES, draw: int = 0
                  ) -> dict[str, tuple[Any, pd.DataFrame]]:
    """Per policy kind, its evaluation table (``policy_table``) and the games played there, the
    tables played together (``tournament.tables.play_tables``, in this process unless
    ``executor`` says otherwise)."""
    from bluffsim.tournament.tables import Executor, play_tables

    tables = [policy_table(game, players, rules, target, weights, kind == "greedy", games, seed,
                           draw) for kind in kinds]
    played = play_tables(tables, executor or Executor())
    return {kind: (t, r.games) for kind, t, r in zip(kinds, tables, played, strict=True)}


def policy_score(table: Any, played: pd.DataFrame, target: Target) -> dict[str, Any]:
    """The ABR record's numbers of a played evaluation table (module docstring)."""
    from bluffsim.evaluate import SUBJECT, score_row

    seats, players = table.exp.seats, table.exp.players
    row = score_row(table.exp.game, players, target.text, ", ".join(s.label for s in seats),
                    played, 1 / players)
    place = played.loc[played["agent"] == SUBJECT, "placement"].to_numpy(float)
    half = float(Z95 * place.std(ddof=1) / math.sqrt(place.size)) if place.size > 1 else float("nan")
    return {"games": row["games"], "wins": row["wins"], "shared_wins": row["shared_wins"],
            "win_rate": row["win_rate"], "ci_low": row["ci_low"], "ci_high": row["ci_high"],
            "mean_placement": row["mean_placement"],
            "placement_ci_low": row["mean_placement"] - half,
            "placement_ci_high": row["mean_placement"] + half}


def read_curve(log_csv: Path) -> list[dict[str, float]]:
    """The learning curve from PPO's log.csv: per iteration, decisions, seconds, episodes ended,
    mean reward and win share of the learner in the episodes that ended."""
    rows = []
    with log_csv.open(newline="") as f:
        for r in csv.DictReader(f):
            rows.append({k: float(r[k]) for k in ("iteration", "decisions", "seconds", "episodes",
                                                   "mean_reward", "win_share")})
    return rows


CHECKPOINT_EVERY = 10   # PPO iterations between checkpoints (and the training env's re-deals)


def response_config(game: str, players: int, rules: dict[str, Any], target: Target, seed: int,
                    iterations: int, train_dir: Path, weights: Path,
                    anneal_iterations: int | None = None, anneal_restarts: tuple[int, ...] = (),
                    deals: int = 0) -> Any:
    """The validated ``TrainConfig`` of a response to ``target``: PPO with the response's
    settings against (P-1) x ``A``, checkpoints in ``train_dir``, weights to ``weights``; the
    step size anneals to 0 at ``anneal_iterations`` (default: ``iterations``), starting again at
    each of ``anneal_restarts``; ``deals``: only game seeds 0..deals-1 (an OpenSpiel preset's;
    0: every deal)."""
    from bluffsim.learn import TrainConfig

    cfg = TrainConfig(game=game, players=players, seed=seed, envs=ENVS, rollout=ROLLOUT,
                      iterations=iterations, anneal_iterations=anneal_iterations,
                      anneal_restarts=tuple(anneal_restarts),
                      checkpoint_every=CHECKPOINT_EVERY, snapshot_every=10**9,
                      out=str(train_dir), weights=str(weights),
                      opponents=({"agent": target.agent, "params": dict(target.params)},),
                      opponent_weights=(1.0,), snapshots=0.0, rules=rules, deals=deals, **PPO)
    cfg.validate()
    return cfg


def approximate_best_response(game: str, agent: str | Target, players: int | None = None,
                              budget: str | int = "small", seed: int = 1,
                              out: str | Path = "results/exploit/abr",
                              rules: dict[str, Any] | None = None,
                              eval_games: int = EVAL_GAMES, preset: str | None = None,
                              progress: bool = False) -> dict[str, Any]:
    """Train PPO against ``[agent] * (players - 1)`` (seat rotated) for ``budget``, evaluate the
    result (sampling and greedy) in a fresh rotated tournament, write ``out/abr.json``,
    ``out/curve.png``, ``out/weights.npz`` and ``out/train/log.csv``; return the record
    (module docstring).  ``agent`` is an agent text (``heuristic:bluff=0.3``) or a ``Target``."""
    from bluffsim.learn.ppo import train

    target = agent if isinstance(agent, Target) else parse_target(agent)
    check_seed(seed)
    players = players or default_players(game)
    rules = dict(rules or {})
    label, iterations = parse_budget(budget)
    opponent = check_target(game, players, rules, target)
    out = Path(out)
    weights = out / "weights.npz"
    cfg = response_config(game, players, rules, target, seed, iterations, out / "train", weights)
    if (out / "train").exists():
        shutil.rmtree(out / "train")
    start_cpu, start = time.process_time(), time.perf_counter()
    train(cfg, progress=progress, command=f"approximate_best_response against {target.text}",
          opponent_agents=[opponent])
    cpu, wall = time.process_time() - start_cpu, time.perf_counter() - start
    curve = read_curve(out / "train" / "log.csv")
    t0 = time.perf_counter()
    evals = evaluate_policies(game, players, rules, target, str(weights), eval_games, seed)
    record = {
        "game": game, "players": players, "preset": preset, "rules": rules,
        "agent": target.text, "agent_name": target.agent, "agent_params": target.params,
        "budget": label, "iterations": iterations,
        "decisions": iterations * DECISIONS_PER_ITERATION,
        "train_cpu_seconds": round(cpu, 1), "train_wall_seconds": round(wall, 1),
        "eval_seconds": round(time.perf_counter() - t0, 1), "fair_share": 1 / players,
        "sampling": evals["sampling"], "greedy": evals["greedy"], "curve": curve,
        "seed": seed, "eval_seed": eval_seed(seed),
        "identity": identity(game, players, rules, target, iterations, seed, eval_games),
        "date": now(),
        "machine": machine(),
        "versions": versions(),
    }
    (out / "abr.json").write_text(json.dumps(record, indent=1, default=str), encoding="utf-8")
    write_curve(record, out)
    return record


def write_curve(record: dict[str, Any], out: Path) -> None:
    """``out/curve.png``: the learning curve and the evaluated win rates of ``record``."""
    import matplotlib.pyplot as plt

    from bluffsim.analysis.plots import abr_curve

    evals = {k: record[k] for k in ("sampling", "greedy")}
    where = record.get("preset") or record["game"]
    fig = abr_curve(curve_frame(record), evals, record["players"],
                    title=f"vs {record['agent']}: {where} {record['players']}p, budget "
                          f"{record['budget']} ({record['decisions']:,} decisions)")
    fig.savefig(out / "curve.png", dpi=110)
    plt.close(fig)


def curve_frame(record: dict[str, Any]) -> pd.DataFrame:
    """The learning curve of a record as a DataFrame (decisions, win_share, mean_reward)."""
    return pd.DataFrame(record["curve"], columns=["iteration", "decisions", "seconds", "episodes",
                                                  "mean_reward", "win_share"])


def now() -> str:
    """The time a record is written, to the minute, in UTC."""
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def machine() -> str:
    """The machine an ABR ran on (architecture and processor)."""
    return f"{platform.machine()} {platform.processor() or ''}".strip()


def versions() -> dict[str, str]:
    """Versions of what decides the numbers."""
    import importlib.metadata as md

    out = {"python": platform.python_version(), "bluffsim": bluffsim.__version__}
    for pkg in ("numpy", "numba", "jax", "optax"):
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            out[pkg] = "absent"
    return out


def summary_row(record: dict[str, Any]) -> dict[str, Any]:
    """One table row of a record."""
    s, g = record["sampling"], record["greedy"]
    return {"game": record["game"], "players": record["players"], "agent": record["agent"],
            "budget": record["budget"], "decisions": record["decisions"],
            "cpu_s": record["train_cpu_seconds"], "win_rate": s["win_rate"],
            "ci_low": s["ci_low"], "ci_high": s["ci_high"], "greedy_win_rate": g["win_rate"],
            "greedy_ci_low": g["ci_low"], "greedy_ci_high": g["ci_high"],
            "mean_placement": s["mean_placement"], "placement_ci_low": s["placement_ci_low"],
            "placement_ci_high": s["placement_ci_high"], "games": s["games"]}


def markdown_table(records: list[dict[str, Any]]) -> str:
    """The ABR table in Markdown (docs/exploit.md)."""
    lines = ["| game | P | agent A | budget | decisions | train CPU s | ABR win rate [95% CI] "
             "(sampling) | greedy | mean placement [95% CI] | fair share |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in records:
        s, g = r["sampling"], r["greedy"]
        lines.append(
            f"| {r['game']}{' (' + r['preset'] + ')' if r.get('preset') else ''} | {r['players']} "
            f"| {r['agent']} | {r['budget']} | {r['decisions']:,} | {r['train_cpu_seconds']:.0f} "
            f"| {s['win_rate']:.3f} [{s['ci_low']:.3f}, {s['ci_high']:.3f}] "
            f"| {g['win_rate']:.3f} [{g['ci_low']:.3f}, {g['ci_high']:.3f}] "
            f"| {s['mean_placement']:.3f} [{s['placement_ci_low']:.3f}, {s['placement_ci_high']:.3f}] "
            f"| {r['fair_share']:.3f} |")
    return "\n".join(lines)


def cell_dir(root: Path, game: str, players: int, target: Target, budget: str,
             preset: str | None) -> Path:
    """Where one (game, players, agent, budget) result goes under ``--out``."""
    where = preset or f"{game}_{players}p"
    return root / f"{where}_{target.slug}_{budget}"


def reusable(cell: Path, ident: dict[str, Any]) -> dict[str, Any] | None:
    """The record in ``cell`` when it was made with the same ``ident``; ``None`` when there is
    none; ``AbrError`` when one made with other settings is there (``--force`` replaces it)."""
    path = cell / "abr.json"
    if not path.is_file():
        return None
    try:
        rec = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        rec = {}
    if rec.get("identity") == json.loads(json.dumps(ident, default=str)):
        return rec
    raise AbrError(f"{cell} holds an ABR result made with other settings; pass --force to "
                   "replace it, or another --out")
