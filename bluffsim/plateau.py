"""Best responses run to a plateau (``bluffsim exploit --budget plateau``): a lower bound on what
an agent concedes that has stopped growing, or a record that says it has not.

**The schedule** (``Schedule``). Each of ``seeds`` responses (training seeds ``seed``, ``seed +
1``, ...) trains with PPO as ``bluffsim.abr`` does and is evaluated after ``start``, 2·start,
4·start, ... PPO iterations and at ``cap``: its sampling policy, ``eval_games`` games against
(P-1) x A, on deals of its own that stay the same at every mark, so that two marks differ by the
policy, not by the deals. A response stops at the first mark where its evaluated win rate has
gained less than ``gain`` over the last two doublings and is at least A's own win rate against
itself on those deals (``plateaued``, ``Scorer.floor``), else at ``cap``; the record says which.
A gain of 0.01 is below the noise of one evaluation (a 95% CI of about ±0.015 at 3,000 games;
the shared deals make the difference less noisy, not noiseless), so a plateau can be declared by
chance: hence several seeds and a fresh re-evaluation. Between two marks the step size decays
linearly from PPO's step size to 0 and starts again at the mark (warm restarts:
``TrainConfig.anneal_restarts``), so every mark evaluates a policy at the end of a decay; that is
not a standalone run of the same budget, which can be stronger (docs/exploit.md). A response
continues from its checkpoint at each mark (the marks are multiples of the checkpoint interval,
where the training env re-deals), so the response evaluated at 4·start is the one a single run
of the schedule trains to 4·start, and a larger cap repeats a smaller one's marks.
``weights_<iterations>.npz`` keeps each mark's policy.

**On a preset** (``--preset qdv-small``; ``Exact``): training plays only the preset's deals and
every score is exact (OpenSpiel's policy value over those deals: no games played), and the
record holds the exact best response's win share beside it (``best_response``): the check that
the approximate response gets where the truth is (tests/test_plateau.py).

**The bound.**  The response whose last evaluation is highest is chosen and evaluated again on
fresh deals (``abr.eval_seed(seed, 1)``; sampling, the headline, and greedy).  Choosing the best
of several noisy estimates biases that estimate upwards; the fresh one is unbiased, so its win
rate and 95% CI are a valid lower bound on what A concedes to a best response.

**Each seat's gain.**  With every other seat fixed at A, what a best response at seat ``s`` wins
above what A wins there against itself is seat ``s``'s term of NashConv (the outright win rate as
the utility).  The chosen response's win rate in the fresh games where it sat at ``s``, minus
A's win rate at ``s`` in self-play on the same deals, is a lower bound on that term (95% CI of a
difference of two proportions).  NashConv is at least the larger of 0 and their sum
(``gain_sum``): a negative gain says the response is still worse than A at that seat, not that
A is unexploitable there.  At 2 players the seats are the two turn orders.

**What the response does** (``behaviour``): ``analysis.behaviour`` replays the first fresh games
and measures both sides in the same games: the share of claims that are bluffs, the share of
bluffs not doubted, the share of claims faced that it doubts and the share of its doubts that
are right, the response's beside A's (``picture`` says it in a sentence).

Where the budget goes: docs/exploit.md.
"""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bluffsim import abr
from bluffsim.analysis.stats import Z95, win_kinds

Say = Callable[[str], None]
"""Where progress lines go (``bluffsim exploit`` passes stderr)."""
FRESH_DEALS = 1   # ``abr.eval_seed``'s draw of the re-evaluation (the marks use draw 0)
BEHAVIOUR_GAMES = 500   # fresh games replayed for the behaviour picture


@dataclass(frozen=True)
class Schedule:
    """When a response has trained enough: evaluations at ``start``, 2·start, ... PPO
    iterations and at ``cap``; stop once the win rate gains less than ``gain`` over two
    successive doublings; ``seeds`` independent responses."""

    start: int = 40
    cap: int = 1280
    gain: float = 0.01
    seeds: int = 3

    def marks(self) -> list[int]:
        """The PPO iterations a response is evaluated at."""
        out, m = [], self.start
        while m < self.cap:
            out.append(m)
            m *= 2
        return [*out, self.cap]

    def check(self) -> None:
        """Raise ``abr.AbrError`` (one line) unless the schedule can run as stated."""
        every = abr.CHECKPOINT_EVERY
        if self.start < every or self.start % every or self.cap % every:
            raise abr.AbrError(f"--budget plateau: start ({self.start}) and cap ({self.cap}) must "
                               f"be multiples of {every} PPO iterations (the checkpoint interval), "
                               f"at least {every}")
        if self.cap < self.start:
            raise abr.AbrError(f"--budget plateau: cap ({self.cap}) is below start ({self.start})")
        if self.seeds < 1 or not 0 < self.gain < 1:
            raise abr.AbrError(f"--budget plateau: seeds ({self.seeds}) must be >= 1 and gain "
                               f"({self.gain}) between 0 and 1")


def parse_schedule(text: str) -> Schedule:
    """``plateau`` or ``plateau:cap=320,seeds=3,start=40,gain=0.01`` -> ``Schedule``."""
    name, _, rest = text.partition(":")
    if name.strip() != "plateau":
        raise abr.AbrError(f"--budget {text!r}: not a plateau budget")
    fields = {f.name: f.type for f in dataclasses.fields(Schedule)}
    values: dict[str, Any] = {}
    for piece in (p.strip() for p in rest.split(",") if p.strip()):
        key, eq, value = piece.partition("=")
        key = key.strip()
        if not eq or key not in fields:
            raise abr.AbrError(f"--budget {text!r}: {piece!r} is not one of "
                               f"{', '.join(k + '=' for k in fields)}")
        if key in values:
            raise abr.AbrError(f"--budget {text!r}: {key} is given twice")
        kind = "a number" if key == "gain" else "an integer"
        try:
            values[key] = float(value) if key == "gain" else int(value)
        except ValueError:
            raise abr.AbrError(f"--budget {text!r}: {key} takes {kind}, got {value!r}") from None
    schedule = Schedule(**values)
    schedule.check()
    return schedule


def plateaued(rates: Sequence[float], gain: float, floor: float) -> bool:
    """Whether the last evaluated win rate gained less than ``gain`` over the two doublings
    before it and is at least ``floor``, A's own win rate against itself (``Scorer.floor``;
    False before three evaluations).  Below it a response is worse than A itself, so it is no
    best response yet, however flat its curve: early in training the win rate can stay near 0
    for several marks (docs/exploit.md)."""
    return len(rates) >= 3 and rates[-1] - rates[-3] < gain and rates[-1] >= floor


class Scorer:
    """How a plateau run scores its responses: a response's sampling policy at each mark
    (``mark``), then the chosen one's final numbers (``final``); ``deals``: the deals training
    plays (0: every deal)."""

    deals = 0

    def mark(self, weights: Path, seed: int) -> dict[str, Any]:
        """The sampling policy's win rate (``abr.policy_score``'s keys) at a mark."""
        raise NotImplementedError

    def floor(self, seed: int) -> float:
        """A's own win rate against itself where the marks are scored (mean over seats): a best
        response does at least as well at every seat, so a response below it is none yet."""
        raise NotImplementedError

    def final(self, weights: Path, seed: int) -> dict[str, Any]:
        """The record's ``sampling``, ``greedy``, ``seat_gains``, ``behaviour`` and ``eval_seed``
        of the chosen response."""
        raise NotImplementedError


@dataclass
class Tournaments(Scorer):
    """Scores from tournaments against (P-1) x A on sampled deals (module docstring)."""

    game: str
    players: int
    rules: dict[str, Any]
    target: abr.Target
    eval_games: int

    def mark(self, weights: Path, seed: int) -> dict[str, Any]:
        """The sampling policy's win rate on the seed's evaluation deals (``abr.eval_seed``)."""
        return abr.evaluate_policies(self.game, self.players, self.rules, self.target, str(weights),
                                     self.eval_games, seed, kinds=("sampling",))["sampling"]

    def floor(self, seed: int) -> float:
        """A's outright win rate in self-play on the seed's mark deals (below 1/P when first
        places are shared)."""
        games = self_play_games(self.game, self.players, self.rules, self.target,
                                self.eval_games, seed, draw=0)
        return float(win_kinds(games)["outright"].mean())

    def final(self, weights: Path, seed: int) -> dict[str, Any]:
        """Both policies on fresh deals, the seat gains over A's self-play there, the behaviour."""
        fresh = abr.play_policies(self.game, self.players, self.rules, self.target, str(weights),
                                  self.eval_games, seed, draw=FRESH_DEALS)
        alone = self_play_games(self.game, self.players, self.rules, self.target,
                                self.eval_games, seed, draw=FRESH_DEALS)
        return {**{kind: abr.policy_score(t, g, self.target) for kind, (t, g) in fresh.items()},
                "seat_gains": seat_gains(fresh["sampling"][1], alone),
                "behaviour": behaviour(*fresh["sampling"]),
                "eval_seed": abr.eval_seed(seed, FRESH_DEALS)}


class Exact(Scorer):
    """Exact scores on an OpenSpiel preset's deals (``bluffsim.adapters.exploit``): training
    plays only those deals, and every score is a policy's win share there computed over every
    deal and action (exact for the action frequencies that represent the learned policy and a
    stochastic A, ``AgentPolicy``: no games played); the record gains the exact best response's
    (``best_response``) — the truth the approximate one is checked against."""

    SAMPLES = 256   # draws per information state of the learned policy's mixed strategy

    def __init__(self, preset: str, target: abr.Target):
        from bluffsim.adapters import exploit

        self.exploit, self.target = exploit, target
        self.game = exploit.load_preset(preset)
        self.deals = int(exploit.PRESETS[preset]["deals"])
        self.agent = exploit.AgentPolicy(self.game, target.agent, **target.params)
        self.alone = exploit.policy_win_shares(self.game, self.agent, self.agent)   # A vs A

    def shares(self, weights: Path, greedy: bool) -> list[float]:
        """Per seat, the exact win share of the learned policy in ``weights`` against A."""
        subject = self.exploit.AgentPolicy(self.game, "learned", self.SAMPLES,
                                           weights=str(weights), greedy=greedy)
        return self.exploit.policy_win_shares(self.game, subject, self.agent)

    def mark(self, weights: Path, seed: int) -> dict[str, Any]:
        """The sampling policy's exact win share (mean over seats)."""
        return exact_score(self.shares(weights, False))

    def floor(self, seed: int) -> float:
        """A's exact win share against itself (mean over seats: 1/2 at 2 players)."""
        return float(np.mean(self.alone))

    def final(self, weights: Path, seed: int) -> dict[str, Any]:
        """Both policies' exact win shares, the seat gains over A's self-play, the best
        response's; no games, so no behaviour."""
        scores = {kind: exact_score(self.shares(weights, kind == "greedy"))
                  for kind in abr.POLICIES}
        best = self.exploit.best_response_win_shares(self.game, self.agent)
        gains = [{"seat": p, "games": 0, "response_win_rate": r, "agent_win_rate": a,
                  "gain": r - a, "ci_low": r - a, "ci_high": r - a}
                 for p, (r, a) in enumerate(zip(scores["sampling"]["per_seat"], self.alone,
                                                strict=True))]
        return {**scores, "seat_gains": gains, "eval_seed": None,
                "best_response": exact_score(best),
                "behaviour": {"games": 0, "note": "exact values on the preset's deals: no games "
                                                  "played, behaviour not measured"}}


def exact_score(shares: list[float]) -> dict[str, Any]:
    """``abr.policy_score``'s keys for exact per-seat win shares (2 players): their mean, an
    interval of zero width, no games, no placement (a win share does not give it)."""
    rate = float(np.mean(shares))
    nan = float("nan")
    return {"games": 0, "wins": None, "shared_wins": None, "win_rate": rate, "ci_low": rate,
            "ci_high": rate, "mean_placement": nan, "placement_ci_low": nan,
            "placement_ci_high": nan, "per_seat": [float(x) for x in shares], "exact": True}


def train_seed(game: str, players: int, rules: dict[str, Any], target: abr.Target, opponent: Any,
               seed: int, schedule: Schedule, scorer: Scorer, out: Path, say: Say) -> dict[str, Any]:
    """One response trained mark by mark (module docstring), scored at each by ``scorer``: its
    evaluations, where it stopped and why, its training CPU seconds and learning curve."""
    from bluffsim.learn.ppo import train

    if out.exists():   # a run replaced with --force: no weights of its marks stay
        shutil.rmtree(out)
    floor = scorer.floor(seed)
    marks: list[dict[str, Any]] = []
    cpu, stopped = 0.0, False
    restarts = tuple(schedule.marks()[:-1])
    for m in schedule.marks():
        weights = out / f"weights_{m}.npz"
        cfg = abr.response_config(game, players, rules, target, seed, m, out / "train", weights,
                                  anneal_iterations=schedule.cap, anneal_restarts=restarts,
                                  deals=scorer.deals)
        t0 = time.process_time()
        train(cfg, resume=bool(marks), progress=False, opponent_agents=[opponent],
              command=f"plateau response {seed} against {target.text}")
        cpu += time.process_time() - t0
        score = scorer.mark(weights, seed)
        marks.append({"iterations": m, "decisions": m * abr.DECISIONS_PER_ITERATION,
                      "train_cpu_seconds": round(cpu, 1), "weights": weights.name, **score})
        say(f"seed {seed}, {m} iterations: win rate {score['win_rate']:.3f} "
            f"[{score['ci_low']:.3f}, {score['ci_high']:.3f}] ({cpu:.0f} CPU s)")
        stopped = plateaued([x["win_rate"] for x in marks], schedule.gain, floor)
        if stopped:
            break
    return {"seed": seed, "marks": marks, "iterations": marks[-1]["iterations"], "floor": floor,
            "plateau": stopped,
            "train_cpu_seconds": round(cpu, 1), "curve": abr.read_curve(out / "train" / "log.csv")}


def self_play_games(game: str, players: int, rules: dict[str, Any], target: abr.Target,
                    games: int, seed: int, draw: int) -> pd.DataFrame:
    """``games`` games of A in every seat on the deals ``abr.eval_seed(seed, draw)``: the marks'
    (the stopping floor) or the fresh ones (the baseline of the seat gains)."""
    from bluffsim.tournament.tables import Executor, play_tables

    table = abr.eval_table("abr_self_play", f"abr_self_play_{draw}", game, players, rules,
                           [(target.agent, target.agent, dict(target.params))] * players, games,
                           seed, draw)
    return play_tables([table], Executor())[0].games


def seat_gains(response: pd.DataFrame, self_play: pd.DataFrame) -> list[dict[str, Any]]:
    """Per seat: the response's outright win rate where it sat there (``response``: the fresh
    evaluation's games), A's in self-play (``self_play``), their difference and its 95% CI."""
    from bluffsim.evaluate import SUBJECT

    mine = win_kinds(response)
    mine = mine[mine["agent"] == SUBJECT]
    theirs = win_kinds(self_play)
    rows = []
    for seat in sorted(theirs["seat"].unique()):
        a = mine.loc[mine["seat"] == seat, "outright"].to_numpy(float)
        b = theirs.loc[theirs["seat"] == seat, "outright"].to_numpy(float)
        if a.size == 0 or b.size == 0:
            continue
        pa, pb = float(a.mean()), float(b.mean())
        half = Z95 * math.sqrt(pa * (1 - pa) / a.size + pb * (1 - pb) / b.size)
        rows.append({"seat": int(seat), "games": int(a.size), "response_win_rate": pa,
                     "agent_win_rate": pb, "gain": pa - pb, "ci_low": pa - pb - half,
                     "ci_high": pa - pb + half})
    return rows


def gain_sum(gains: list[dict[str, Any]]) -> dict[str, float]:
    """The seats' gains summed, with a 95% CI from the seats' intervals as if independent (the
    response's seats are; A's self-play rates of one game are not, so it is a rough interval):
    NashConv is at least ``max(0, gain)`` (a best response gains at least nothing)."""
    half = math.sqrt(sum(((g["ci_high"] - g["ci_low"]) / 2) ** 2 for g in gains))
    total = sum(g["gain"] for g in gains)
    return {"gain": total, "ci_low": total - half, "ci_high": total + half}


def behaviour(table: Any, games: pd.DataFrame) -> dict[str, Any]:
    """Bluff and call rates of the response and of A (its seats together) in the first fresh
    games (``analysis.behaviour.table_behaviour``), and the ``note`` of what was not measured."""
    from bluffsim.analysis.behaviour import table_behaviour
    from bluffsim.evaluate import SUBJECT

    rows = table_behaviour(table.exp, games, BEHAVIOUR_GAMES)
    out: dict[str, Any] = {"games": int(min(BEHAVIOUR_GAMES, games["game"].nunique())),
                           "note": "; ".join(sorted({str(n) for n in rows["note"] if str(n)}))}
    for side, part in (("response", rows.loc[rows.index == SUBJECT]),
                       ("agent", rows.loc[rows.index != SUBJECT])):
        claims, bluffs = part["claims"].sum(), part["bluffs"].sum()
        caught, decisions, calls = (part["bluffs_caught"].sum(), part["decisions"].sum(),
                                    part["calls"].sum())
        right = (part["call_accuracy"].fillna(0) * part["calls"]).sum()
        out[side] = {"claims": int(claims), "decisions": int(decisions),
                     "bluff_rate": _share(bluffs, claims),
                     "bluff_success": _share(bluffs - caught, bluffs),
                     "call_rate": _share(calls, decisions), "call_accuracy": _share(right, calls)}
    return out


def _share(k: float, n: float) -> float | None:
    return float(k) / float(n) if n else None


def picture(record: dict[str, Any]) -> str:
    """What the chosen response does against A, in one sentence (``behaviour``)."""
    b, a = record["behaviour"], record["agent"]
    if "response" not in b or b["response"]["claims"] + b["response"]["decisions"] == 0:
        return f"no bluff or call measured ({b['note'] or 'no claims in the replayed games'})"

    def pct(side: str, rate: str) -> str:
        v = b[side][rate]
        return "n/a" if v is None else f"{v:.0%}"

    return (f"bluffs in {pct('response', 'bluff_rate')} of its claims ({a}: "
            f"{pct('agent', 'bluff_rate')}), {pct('response', 'bluff_success')} of its bluffs pass "
            f"undoubted ({a}: {pct('agent', 'bluff_success')}); doubts "
            f"{pct('response', 'call_rate')} of the claims it faces ({a}: "
            f"{pct('agent', 'call_rate')}), rightly {pct('response', 'call_accuracy')} of the time "
            f"({a}: {pct('agent', 'call_accuracy')})")


def plateau_response(game: str, agent: str | abr.Target, players: int | None = None, seed: int = 1,
                     out: str | Path = "results/exploit/plateau",
                     rules: dict[str, Any] | None = None, eval_games: int = abr.EVAL_GAMES,
                     preset: str | None = None, schedule: Schedule | None = None,
                     say: Say = lambda _: None) -> dict[str, Any]:
    """Train ``schedule.seeds`` responses to ``agent`` to a plateau, re-evaluate the best on fresh
    deals, measure the seat gains and the behaviour (module docstring); write ``out/abr.json``
    and ``out/curve.png``; return the record."""
    target = agent if isinstance(agent, abr.Target) else abr.parse_target(agent)
    schedule = schedule or Schedule()
    schedule.check()
    abr.check_seed(seed)
    abr.check_seed(seed + schedule.seeds - 1)
    players = players or abr.default_players(game)
    rules = dict(rules or {})
    opponent = abr.check_target(game, players, rules, target)
    out = Path(out)
    scorer = (Exact(preset, target) if preset is not None
              else Tournaments(game, players, rules, target, eval_games))
    runs = [train_seed(game, players, rules, target, opponent, s, schedule, scorer,
                       out / f"seed{s}", say) for s in range(seed, seed + schedule.seeds)]
    best = max(runs, key=lambda r: r["marks"][-1]["win_rate"])
    weights = out / f"seed{best['seed']}" / best["marks"][-1]["weights"]
    t0 = time.perf_counter()
    final = scorer.final(weights, seed)
    record = {
        "game": game, "players": players, "preset": preset, "rules": rules,
        "agent": target.text, "agent_name": target.agent, "agent_params": target.params,
        "budget": label(schedule), "schedule": dataclasses.asdict(schedule),
        "iterations": best["iterations"],
        "decisions": sum(r["iterations"] for r in runs) * abr.DECISIONS_PER_ITERATION,
        "train_cpu_seconds": round(sum(r["train_cpu_seconds"] for r in runs), 1),
        "fair_share": 1 / players, **final, "gain_sum": gain_sum(final["seat_gains"]),
        "best_seed": best["seed"], "weights": str(weights.relative_to(out)),
        "plateau": all(r["plateau"] for r in runs), "runs": runs, "curve": best["curve"],
        "seed": seed,
        "identity": identity(game, players, rules, target, seed, eval_games, schedule, preset),
        "date": abr.now(), "machine": abr.machine(), "versions": abr.versions(),
    }
    record["eval_seconds"] = round(time.perf_counter() - t0, 1)
    record["picture"] = picture(record)
    (out / "abr.json").write_text(json.dumps(record, indent=1, default=str), encoding="utf-8")
    write_curves(record, out)
    return record


def identity(game: str, players: int, rules: dict[str, Any], target: abr.Target, seed: int,
             eval_games: int, schedule: Schedule, preset: str | None) -> dict[str, Any]:
    """What decides a plateau result (``abr.identity`` with the schedule, and the preset whose
    deals an exact run plays)."""
    return abr.identity(game, players, rules, target, schedule.cap, seed, eval_games,
                        {**dataclasses.asdict(schedule), "preset": preset})


def marks_frame(record: dict[str, Any]) -> pd.DataFrame:
    """Every seed's evaluations of a plateau record (seed, iterations, decisions, win_rate,
    ci_low, ci_high)."""
    return pd.DataFrame([{"seed": r["seed"], **{k: m[k] for k in ("iterations", "decisions",
                                                                  "win_rate", "ci_low", "ci_high")}}
                         for r in record["runs"] for m in r["marks"]])


def curves_frame(record: dict[str, Any]) -> pd.DataFrame:
    """Every seed's learning curve of a plateau record (seed, decisions, win_share)."""
    return pd.concat([abr.curve_frame(r).assign(seed=r["seed"]) for r in record["runs"]],
                     ignore_index=True)


def write_curves(record: dict[str, Any], out: Path) -> None:
    """``out/curve.png``: every seed's learning curve with its evaluations marked, the fresh
    re-evaluation of the chosen response and the fair share."""
    import matplotlib.pyplot as plt

    from bluffsim.analysis.plots import plateau_curves

    where = record.get("preset") or record["game"]
    final = "exact" if "best_response" in record else "fresh deals"
    fig = plateau_curves(curves_frame(record), marks_frame(record),
                         {k: record[k] for k in abr.POLICIES}, record["players"], final,
                         title=f"vs {record['agent']}: {where} {record['players']}p, "
                               f"{len(record['runs'])} seeds, best seed {record['best_seed']}")
    fig.savefig(out / "curve.png", dpi=110)
    plt.close(fig)


def markdown_table(records: list[dict[str, Any]]) -> str:
    """The plateau table in Markdown (docs/exploit.md): per cell, where each seed stopped, the
    fresh bound, the NashConv lower bound from the seat gains and what the response does."""
    lines = ["| game | P | agent A | seeds: iterations (plateau?) | train CPU s | bound [95% CI] "
             "(fresh deals) | seat gains | Σ gains [95% CI] | what the response does |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in records:
        t = r["gain_sum"]
        stops = ", ".join(f"{x['seed']}: {x['iterations']}{'' if x['plateau'] else ' (cap)'}"
                          for x in r["runs"])
        gains = ", ".join(f"{g['gain']:+.3f}" for g in r["seat_gains"])
        lines.append(
            f"| {r['game']}{' (' + r['preset'] + ')' if r.get('preset') else ''} | {r['players']} "
            f"| {r['agent']} | {stops} | {r['train_cpu_seconds']:.0f} "
            f"| {bound(r)} | {gains} "
            f"| {t['gain']:+.3f} [{t['ci_low']:+.3f}, {t['ci_high']:+.3f}] | {r['picture']} |")
    return "\n".join(lines)


def bound(record: dict[str, Any]) -> str:
    """The bound's table cell: the win rate and its 95% CI, or an exact win share beside the
    exact best response's."""
    s = record["sampling"]
    if "best_response" in record:
        return (f"{s['win_rate']:.3f} exact (best response {record['best_response']['win_rate']:.3f}"
                f", gap {record['best_response']['win_rate'] - s['win_rate']:+.3f})")
    return f"{s['win_rate']:.3f} [{s['ci_low']:.3f}, {s['ci_high']:.3f}]"


def is_plateau(budget: str) -> bool:
    """Whether a ``--budget`` text names the plateau schedule."""
    return str(budget).partition(":")[0].strip() == "plateau"


def label(schedule: Schedule) -> str:
    """The budget's name in tables and output directories (the default schedule: ``plateau``)."""
    if schedule == Schedule():
        return "plateau"
    return "plateau_" + "_".join(f"{k}{v:g}" for k, v in dataclasses.asdict(schedule).items())


def budget_plan(text: str) -> tuple[str, int, Any]:
    """(label, PPO iterations, plateau schedule or None) of one ``--budget`` entry: ``small``,
    ``full``, a number, or ``plateau[:k=v,...]`` (``bluffsim.plateau``: iterations is its cap)."""
    if is_plateau(text):
        schedule = parse_schedule(text)
        return label(schedule), schedule.cap, schedule
    return (*abr.parse_budget(text), None)


def measure_plan(plan: list[tuple[Any, ...]], seed: int, eval_games: int,
                 records: list[dict[str, Any]], say: Callable[[str], None]) -> None:
    """Measure each planned cell ``(game, players, rules, preset, target, budget label, plateau
    schedule or None, cell, reused record or None)`` in turn (``bluffsim exploit --agent``),
    appending its record to ``records`` as it finishes (an interrupted caller knows which did)
    and saying each step."""
    for k, (game, players, rules, preset, target, label, schedule, cell, done) in enumerate(plan, 1):
        what = f"{preset or game} {players}p vs {target.text}, budget {label}"
        if done is not None:
            say(f"exploit {k}/{len(plan)}: {what}: reused {cell}/abr.json")
            (abr.write_curve if schedule is None else write_curves)(done, cell)
            records.append(done)
            continue
        say(f"exploit {k}/{len(plan)}: {what}: training ...")
        if schedule is None:
            rec = abr.approximate_best_response(game, target, players, label, seed, cell,
                                                rules=rules, eval_games=eval_games, preset=preset)
        else:
            def step(text: str, k: int = k, what: str = what) -> None:
                say(f"exploit {k}/{len(plan)}: {what}: {text}")

            rec = plateau_response(game, target, players, seed, cell, rules, eval_games, preset,
                                   schedule, say=step)
        say(f"exploit {k}/{len(plan)}: {what}: win rate {rec['sampling']['win_rate']:.3f} "
            f"({rec['train_cpu_seconds']:.0f} CPU s of training) -> {cell}/")
        records.append(rec)
