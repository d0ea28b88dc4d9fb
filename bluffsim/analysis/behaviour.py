"""How every agent bluffs and calls, measured against the exact odds (``behaviour.csv``).

**Data.**  Runs record games and rounds, not decisions, so the metrics come from a replay of
a sample of the run's games: the first ``BEHAVIOUR_GAMES`` game ids (every game of a smaller
run).  A game depends only on its seed and the agents' actions, and agents draw from streams
keyed by (game seed, seat, decision) (``bluffsim.rng.AgentRNG``), so replaying a recorded
game — its seed and seat labels from ``games.parquet``, each label's agent and parameters from
``config.json`` — plays the very same game.  The replay steps the fast engine with the agents
(as the runner's stepped path does) and the reference engine in lockstep for the true state
at every decision; it checks both engines' placements against ``games.parquet`` and stops with
``ReplayError`` if any differs (the agents or the engine changed since the run).  The first
game ids cover whole duplicate-deal clusters and seating cycles as the schedule plays them.  An
agent whose ``replayable`` attribute is False is not replayed (the rows say so).

The sample size, ``BEHAVIOUR_GAMES``, and why: ``docs/behaviour.md``.  The replay runs when the
report is built, never on the run's own path.

**Metrics** (per agent label; what a claim is and when it is true: each game's
``bluffsim/games/<game>/odds.py``, found by ``bluffsim.analysis.odds.claims_for``):

| column | meaning |
|---|---|
| `games` | sampled games the agent sat in |
| `claims`, `bluffs`, `bluff_rate` | claims it made; the false ones; their share |
| `bluffs_caught`, `bluff_success` | false claims doubted; share of false claims not doubted |
| `decisions` | its claim decisions: facing another seat's standing claim with a doubt legal |
| `calls`, `call_rate` | doubts (`menteur`, `accuse`, `accuse double`, `disbelieve`); share of decisions |
| `call_accuracy` | share of doubts against a false claim |
| `believes`, `believe_accuracy` | `believe` / `accept`; share against a true claim |
| `exact_calls`, `exact_accuracy` | qdv `vrai` at a claim decision; share exact (`odds.Standing.exact`) |
| `brier` | mean over decisions of (doubted − claim false)², the choice as a 0/1 forecast |
| `brier_odds` | the same with the exact odds' forecast P(false) = 1 − p (a calibrated reference) |
| `p_called`, `p_passed` | mean p at the decisions it doubted / did not doubt |
| `note` | why metrics are missing, if they are |

``calibration.csv``: per agent and bin of p (tenths), decisions, calls, call rate, mean p and
the share of those claims that were true.  ``plots/calibration.png`` draws call rate
against p (``analysis.plots.calibration``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bluffsim.analysis import odds as O
from bluffsim.api import BluffsimError

BEHAVIOUR_GAMES = 500   # games replayed per run (the first game ids)
BINS = 10               # calibration bins of p: [0, .1), [.1, .2), ... [.9, 1]
RECORD_COLUMNS = ["game", "seed", "seat", "agent", "placement"]
REFERENCES = ("counting", "heuristic")   # agents drawn as reference curves in the plot
COLUMNS = ["games", "claims", "bluffs", "bluff_rate", "bluffs_caught", "bluff_success",
           "decisions", "calls", "call_rate", "call_accuracy", "believes", "believe_accuracy",
           "exact_calls", "exact_accuracy", "brier", "brier_odds", "p_called", "p_passed", "note"]


class ReplayError(BluffsimError, ValueError):
    """A replayed game is not the recorded one, or the run cannot be replayed; names why."""


@dataclass(frozen=True)
class Setup:
    """What a replay needs of a run: the game, players, rules and each label's agent."""

    game: str
    players: int
    rules: Mapping[str, Any]
    agents: Mapping[str, tuple[str, dict[str, Any]]]   # label -> (agent name, params)

    @classmethod
    def of(cls, exp: Any) -> Setup:
        """From an object with ``game``, ``players``, ``rules`` and ``seats`` (a tournament
        ``Experiment``, or its ``config.json`` dict)."""
        get = exp.get if isinstance(exp, Mapping) else lambda k: getattr(exp, k)
        seats = {}
        for s in get("seats"):
            agent, label, params = ((s["agent"], s["label"], s.get("params", {}))
                                    if isinstance(s, Mapping) else (s.agent, s.label, s.params))
            seats[str(label)] = (str(agent), dict(params or {}))
        return cls(str(get("game")), int(get("players")), dict(get("rules") or {}), seats)


@dataclass
class Behaviour:
    """The measured tables: per-decision and per-claim rows of the replay, ``table`` (the
    ``behaviour.csv`` rows) and ``calibration``."""

    decisions: pd.DataFrame
    claims: pd.DataFrame
    table: pd.DataFrame
    calibration: pd.DataFrame
    games: int = 0   # games replayed


# ---------------------------------------------------------------------------- the replay
def sample_games(games: pd.DataFrame | Iterable[pd.DataFrame], n: int = BEHAVIOUR_GAMES
                 ) -> pd.DataFrame:
    """The rows (``RECORD_COLUMNS``) of the first ``n`` game ids of ``games`` (a DataFrame, or
    chunks in game order as ``bluffsim.results.iter_chunks`` reads them)."""
    parts, ids = [], set()
    for chunk in ([games] if isinstance(games, pd.DataFrame) else games):
        chunk = chunk[[c for c in RECORD_COLUMNS if c in chunk]]
        new = sorted(set(chunk["game"].tolist()) - ids)[: max(n - len(ids), 0)]
        if not new and len(ids) >= n:
            break
        ids.update(new)
        parts.append(chunk[chunk["game"].isin(ids)])
    if not parts:
        return pd.DataFrame(columns=RECORD_COLUMNS)
    out = pd.concat(parts, ignore_index=True)
    keep = sorted(set(out["game"].tolist()))[:n]
    return out[out["game"].isin(keep)].sort_values(["game", "seat"]).reset_index(drop=True)


def replay(setup: Setup, recorded: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Replay the recorded games (``sample_games`` rows); returns (decisions, claims), one row
    per claim decision and per claim made.  ``ReplayError`` if a game's placements differ
    from the record, or an agent cannot be made or fails."""
    import agents as agent_registry
    import bluffsim

    claims = O.claims_for(setup.game)
    if claims is None or recorded.empty:
        return pd.DataFrame(), pd.DataFrame()
    rec = recorded.sort_values(["game", "seat"])
    ids = rec["game"].drop_duplicates().to_numpy(np.int64)
    p = setup.players
    seeds = rec.groupby("game", sort=True)["seed"].first().to_numpy(np.uint64)
    labels = sorted(set(rec["agent"].astype(str)))
    missing = [x for x in labels if x not in setup.agents]
    if missing:
        raise ReplayError(f"agent label(s) {', '.join(map(repr, missing))} of games.parquet are "
                          "not in the run's config")
    code = {x: j for j, x in enumerate(labels)}
    lineup = rec["agent"].astype(str).map(code).to_numpy(np.int64).reshape(ids.size, p)
    game = bluffsim.make(setup.game, p, **setup.rules)
    try:
        players = [agent_registry.make(setup.agents[x][0], game, **setup.agents[x][1])
                   for x in labels]
    except BluffsimError as e:
        raise ReplayError(f"cannot make the run's agents again: {e}") from None
    fixed = [x for x, a in zip(labels, players, strict=True) if getattr(a, "replayable", True) is False]
    if fixed:
        raise ReplayError(f"agent(s) {', '.join(map(repr, fixed))} cannot be replayed (replayable = False)")
    ref = bluffsim.spec(setup.game).make_reference(game.rules)
    play = _Replay(claims, game, ref, players, labels, ids, lineup)
    play.run(seeds)
    play.check(rec["placement"].to_numpy(np.int64).reshape(ids.size, p))
    return play.recorder.frames()


class Recorder:
    """The claim decisions and claims of games played on the reference engine, step by step
    (the replay's bookkeeping; ``scripted`` drives it with given actions)."""

    def __init__(self, claim_rules: O.Claims, ref: Any) -> None:
        self.claim_rules, self.ref = claim_rules, ref
        self.responses = claim_rules.responses(ref.rules)
        self.doubts = [a for a, k in self.responses.items() if k == O.DOUBT]
        self.decisions: list[dict[str, Any]] = []
        self.claims: list[dict[str, Any]] = []
        self.open: dict[int, int] = {}   # game -> row in ``claims`` of its last claim

    def step(self, game: int, s: Any, action: int, agents: Sequence[str],
             obs: Callable[[], Mapping[str, np.ndarray]] | None = None,
             doubt_legal: bool | None = None) -> None:
        """Record the current player's ``action`` in state ``s`` of game ``game`` (``agents``: the
        label per seat), then apply it to ``s``.  ``obs`` (gives the player's observation row) and
        ``doubt_legal`` default to the reference engine's."""
        seat = s.current_player
        kind = self.responses.get(action)
        if kind is not None:
            if doubt_legal is None:
                doubt_legal = bool(set(self.doubts) & set(self.ref.legal_actions(s)))
            stand = self.claim_rules.standing(self.ref, s, seat) if doubt_legal else None
            if stand is not None:
                row = self.ref.observe(s, seat) if obs is None else obs()
                self.decision(game, seat, stand, kind, row, agents)
        self.ref.apply(s, action)
        true = self.claim_rules.claim_made(self.ref, s, seat, action)
        if true is not None:
            self.open[game] = len(self.claims)
            self.claims.append({"game": game, "seat": seat, "agent": agents[seat],
                                "true": bool(true), "caught": False})

    def decision(self, game: int, seat: int, stand: O.Standing, kind: str,
                 row: Mapping[str, np.ndarray], agents: Sequence[str]) -> None:
        """One claim decision: the exact odds, the truth and the answer."""
        odds = self.claim_rules.odds(self.ref.rules, row)
        if kind == O.DOUBT and game in self.open:
            self.claims[self.open[game]]["caught"] = True
        self.decisions.append({
            "game": game, "seat": seat, "agent": agents[seat],
            "claimant": stand.claimant, "claimant_agent": agents[stand.claimant],
            "p_true": float(odds.true) if odds is not None else np.nan,
            "p_exact": float(odds.exact) if odds is not None and odds.exact is not None else np.nan,
            "true": stand.true, "exact": stand.exact, "response": kind})

    def frames(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """(decisions, claims) as DataFrames."""
        return pd.DataFrame(self.decisions), pd.DataFrame(self.claims)


def scripted(game_id: str, s: Any, actions: Iterable[int | str], agents: Sequence[str],
             ref: Any) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(decisions, claims) of the actions (ids or names) played from reference state ``s``
    (e.g. a ``scenario``) of game ``game_id``; ``agents`` labels the seats."""
    claim_rules = O.claims_for(game_id)
    if claim_rules is None:
        raise ReplayError(f"game {game_id!r} declares no claim rules")
    rec = Recorder(claim_rules, ref)
    for a in actions:
        rec.step(0, s, ref.rules.action_names.index(a) if isinstance(a, str) else int(a), agents)
    return rec.frames()


class _Replay:
    """One batch of recorded games stepped with their agents, the reference engine alongside."""

    def __init__(self, claims: O.Claims, game: Any, ref: Any, players: list[Any],
                 labels: list[str], ids: np.ndarray, lineup: np.ndarray) -> None:
        self.game, self.ref, self.players, self.labels = game, ref, players, labels
        self.ids, self.lineup = ids, lineup
        self.recorder = Recorder(claims, ref)
        self.doubts = np.asarray(self.recorder.doubts, np.int64)
        self.seats = [[labels[j] for j in row] for row in lineup.tolist()]
        self.states: list[Any] = []
        self.st: Any = None

    def run(self, seeds: np.ndarray) -> None:
        """Play every game to its end."""
        from bluffsim.rng import AgentRNG

        self.st = st = self.game.init(seeds)
        self.states = [self.ref.new_game(int(s)) for s in seeds]
        rows = np.arange(self.ids.size)
        while True:
            live = ~np.asarray(st.done)
            if not live.any():
                return
            obs = self.game.observe(st)
            cur = st.current_player.astype(np.int64)
            who = self.lineup[rows, np.maximum(cur, 0)]
            actions = np.full(self.ids.size, -1, np.int64)
            for j, agent in enumerate(self.players):
                idx = np.flatnonzero(live & (who == j))
                if idx.size:
                    rng = AgentRNG(st.seed[idx], st.current_player[idx], st.num_decisions[idx])
                    actions[idx] = self.act(agent, j, {k: v[idx] for k, v in obs.items()},
                                            st.legal_action_mask[idx], rng, idx)
            for i in np.flatnonzero(live):
                self.step_reference(int(i), int(cur[i]), int(actions[i]), obs)
            self.game.step(st, actions)

    def act(self, agent: Any, j: int, obs: dict[str, np.ndarray], mask: np.ndarray, rng: Any,
            idx: np.ndarray) -> np.ndarray:
        """One agent's actions, checked legal."""
        label = self.labels[j]
        try:
            a = np.asarray(agent.act(obs, mask, rng), dtype=np.int64)
        except Exception as e:  # an agent's bug, named as such
            raise ReplayError(f"agent {label!r} raised {type(e).__name__} in the replay of game "
                              f"{int(self.ids[idx[0]])}: {e}") from e
        ok = a.shape == (idx.size,) and bool(np.all((a >= 0) & (a < mask.shape[1])))
        if not ok or not mask[np.arange(idx.size), a].all():
            raise ReplayError(f"agent {label!r} chose an illegal action in the replay of game "
                              f"{int(self.ids[idx[0]])}")
        return a

    def step_reference(self, i: int, seat: int, action: int, obs: dict[str, np.ndarray]) -> None:
        """Record game ``i``'s decision on the reference state (the fast engine's observation
        row and mask) and apply it."""
        s = self.states[i]
        if s.current_player != seat:
            raise ReplayError(f"the reference and fast engines disagree in the replay of game "
                              f"{int(self.ids[i])}")
        self.recorder.step(int(self.ids[i]), s, action, self.seats[i],
                           obs=lambda: {k: v[i] for k, v in obs.items()},
                           doubt_legal=bool(self.st.legal_action_mask[i, self.doubts].any()))

    def check(self, placements: np.ndarray) -> None:
        """Both engines' placements equal the recorded ones, game by game."""
        fast = np.asarray(self.st.placements, dtype=np.int64)
        slow = np.asarray([s.placements for s in self.states], dtype=np.int64)
        bad = np.flatnonzero((fast != placements).any(axis=1) | (slow != placements).any(axis=1))
        if bad.size:
            g = int(self.ids[bad[0]])
            raise ReplayError(f"the replay of game {g} gives placements {fast[bad[0]].tolist()}, "
                              f"games.parquet has {placements[bad[0]].tolist()} ({bad.size} of "
                              f"{self.ids.size} games differ): the agents or the engine changed "
                              "since the run")


# ---------------------------------------------------------------------------- the tables
def behaviour_table(decisions: pd.DataFrame, claims: pd.DataFrame, games: pd.Series,
                    note: str = "") -> pd.DataFrame:
    """The per-agent ``behaviour.csv`` rows (module docstring) from the replay's rows; ``games``
    is the sampled games per agent label (its index)."""
    out = pd.DataFrame(index=pd.Index(sorted(games.index.astype(str)), name="agent"),
                       columns=COLUMNS, dtype=object)
    out["games"] = games.reindex(out.index).fillna(0).astype(np.int64)
    out["note"] = note
    for agent in out.index:
        mine = claims[claims["agent"] == agent] if not claims.empty else claims
        out.loc[agent, COLUMNS[1:6]] = _claim_metrics(mine)
        dec = decisions[decisions["agent"] == agent] if not decisions.empty else decisions
        out.loc[agent, COLUMNS[6:18]] = _decision_metrics(dec)
    return out.infer_objects()


def _share(k: float, n: float) -> float:
    return float(k) / float(n) if n else np.nan


def _claim_metrics(c: pd.DataFrame) -> list[float]:
    """claims, bluffs, bluff_rate, bluffs_caught, bluff_success."""
    if c.empty:
        return [0, 0, np.nan, 0, np.nan]
    false = ~c["true"].astype(bool)
    bluffs, caught = int(false.sum()), int((false & c["caught"].astype(bool)).sum())
    return [len(c), bluffs, _share(bluffs, len(c)), caught, _share(bluffs - caught, bluffs)]


def _decision_metrics(d: pd.DataFrame) -> list[float]:
    """decisions ... p_passed (``COLUMNS[6:18]``)."""
    if d.empty:
        return [0, 0, np.nan, np.nan, 0, np.nan, 0, np.nan, np.nan, np.nan, np.nan, np.nan]
    true = d["true"].astype(bool).to_numpy()
    doubt = (d["response"] == O.DOUBT).to_numpy()
    affirm = (d["response"] == O.AFFIRM).to_numpy()
    exact = (d["response"] == O.EXACT).to_numpy()
    exact_right = d["exact"].fillna(False).astype(bool).to_numpy() if "exact" in d else exact & False
    p = d["p_true"].astype(float).to_numpy()
    false = (~true).astype(float)
    odds_known = bool(np.isfinite(p).all())
    return [len(d), int(doubt.sum()), _share(doubt.sum(), len(d)),
            _share((doubt & ~true).sum(), doubt.sum()),
            int(affirm.sum()), _share((affirm & true).sum(), affirm.sum()),
            int(exact.sum()), _share((exact & exact_right).sum(), exact.sum()),
            float(np.mean((doubt - false) ** 2)),
            float(np.mean((1 - p - false) ** 2)) if odds_known else np.nan,
            float(p[doubt].mean()) if odds_known and doubt.any() else np.nan,
            float(p[~doubt].mean()) if odds_known and (~doubt).any() else np.nan]


def calibration_table(decisions: pd.DataFrame, names: Mapping[str, str] | None = None,
                      bins: int = BINS) -> pd.DataFrame:
    """Per agent and bin of p (``bins`` equal bins of [0, 1]): decisions, calls, call_rate,
    p_mean and true_rate (the share of those claims that were true); ``agent_name`` is the
    label's registered agent (``names``) so plots can pick the reference agents."""
    cols = ["agent", "agent_name", "bin_low", "bin_high", "decisions", "calls", "call_rate",
            "p_mean", "true_rate"]
    if decisions.empty or not np.isfinite(decisions["p_true"].astype(float)).any():
        return pd.DataFrame(columns=cols)
    d = decisions[np.isfinite(decisions["p_true"].astype(float))]
    b = np.clip(np.floor(d["p_true"].to_numpy(float) * bins), 0, bins - 1).astype(np.int64)
    frame = pd.DataFrame({"agent": d["agent"].to_numpy(), "bin": b,
                          "call": (d["response"] == O.DOUBT).to_numpy(float),
                          "p": d["p_true"].to_numpy(float), "true": d["true"].to_numpy(float)})
    g = frame.groupby(["agent", "bin"], sort=True)
    t = pd.DataFrame({"decisions": g.size(), "calls": g["call"].sum().astype(np.int64),
                      "p_mean": g["p"].mean(), "true_rate": g["true"].mean()}).reset_index()
    t["call_rate"] = t["calls"] / t["decisions"]
    t["bin_low"], t["bin_high"] = t["bin"] / bins, (t["bin"] + 1) / bins
    t["agent_name"] = t["agent"].map(dict(names or {})).fillna("")
    return t[cols]


def measure(setup: Setup, games: pd.DataFrame | Iterable[pd.DataFrame],
            sample: int = BEHAVIOUR_GAMES) -> Behaviour:
    """Replay the first ``sample`` games of ``games`` (games.parquet rows) and build the tables;
    a game without claim rules or odds gets its tables with the reason in ``note``."""
    rec = sample_games(games, sample)
    per_agent = rec.groupby("agent")["game"].nunique() if not rec.empty else pd.Series(dtype=int)
    note = omission_note(setup.game)
    played = int(rec["game"].nunique()) if len(rec) else 0
    if O.claims_for(setup.game) is None:
        return Behaviour(pd.DataFrame(), pd.DataFrame(), failed_table(rec, note), pd.DataFrame(),
                         played)
    decisions, claims = replay(setup, rec)
    names = {label: a for label, (a, _) in setup.agents.items()}
    return Behaviour(decisions, claims, behaviour_table(decisions, claims, per_agent, note),
                     calibration_table(decisions, names), played)


def omission_note(game: str) -> str:
    """Why some behaviour metrics of ``game`` are missing ("" when none are)."""
    rules = O.claims_for(game)
    if rules is None:
        return (f"game {game!r} declares no claim rules (bluffsim.analysis.odds.register_claims): "
                "bluff, call and calibration metrics not measured")
    if not rules.has_odds:
        return f"game {game!r} has no exact odds: brier_odds, p_called, p_passed and the calibration omitted"
    return ""


def table_behaviour(exp: Any, games: pd.DataFrame, sample: int = BEHAVIOUR_GAMES) -> pd.DataFrame:
    """The ``behaviour.csv`` rows of one evaluate table (``exp`` its ``Experiment``, ``games`` its
    games DataFrame); failures to replay give rows whose ``note`` says why."""
    setup = Setup.of(exp)
    try:
        return measure(setup, games, sample).table
    except ReplayError as e:
        return failed_table(sample_games(games, sample), f"behaviour not measured: {e}")


def failed_table(games: pd.DataFrame, note: str) -> pd.DataFrame:
    """``behaviour.csv`` rows without metrics for every agent of ``games`` (sampled rows), with
    ``note`` saying why."""
    labels = sorted(set(games["agent"].astype(str))) if not games.empty else []
    counts = games.groupby("agent")["game"].nunique() if not games.empty else pd.Series(dtype=int)
    out = behaviour_table(pd.DataFrame(), pd.DataFrame(), counts.reindex(labels), "")
    out[COLUMNS[1:18]] = np.nan
    out["note"] = note
    return out


# ---------------------------------------------------------------------------- a results dir
def write_behaviour(out: Path, plots_too: bool = True, sample: int = BEHAVIOUR_GAMES,
                    games: pd.DataFrame | None = None, order: list[str] | None = None
                    ) -> Behaviour | None:
    """``behaviour.csv``, ``calibration.csv`` and ``plots/calibration.png`` of the results dir
    ``out`` from its ``games.parquet`` (or ``games``, its rows); ``order`` is the report's agent
    order (the colours).  None (nothing written) when the dir has no ``config.json`` to replay
    from."""
    from bluffsim.results import iter_chunks

    out = Path(out)
    try:
        setup = Setup.of(json.loads((out / "config.json").read_text())["config"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    def chunks() -> Iterable[pd.DataFrame]:
        return [games] if games is not None else iter_chunks(out / "games.parquet", RECORD_COLUMNS)

    try:
        beh = measure(setup, chunks(), sample)
    except ReplayError as e:
        recorded = sample_games(chunks(), sample)
        beh = Behaviour(pd.DataFrame(), pd.DataFrame(),
                        failed_table(recorded, f"behaviour not measured: {e}"), pd.DataFrame())
    beh.table.to_csv(out / "behaviour.csv")
    if beh.calibration.empty:   # none this time: an earlier report's would be wrong
        for stale in (out / "calibration.csv", out / "plots" / "calibration.png"):
            stale.unlink(missing_ok=True)
        return beh
    beh.calibration.to_csv(out / "calibration.csv", index=False)
    if plots_too:
        import matplotlib.pyplot as plt

        from bluffsim.analysis import plots

        (out / "plots").mkdir(exist_ok=True)
        fig = plots.calibration(beh.calibration, _title(setup, beh), order, REFERENCES)
        fig.savefig(out / "plots" / "calibration.png", dpi=110)
        plt.close(fig)
    return beh


def _title(setup: Setup, beh: Behaviour) -> str:
    return f"{setup.game}, {setup.players} players, {beh.games:,} games replayed"
