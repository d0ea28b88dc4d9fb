"""``bluffsim evaluate AGENT``: a standard battery, a scorecard, a rating and a leaderboard row.

AGENT is a registered name (``counting``, ``heuristic:bluff=0.3``), a custom class
``package.module:ClassName[:k=v,…]`` (imported as in a config, ``agents.custom``) or a
``learned`` weights file (``.npz``; it plays the one game and player count it was trained
for).  Parameters are ``:`` or ``,`` separated and a value may itself hold ``:`` or ``,`` (a
new parameter starts only where ``NAME=`` follows), so a URL needs no quoting:
``llm:model=M,base_url=http://127.0.0.1:8000/v1``.  ``--budget llm`` is the battery sized for
paid calls (``LLM_BUDGET``: one table size per game, the random / heuristic / counting tables,
60 games each, the expected calls printed first; docs/llm.md).  The battery, for every game
the agent plays and every player count:

| table | lineup (seat 0 is the agent evaluated, label ``subject``) | budgets |
|---|---|---|
| ``random`` / ``heuristic`` / ``counting`` | subject + (P−1) × that agent | all |
| ``learned`` | subject + (P−1) × the shipped ``learned`` (where one is shipped) | all |
| ``mixed`` (P ≥ 3) | subject, heuristic, random, counting, then heuristic variants | all |
| ``<param>=<v>`` | subject + (P−1) × heuristic with one parameter at an extreme | standard, full |
| ``mixed-h`` (P ≥ 3) | subject, random, then heuristics (default and variants) | standard, full |

Every table uses ``seating = "balanced"`` and ``duplicate = true`` (each deal replayed
under every seating of the design), a seed from the table id, and ``BUDGETS[budget]``
games (a multiple of 60, which every balanced design of 2–6 players divides).

**Rating.** Per game, a Bradley–Terry rating on a *fixed reference pool*: the
reference agents (random, heuristic and both extremes of each of its parameters,
counting, and the shipped ``learned`` per player count) play a pool tournament of
their own (``reference_ratings``: sampled lineups, every player count, balanced
seating, fixed seed, ``REFERENCE_GAMES`` games per player count), fitted with
``random = 0``; it depends on nothing evaluated, so it is computed once and cached
(``<out root>/reference/<game>-<hash>.csv``, the hash covering the pool, games, seed
and bluffsim version).  The agent's rating is then the one-parameter maximum-likelihood
fit of its pairs (better placement wins, ties split) against those fixed ratings over
all its battery games of that game (``stats.rate_against``), so ratings of different
evaluations share one scale: random = 0, and the reference agents where the reference
table puts them.  Its standard error ignores the reference ratings' own (printed in
``reference.csv``).  Beside it (``ratings.csv``, the scorecard, the leaderboard): a 95%
bootstrap interval over deals (``bt_low``, ``bt_high``) and a Plackett–Luce rating over whole
finishing orders against the pool's fixed Plackett–Luce ratings (``pl_rating``, ``pl_low``,
``pl_high``; ``analysis.ratings``).  The cache (format ``REFERENCE_FORMAT``, part of its hash)
holds the pool's ratings with their intervals and, beside it (``PAIRS_SUFFIX``), the pool's
head-to-head rates with intervals over deals.  **α-Rank** (``analysis.alpharank``): per game,
the stationary distribution over the meta-game of those rates, for the pool and for the pool
with the subject (``alpharank.csv``, ``plots/alpharank.png``, the subject's mass in the
leaderboard), and the cycles of the "beats" graph (``cycles.csv``, named in the scorecard).

**Outputs** (``--out``, default ``results/evaluate/<agent>-<budget>``): ``tables/``
(one parquet of games per table, with ``<table>.json``, its identity; a rerun with ``--resume``
plays only the tables not there with the same identity: ``tournament.tables.TableDir``),
``scorecard.csv`` (one row per table, then one ``overall`` row per game and one for all),
``scorecard.md``, ``ratings.csv``, ``reference.csv``, ``alpharank.csv``, ``cycles.csv``,
``plots/ratings.png``, ``plots/win_rates.png`` and ``plots/alpharank.png``; one row in the
leaderboard (``results/leaderboard.csv`` and ``.md``; the same agent, config hash, budget and
scope replaces its row unless ``--append``).
With text seats (``llm``, ``text:...``): ``transcripts/<table>/<game>.jsonl`` and
``llm_calls.parquet`` (as a run writes them, with a ``table`` column; per table in
``tables/<table>.llm_calls.parquet`` until merged) and a cost line; an ``llm`` subject's
``max_calls`` counts over the whole evaluation.  A restricted evaluation (``--game``,
``--players``, ``--table-games``) has its own ``scope`` (``qdv:2p`` …,
``×60`` for other games per table; ``full`` for the whole battery), so it never replaces the
full battery's row, and its default ``--out`` carries the scope too.  The
leaderboard is read before any table is played (a file that is not a leaderboard is a
one-line error, left untouched) and rewritten under an exclusive lock (``LOCK_SUFFIX``), so
evaluations finishing at once all keep their rows.  ``opponents.csv`` (and a section of
``scorecard.md``) gives, per opponent kind over the whole battery, the subject's outright win
rate and mean placement in the games that opponent sat in (beside those games' mean 1/P) and
its pairwise results against it: the rate of placing ahead of it (ties half; what the rating
is made of), each with its interval over deals, beside the opponent's reference rating.  A
reference cache that does not parse or does not rate every agent its pool seats is moved
aside (``.corrupt``) with a one-line note and the pool is played again.  ``behaviour.csv`` and
``plots/calibration_<game>.png`` (and a scorecard section) measure how every agent of the
battery bluffs and calls against the exact odds, on the first ``BEHAVIOUR_SAMPLE`` games of
each table replayed (``analysis.behaviour``).
The games replaying one deal are correlated, so a win rate's 95% CI is taken over deals:
the envelope of a deal-cluster bootstrap (``analysis.stats.cluster_bootstrap_interval``,
2,000 resamples of whole deals, fixed seed) and the Wilson interval over games (which keeps
the interval from collapsing at 0% or 100%); ``deals`` counts the clusters.

Tables, and the reference pools, play through ``tournament.tables.play_tables``: in local
processes (``--workers``, default the machine's cores) or, with ``--executor dask``, on a Dask
``LocalCluster`` of ``--workers`` workers or the scheduler at ``--address`` (the same games,
hence the same ratings); a finished table prints one progress line.  Ctrl-C stops every
process and prints one line: finished tables are kept and ``--resume`` plays the rest.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import hashlib
import inspect
import itertools
import json
import os
import re
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import agents as agent_registry
import bluffsim
from bluffsim.api import BluffsimError
from bluffsim.results import write_table


def battery_players() -> dict[str, tuple[int, ...]]:
    """Per game, the table sizes the battery plays: every size its spec allows."""
    out = {}
    for g in bluffsim.list_games():
        low, high = bluffsim.spec(g).players[:2]
        out[g] = tuple(range(low, high + 1))
    return out


def heuristic_extremes(game: str) -> dict[str, tuple[Any, Any]]:
    """Both extremes of every heuristic parameter of ``game`` (its heuristic class's
    ``EXTREMES``; none for a game without a heuristic agent)."""
    cls = agent_registry.REGISTRY.get("heuristic", {}).get(game)
    return dict(getattr(cls, "EXTREMES", {}))


DESIGN_LCM = 60   # every balanced design of 2..6 players divides it (2, 6, 12, 60, 60)


@dataclass(frozen=True)
class Budget:
    """Games per table and which tables."""

    games: int
    variants: bool


BUDGETS = {"quick": Budget(240, False), "standard": Budget(1200, True),
           "full": Budget(2400, True), "llm": Budget(60, False)}
# ``--budget llm`` (sized for paid calls): per game one table size (LLM_PLAYERS, or the nearest the
# game allows) and only the random / heuristic / counting tables, 60 games each (one balanced
# design cycle at 3 players is 6 seatings: 10 deals, each replayed under all 6); the expected
# number of calls is printed before the first one (tournament.runner.estimate_llm_calls)
LLM_BUDGET = "llm"
LLM_PLAYERS = 3
# a parameter starts after ':' or ',' where NAME= follows, so values may hold ':' and ',' (URLs)
PARAM_SEP = re.compile(r"[:,](?=\s*[A-Za-z_][A-Za-z0-9_]*\s*=)")
REFERENCE_GAMES = 2400      # games per player count of the reference pool tournament
REFERENCE_LINEUPS = 20      # sampled lineups per player count
REFERENCE_SEED = 25
SUBJECT = "subject"


class EvaluateError(BluffsimError, ValueError):
    """Bad ``evaluate`` input: names what is wrong and what is allowed."""


# ---------------------------------------------------------------- the agent evaluated
@dataclass(frozen=True)
class Subject:
    """The agent evaluated: agent name or spec, parameters, what it plays, a config hash."""

    text: str
    agent: str
    params: dict[str, Any] = field(default_factory=dict)
    plays: tuple[tuple[str, tuple[int, ...]], ...] = ()
    digest: str = ""

    @property
    def slug(self) -> str:
        """A file-name-safe short name."""
        base = Path(self.params["weights"]).stem if self.agent == "learned" and \
            "weights" in self.params else self.agent.rpartition(":")[2]
        return "".join(c if c.isalnum() or c in "-_." else "_" for c in base)[:60] + \
            f"-{self.digest[:8]}"


def _param_value(text: str) -> Any:
    from bluffsim.play import _param_value as value

    return value(text)


def parse_subject(text: str) -> Subject:
    """AGENT text -> ``Subject`` (module docstring); raises ``EvaluateError`` (one line)."""
    allowed = ("a registered agent (" + ", ".join(agent_registry.list_agents()) +
               ") with optional :k=v parameters, \"package.module:ClassName[:k=v,…]\", "
               "or a learned weights file (.npz)")
    text = (text or "").strip()
    if not text:
        raise EvaluateError(f"AGENT is empty; give {allowed}")
    if text.endswith(".npz") and text.split(":", 1)[0].strip() not in agent_registry.REGISTRY:
        return _weights_subject(text, allowed)   # a bare weights file (not learned:weights=…)
    if Path(text).is_file() or text.endswith(".py"):
        raise EvaluateError(f"AGENT {text!r} is a file, not a .npz weights file; for a Python "
                            "class write package.module:ClassName (e.g. "
                            "experiments.my_agent:Skeptic); give " + allowed)
    parts = [p.strip() for p in text.split(":")]
    if parts[0] in agent_registry.REGISTRY:
        name, taken = parts[0], 1
    elif len(parts) >= 2 and parts[1] and "=" not in parts[1]:
        name, taken = f"{parts[0]}:{parts[1]}", 2
    else:
        raise EvaluateError(f"AGENT {text!r} is not a known agent; give {allowed}")
    pieces = text.split(":", taken)
    rest = pieces[taken] if len(pieces) > taken else ""
    params: dict[str, Any] = {}
    for item in (x.strip() for x in PARAM_SEP.split(rest)):
        if not item:
            continue
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise EvaluateError(f"AGENT {text!r}: parameter {item!r}: write NAME=VALUE, e.g. "
                                "heuristic:bluff=0.3 or mypkg.mod:MyAgent:p=0.5,q=1")
        params[key.strip()] = _param_value(value.strip())
    try:
        agent_registry.check_name(name)
    except ValueError as e:
        raise EvaluateError(f"AGENT {text!r}: {e}") from None
    if agent_registry.custom.is_spec(name):
        cls = agent_registry.custom.import_class(name)
        games = tuple(getattr(cls, "games", ()) or ()) or tuple(bluffsim.list_games())
        try:
            source = inspect.getsource(inspect.getmodule(cls))   # the class's code is its version
        except (OSError, TypeError):
            source = ""
    else:
        games = tuple(g for g in agent_registry.REGISTRY[name] if g in battery_players())
        source = ""
    tables = battery_players()
    plays = tuple((g, tables[g]) for g in sorted(games) if g in tables)
    if not plays:
        raise EvaluateError(f"AGENT {text!r} plays none of the games {', '.join(tables)}")
    return Subject(text, name, params, plays, _digest(name, params, source))


def _weights_subject(text: str, allowed: str) -> Subject:
    from agents.learned import load_weights

    path = Path(text)
    if not path.is_file():
        raise EvaluateError(f"AGENT {text!r}: weights file not found; give {allowed}")
    try:
        _, meta = load_weights(path)
    except Exception as e:  # not an npz, or not ours
        first = str(e).splitlines()[0][:120] if str(e) else ""
        raise EvaluateError(f"AGENT {text!r}: not a learned weights file ({type(e).__name__}: "
                            f"{first}); give {allowed}") from None
    game, players = meta.get("game"), meta.get("num_players")
    tables = battery_players()
    if game not in tables or players not in tables[game]:
        has = ", ".join(f"{g} {v[0]}–{v[-1]}" for g, v in tables.items())
        raise EvaluateError(f"AGENT {text!r}: weights for {game!r} with {players!r} players; "
                            f"the battery has {has} players")
    if meta.get("rules"):
        raise EvaluateError(f"AGENT {text!r}: trained with rules options {meta['rules']}; the "
                            "battery plays default rules")
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    return Subject(text, "learned", {"weights": str(path)}, ((game, (players,)),),
                   _digest("learned", {"weights_sha256": sha}, ""))


def _digest(name: str, params: dict[str, Any], source: str) -> str:
    blob = json.dumps({"agent": name, "params": params, "source": source}, sort_keys=True,
                      default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:12]


# ---------------------------------------------------------------- tables
@dataclass(frozen=True)
class Table:
    """One battery table: seat 0 is the subject."""

    game: str
    players: int
    name: str
    seats: tuple[Any, ...]      # tournament.config.Seat

    @property
    def key(self) -> str:
        """Unique id: game_Pp_name (a file name)."""
        return f"{self.game}_{self.players}p_{self.name}".replace(" ", "_")


def variant_seats(game: str) -> list[tuple[str, str, dict[str, Any]]]:
    """(agent, label, params) of every heuristic variant of ``game``."""
    return [("heuristic", f"heuristic {k}={v}", {k: v})
            for k, ext in heuristic_extremes(game).items() for v in ext]


def reference_entries(game: str, players: int) -> list[tuple[str, str, dict[str, Any]]]:
    """The reference agents of ``game`` at ``players`` seats, as (agent, label, params)."""
    from agents.learned import shipped_weights

    out = [(name, name, {}) for name in ("random", "heuristic", "counting")
           if game in agent_registry.REGISTRY.get(name, {})]
    out += variant_seats(game)
    if shipped_weights(game, players).is_file():
        out.append(("learned", f"learned {players}p", {}))
    return out


def unique_seats(entries: list[tuple[str, str, dict[str, Any]]]) -> tuple[Any, ...]:
    """Seats of (agent, label, params) entries with unique labels: repeats get ``#2``, ``#3`` …"""
    from bluffsim.tournament.config import Seat

    seen: dict[str, int] = {}
    seats = []
    for agent, label, params in entries:
        seen[label] = seen.get(label, 0) + 1
        seats.append(Seat(agent, label if seen[label] == 1 else f"{label}#{seen[label]}",
                          dict(params)))
    return tuple(seats)


def battery(subject: Subject, budget: str, games: list[str] | None = None,
            players: list[int] | None = None) -> list[Table]:
    """Every table the subject plays under ``budget`` (module docstring)."""
    from agents.learned import shipped_weights

    me = (subject.agent, SUBJECT, dict(subject.params))
    out = []
    for game, counts in subject.plays:
        if games and game not in games:
            continue
        if budget == LLM_BUDGET:   # one table size per game
            counts = (min(counts, key=lambda n: (abs(n - LLM_PLAYERS), n)),)
        for p in counts:
            if players and p not in players:
                continue
            # the built-in opponents that play this game (a new game may have only random)
            rnd, heu, cnt = (("random", "random", {}), ("heuristic", "heuristic", {}),
                             ("counting", "counting", {}))
            builtins = [e for e in (rnd, heu, cnt) if game in agent_registry.REGISTRY.get(e[0], {})]
            variants = variant_seats(game)
            t = [Table(game, p, e[0], unique_seats([me] + [e] * (p - 1))) for e in builtins]
            if budget == LLM_BUDGET:
                out += t
                continue
            if shipped_weights(game, p).is_file():
                t.append(Table(game, p, "learned",
                               unique_seats([me] + [("learned", f"learned {p}p", {})] * (p - 1))))
            if p >= 3 and len(builtins) > 1:
                fill = itertools.cycle([e for e in (heu, rnd, cnt) if e in builtins] + variants)
                t.append(Table(game, p, "mixed", unique_seats([me] + [next(fill) for _ in range(p - 1)])))
            if BUDGETS[budget].variants:
                for v in variants:
                    t.append(Table(game, p, v[1].split(" ", 1)[1], unique_seats([me] + [v] * (p - 1))))
                if p >= 3 and variants:
                    fill = itertools.cycle([heu] + variants[::-1])
                    t.append(Table(game, p, "mixed-h",
                                   unique_seats([me, rnd] + [next(fill) for _ in range(p - 2)])))
            out += t
    return out


def table_experiment(table: Table, games: int, batch: int = 1024, out: str = "") -> Any:
    """The tournament ``Experiment`` of a table: balanced seating, duplicate deals, one shard
    (``out``: where its llm seats find the evaluation's call counter)."""
    from bluffsim.tournament.config import Experiment

    return Experiment(name=table.key, game=table.game, players=table.players, games=games,
                      seed=zlib.crc32(table.key.encode()), rules={}, seats=table.seats,
                      batch=batch, workers=1, seating="balanced", duplicate=True,
                      shard_games=games, plots=False, out=out)


def battery_table(table: Table, games: int, out: str = "", context: str = "") -> Any:
    """A battery table as ``tournament.tables.Table`` (its file name the table's key; ``context``
    the subject's digest, so its identity covers the weights' content and a class's source)."""
    from bluffsim.tournament.tables import Table as Played

    return Played(table_experiment(table, games, out=out), key=table.key, context=context)


def executor_of(executor: Any = 1) -> Any:
    """A ``tournament.tables.Executor`` from one, or from a number of local workers."""
    from bluffsim.tournament.tables import Executor

    return executor if isinstance(executor, Executor) else Executor("local", int(executor))


# ---------------------------------------------------------------- reference ratings
def reference_pool(game: str) -> list[Any]:
    """One pool ``Experiment`` per player count of the reference tournament of ``game``."""
    from bluffsim.tournament.config import Experiment
    from bluffsim.tournament.schedule import balanced_seatings

    exps = []
    for p in battery_players()[game]:
        seats = unique_seats(reference_entries(game, p))
        cycle = REFERENCE_LINEUPS * len(balanced_seatings(p))
        games = -(-REFERENCE_GAMES // cycle) * cycle
        exps.append(Experiment(name=f"reference_{game}_{p}p", game=game, players=p, games=games,
                               seed=REFERENCE_SEED + p, rules={}, seats=seats, workers=1,
                               seating="balanced", lineups=REFERENCE_LINEUPS, shard_games=games,
                               plots=False))
    return exps


def reference_hash(game: str) -> str:
    """Hash of what decides the reference ratings of ``game`` (pool, games, seeds, version, and
    the content of the shipped ``learned`` weights the pool plays, so new weights re-rate)."""
    from agents.learned import shipped_weights

    weights = [hashlib.sha256(shipped_weights(game, p).read_bytes()).hexdigest()
               for p in battery_players()[game] if shipped_weights(game, p).is_file()]
    blob = json.dumps([e.identity() for e in reference_pool(game)] +
                      [bluffsim.__version__, weights, REFERENCE_FORMAT], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:12]


def identity_of(label: str) -> str:
    """The agent a label stands for: ``heuristic#3`` -> ``heuristic``."""
    return label.split("#", 1)[0]


def pair_frame(games: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Pair totals (W, N) between agent identities (copies of one agent merged)."""
    from bluffsim.analysis.stats import pair_totals

    g = games.assign(agent=games["agent"].map(identity_of))
    names, w, n = pair_totals(g)
    return pd.DataFrame(w, index=names, columns=names), pd.DataFrame(n, index=names, columns=names)


def reference_ratings(game: str, cache: Path, workers: Any = 1,
                      log: Callable[[str], None] = print) -> pd.DataFrame:
    """Anchored (random = 0) Bradley–Terry ratings of ``game``'s reference pool, cached; the pool
    plays on ``workers`` (a ``tournament.tables.Executor``, or a number of local processes)."""
    from bluffsim.analysis.ratings import FinishOrders
    from bluffsim.analysis.stats import bradley_terry_anchored

    path = cache / f"{game}-{reference_hash(game)}.csv"
    if path.is_file():
        table, problem = read_reference_cache(path, reference_agents(game))
        if table is not None:
            return table
        aside = path.with_suffix(".corrupt")
        os.replace(path, aside)
        if pairs_path(path).is_file():
            os.replace(pairs_path(path), pairs_path(aside))
        log(f"reference cache {str(path)!r} is unreadable ({problem}): moved to {aside.name}, "
            "playing the reference pool again")
    log(f"reference pool of {game}: playing it once (cached in {path})")
    from bluffsim.tournament.tables import Table as Played
    from bluffsim.tournament.tables import play_tables

    played = play_tables([Played(e) for e in reference_pool(game)], executor_of(workers))
    pool = pd.concat([r.games.assign(game=r.games["game"] + i * 10**9)
                      for i, r in enumerate(played)], ignore_index=True)
    w, n = pair_frame(pool)
    names = w.index.tolist()
    table = bradley_terry_anchored(names, w.to_numpy(), n.to_numpy(), anchor="random")
    orders = FinishOrders().add(pool.assign(agent=pool["agent"].map(identity_of)))
    table = table.join(orders.ratings(anchor="random"), how="left")
    table["game"] = game
    cache.mkdir(parents=True, exist_ok=True)
    pairs = pairs_path(path)
    orders.head_to_head().to_csv(pairs.with_suffix(".tmp"), index=False)
    os.replace(pairs.with_suffix(".tmp"), pairs)   # the pairs first: the ratings file says done
    tmp = path.with_suffix(".tmp")
    table.to_csv(tmp)
    os.replace(tmp, path)
    return table


def pairs_path(cache_file: Path) -> Path:
    """The reference pool's head-to-head rates beside its ratings cache file."""
    return cache_file.with_name(cache_file.stem + PAIRS_SUFFIX)


def reference_head_to_head(game: str, cache: Path) -> pd.DataFrame:
    """The reference pool's head-to-head rates of ``game`` (``FinishOrders.head_to_head``:
    agent, opponent, ahead, low, high, pairs), cached by ``reference_ratings`` (call it first)."""
    return pd.read_csv(pairs_path(cache / f"{game}-{reference_hash(game)}.csv"))


REFERENCE_COLUMNS = ("rating", "se")
# the cache's format: 2 added the Plackett–Luce ratings, the bootstrap intervals over deals
# (REFERENCE_INTERVALS) and the pool's head-to-head rates (PAIRS_SUFFIX) that α-Rank reads.
# It is part of reference_hash, so a cache of an older format has another name and is not read
REFERENCE_FORMAT = 2
REFERENCE_INTERVALS = ("bt_low", "bt_high", "pl_rating", "pl_low", "pl_high")
PAIRS_SUFFIX = ".pairs.csv"
PAIRS_COLUMNS = ("agent", "opponent", "ahead", "low", "high", "pairs")


def reference_agents(game: str) -> set[str]:
    """The agent identities the reference pool of ``game`` seats in its sampled lineups (every
    lineup plays: each pool's games are whole design cycles), i.e. the cache's rows."""
    from bluffsim.tournament.pool import lineups_of

    out = set()
    for e in reference_pool(game):
        lineups = lineups_of(e) or (tuple(range(len(e.seats))),)
        out |= {identity_of(e.seats[i].label) for lineup in lineups for i in lineup}
    return out


def read_reference_cache(path: Path, agents: set[str] | None = None
                         ) -> tuple[pd.DataFrame | None, str]:
    """A cached reference-ratings table (rating ``agents``, when given), or (None, what is wrong
    with the file)."""
    try:
        table = pd.read_csv(path, index_col="agent")
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as e:
        return None, str(e).splitlines()[0][:100] if str(e) else type(e).__name__
    missing = [c for c in REFERENCE_COLUMNS if c not in table.columns]
    if missing or not len(table):
        return None, f"no {', '.join(missing)} column" if missing else "no rows"
    numeric = table[list(REFERENCE_COLUMNS)].apply(pd.to_numeric, errors="coerce")
    if numeric["rating"].isna().any() or "random" not in table.index:
        return None, "a rating that is not a number, or no 'random' anchor"
    if agents is not None and set(table.index.astype(str)) != agents:
        lost = sorted(agents - set(table.index.astype(str)))
        return None, (f"no rating of {', '.join(lost)}" if lost else "agents the pool does not "
                      "rate")
    missing = [c for c in REFERENCE_INTERVALS if c not in table.columns]
    if missing:
        return None, f"no {', '.join(missing)} column (an older cache format)"
    try:
        pairs = pd.read_csv(pairs_path(path))
    except (OSError, ValueError, UnicodeDecodeError, pd.errors.ParserError):
        return None, f"no readable {pairs_path(path).name}"
    if [c for c in PAIRS_COLUMNS if c not in pairs.columns]:
        return None, f"{pairs_path(path).name} lacks a column of {', '.join(PAIRS_COLUMNS)}"
    return table, ""


# ---------------------------------------------------------------- scorecard
SCORE_COLUMNS = ["game", "players", "table", "lineup", "games", "deals", "wins", "shared_wins",
                 "win_rate", "ci_low", "ci_high", "win_or_shared", "ws_ci_low", "ws_ci_high",
                 "fair_share", "mean_placement", "excess"]


def score_row(game: str, players: Any, name: str, lineup: str, games: pd.DataFrame,
              fair: float) -> dict[str, Any]:
    """The subject's row of one table (or of an aggregate of tables)."""
    from bluffsim.analysis.seats import win_kinds
    from bluffsim.analysis.stats import deal_interval

    me = win_kinds(games)
    me = me[me["agent"] == SUBJECT]
    n, wins, shared = len(me), int(me["outright"].sum()), int(me["shared"].sum())
    deals = me["seed"].to_numpy()   # the games replaying one deal share its seed
    lo, hi = deal_interval(me["outright"].to_numpy(), deals)
    ws_lo, ws_hi = deal_interval((me["outright"] | me["shared"]).to_numpy(), deals)
    return {"game": game, "players": players, "table": name, "lineup": lineup, "games": n,
            "deals": int(np.unique(deals).size), "wins": wins, "shared_wins": shared,
            "win_rate": wins / n, "ci_low": lo, "ci_high": hi, "win_or_shared": (wins + shared) / n,
            "ws_ci_low": ws_lo, "ws_ci_high": ws_hi, "fair_share": fair,
            "mean_placement": float(me["placement"].mean()), "excess": wins / n - fair}


def scorecard(tables: list[Table], played: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per table, then ``overall`` per game and ``all`` (fair share = mean 1/P)."""
    rows = []
    for t in tables:
        lineup = ", ".join(s.label for s in t.seats)
        rows.append(score_row(t.game, t.players, t.name, lineup, played[t.key], 1 / t.players))
    for game in dict.fromkeys(t.game for t in tables):
        mine = [t for t in tables if t.game == game]
        games = pd.concat([played[t.key].assign(game=played[t.key]["game"] + i * 10**9)
                           for i, t in enumerate(mine)], ignore_index=True)
        fair = float(np.mean([1 / t.players for t in mine]))
        rows.append(score_row(game, "all", "overall", f"{len(mine)} tables", games, fair))
    if len({t.game for t in tables}) > 1:
        games = pd.concat([played[t.key].assign(game=played[t.key]["game"] + i * 10**9)
                           for i, t in enumerate(tables)], ignore_index=True)
        rows.append(score_row("all", "all", "overall", f"{len(tables)} tables", games,
                              float(np.mean([1 / t.players for t in tables]))))
    return pd.DataFrame(rows, columns=SCORE_COLUMNS)


RATING_COLUMNS = ["game", "rating", "se", "ci_low", "ci_high", "pairs", "bt_low", "bt_high",
                  "pl_rating", "pl_low", "pl_high"]


def subject_ratings(tables: list[Table], played: dict[str, pd.DataFrame],
                    reference: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Per game: the subject's rating and se on the fixed reference scale (ci_low, ci_high:
    ± 1.96 se), its 95% bootstrap interval over deals (bt_low, bt_high), and its Plackett–Luce
    rating over whole finishing orders against the pool's fixed Plackett–Luce ratings (random
    = 0) with its interval over deals (pl_rating, pl_low, pl_high; ``ratings.FinishOrders``)."""
    from bluffsim.analysis.ratings import FinishOrders
    from bluffsim.analysis.stats import rate_against

    rows = []
    for game, ref in reference.items():
        mine = [t for t in tables if t.game == game]
        games = pd.concat([played[t.key].assign(game=played[t.key]["game"] + i * 10**9)
                           for i, t in enumerate(mine)], ignore_index=True)
        w, n = pair_frame(games)
        rating, se = rate_against(ref["rating"], w.loc[SUBJECT], n.loc[SUBJECT])
        orders = FinishOrders().add(games.assign(agent=games["agent"].map(identity_of)))
        boot = orders.rate_against(SUBJECT, ref["rating"], ref["pl_rating"]) \
            if "pl_rating" in ref else {}
        rows.append({"game": game, "rating": rating, "se": se,
                     "ci_low": rating - 1.96 * se, "ci_high": rating + 1.96 * se,
                     "pairs": int(n.loc[SUBJECT].sum()),
                     **{c: boot.get(c, np.nan) for c in RATING_COLUMNS[6:]}})
    return pd.DataFrame(rows, columns=RATING_COLUMNS)


# ---------------------------------------------------------------- α-Rank
def alpharank_tables(reference: dict[str, pd.DataFrame], pool_pairs: dict[str, pd.DataFrame],
                     versus: pd.DataFrame, ratings: pd.DataFrame
                     ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per game, α-Rank's stationary distribution (``analysis.alpharank``) over the meta-game
    of the reference pool's head-to-head rates (population ``pool``) and over the pool with the
    subject (``pool+subject``; its rates against each pool agent from the battery, a pool agent
    it never met filled with the Bradley–Terry prediction), and the cycles of the "beats" graph
    of the pool with the subject.  Returns (game, population, agent, mass) and (game, cycle,
    length, subject)."""
    from bluffsim.analysis import alpharank as A

    masses, named = [], []
    for game, ref in reference.items():
        pool = pool_pairs[game]
        pool = pool[pool["agent"].isin(ref.index) & pool["opponent"].isin(ref.index)]
        agents = [a for a in ref.index if a in set(pool["agent"]) | set(pool["opponent"])]
        mine = versus[versus["game"] == game]
        mine = mine[mine["opponent"].isin(agents)]
        sub = pd.DataFrame({"agent": SUBJECT, "opponent": mine["opponent"], "ahead": mine["ahead"],
                            "low": mine["ahead_low"], "high": mine["ahead_high"]})
        back = pd.DataFrame({"agent": mine["opponent"], "opponent": SUBJECT,
                             "ahead": 1 - mine["ahead"], "low": 1 - mine["ahead_high"],
                             "high": 1 - mine["ahead_low"]})
        both = pd.concat([pool, sub, back], ignore_index=True)
        mine_rating = ratings.loc[ratings["game"] == game, "rating"]
        scale = pd.concat([ref["rating"], pd.Series(
            {SUBJECT: float(mine_rating.iloc[0]) if len(mine_rating) else np.nan})])
        for population, rows, names in (("pool", pool, agents),
                                        ("pool+subject", both, [SUBJECT, *agents])):
            if not names:
                continue
            mass = A.ranking(A.meta_game(rows, names, scale))
            masses.append(pd.DataFrame({"game": game, "population": population,
                                        "agent": mass.index, "mass": mass.to_numpy()}))
        for cyc in A.cycles(A.beats(both)):
            named.append({"game": game, "cycle": A.cycle_text(cyc), "length": len(cyc),
                          "subject": SUBJECT in cyc})
    cols = ["game", "population", "agent", "mass"]
    return (pd.concat(masses, ignore_index=True) if masses else pd.DataFrame(columns=cols),
            pd.DataFrame(named, columns=["game", "cycle", "length", "subject"]))


def alpharank_markdown(masses: pd.DataFrame, cycles: pd.DataFrame, top: int = 6) -> str:
    """The α-Rank section of ``scorecard.md``."""
    from bluffsim.analysis import alpharank as A

    lines = ["", "## α-Rank and cycles", "",
             f"α-Rank (single population, α = {A.ALPHA:g}, m = {A.POPULATION}) over the meta-game "
             "of head-to-head rates (how often one agent finished ahead of another, ties half): "
             "the stationary mass of the reference pool alone and of the pool with the subject "
             "(`alpharank.csv`, `plots/alpharank.png`). A cycle is a ring of agents each beating "
             "the next (ahead more than half the time, 95% interval over deals above 0.5; "
             "`cycles.csv`).", "",
             "| game | population | largest masses (≥ 0.001) | subject |", "|---|---|---|---:|"]
    for (game, population), g in masses.groupby(["game", "population"], sort=False):
        me = g.loc[g["agent"] == SUBJECT, "mass"]
        g = g.sort_values("mass", ascending=False)
        g = pd.concat([g.head(1), g.iloc[1:][g["mass"].iloc[1:] >= 0.001]]).head(top)
        best = ", ".join(f"{a} {m:.3f}" for a, m in zip(g["agent"], g["mass"], strict=True))
        lines.append(f"| {game} | {population} | {best} | "
                     f"{f'{me.iloc[0]:.3f}' if len(me) else ''} |")
    lines.append("")
    for game in dict.fromkeys(masses["game"]):
        found = cycles[cycles["game"] == game]
        lines.append(f"Cycles in {game}: " + ("; ".join(f"`{c}`" for c in found["cycle"])
                                              if len(found) else "none (the beats graph is "
                                              "acyclic at this sample size)") + ".")
    return "\n".join(lines) + "\n"


def write_alpharank(p: Plan, reference: dict[str, pd.DataFrame], versus: pd.DataFrame,
                    ratings: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """``alpharank.csv``, ``cycles.csv`` and ``plots/alpharank.png``; returns the masses and
    the scorecard's section."""
    import matplotlib.pyplot as plt

    from bluffsim.analysis import plots

    pairs = {g: reference_head_to_head(g, p.reference_dir) for g in reference}
    masses, cycles = alpharank_tables(reference, pairs, versus, ratings)
    masses.to_csv(p.out / "alpharank.csv", index=False)
    cycles.to_csv(p.out / "cycles.csv", index=False)
    if len(masses):
        (p.out / "plots").mkdir(exist_ok=True)
        fig = plots.alpharank(masses, f"{p.subject.text} ({p.budget})", highlight=SUBJECT)
        fig.savefig(p.out / "plots" / "alpharank.png", dpi=110)
        plt.close(fig)
    return masses, alpharank_markdown(masses, cycles)


OPPONENT_COLUMNS = ["game", "opponent", "reference_rating", "games", "win_rate", "win_low",
                    "win_high", "fair_share", "mean_placement", "pairs", "deals", "ahead",
                    "ahead_low", "ahead_high", "mean_placement_gap"]


def subject_pairs(games: pd.DataFrame) -> pd.DataFrame:
    """One row per (game, opponent seat) of ``games``: the opponent's identity, the subject's
    score against it (1 placed ahead, 0.5 tie, 0 behind), the placement gap and the game's seed."""
    me = games[games["agent"] == SUBJECT][["game", "placement"]]
    them = games[games["agent"] != SUBJECT][["game", "agent", "placement", "seed"]]
    pairs = them.merge(me, on="game", suffixes=("", "_subject"))
    score = np.where(pairs["placement_subject"] < pairs["placement"], 1.0,
                     np.where(pairs["placement_subject"] == pairs["placement"], 0.5, 0.0))
    return pd.DataFrame({"opponent": pairs["agent"].map(identity_of).to_numpy(), "score": score,
                         "gap": (pairs["placement"] - pairs["placement_subject"]).to_numpy(float),
                         "seed": pairs["seed"].to_numpy()})


def subject_games_with(games: pd.DataFrame) -> pd.DataFrame:
    """One row per (game, opponent kind seated in it) of ``games``: the subject's outright win
    (first place alone), its placement, the chance rate 1/P and the game's seed."""
    from bluffsim.analysis.seats import win_kinds

    kinds = win_kinds(games)
    me = kinds[kinds["agent"] == SUBJECT][["game", "outright", "placement", "seed"]]
    seats = games.groupby("game")["agent"].size()
    them = games.loc[games["agent"] != SUBJECT, ["game"]].assign(
        opponent=games.loc[games["agent"] != SUBJECT, "agent"].map(identity_of)).drop_duplicates()
    out = them.merge(me, on="game")
    return out.assign(fair=1.0 / out["game"].map(seats).to_numpy(float))


def _deal_ids(g: pd.DataFrame) -> np.ndarray:
    """Deal clusters of rows from several tables: (table, seed) pairs numbered 0, 1, …"""
    return pd.factorize(pd.MultiIndex.from_arrays([g["table"], g["seed"]]))[0]


def opponents_table(tables: list[Table], played: dict[str, pd.DataFrame],
                    reference: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Per game and opponent kind over the whole battery: the subject's outright win rate and
    mean placement in the games that opponent kind sat in (against the mean chance rate 1/P of
    those games), and how often it placed ahead of that opponent (ties half; the pairs its
    rating is fitted on), each with a 95% interval over deals."""
    from bluffsim.analysis.stats import cluster_bootstrap_interval, deal_interval

    rows = []
    for game in dict.fromkeys(t.game for t in tables):
        mine = [(i, t) for i, t in enumerate(tables) if t.game == game]
        pairs = pd.concat([subject_pairs(played[t.key]).assign(table=i) for i, t in mine],
                          ignore_index=True)
        present = pd.concat([subject_games_with(played[t.key]).assign(table=i) for i, t in mine],
                            ignore_index=True)
        ref = reference.get(game)
        for name, g in pairs.groupby("opponent", sort=True):
            deal = _deal_ids(g)
            lo, hi = cluster_bootstrap_interval(g["score"].to_numpy(), deal)
            sat = present[present["opponent"] == name]
            win_lo, win_hi = deal_interval(sat["outright"].to_numpy(), _deal_ids(sat))
            rating = float(ref.loc[name, "rating"]) if ref is not None and name in ref.index \
                else float("nan")
            rows.append({"game": game, "opponent": name, "reference_rating": rating,
                         "games": len(sat), "win_rate": float(sat["outright"].mean()),
                         "win_low": win_lo, "win_high": win_hi,
                         "fair_share": float(sat["fair"].mean()),
                         "mean_placement": float(sat["placement"].mean()),
                         "pairs": len(g), "deals": int(deal.max() + 1),
                         "ahead": float(g["score"].mean()), "ahead_low": lo, "ahead_high": hi,
                         "mean_placement_gap": float(g["gap"].mean())})
    return pd.DataFrame(rows, columns=OPPONENT_COLUMNS)


def opponents_markdown(versus: pd.DataFrame) -> str:
    """The per-opponent section of ``scorecard.md``."""
    lines = ["", "## Against each opponent", "",
             "Over every table of the battery, per opponent kind: the subject's outright win rate "
             "and mean placement in the games that opponent sat in (1/P: the mean chance rate of "
             "those games), and how often the subject placed ahead of it (ties count half; these "
             "pairs are what its rating is fitted on); 95% intervals over deals; the gap is the "
             "opponent's mean placement minus the subject's (positive: the subject placed "
             "better).", "",
             "| game | opponent | reference rating | games | win rate | 95% CI | 1/P | mean place "
             "| pairs | ahead | 95% CI | placement gap |",
             "|---|---|---:|---:|---:|---|---:|---:|---:|---:|---|---:|"]
    for r in versus.itertuples():
        rating = "" if np.isnan(r.reference_rating) else f"{r.reference_rating:.0f}"
        lines.append(f"| {r.game} | {r.opponent} | {rating} | {r.games:,} | {r.win_rate:.3f} | "
                     f"{r.win_low:.3f} – {r.win_high:.3f} | {r.fair_share:.3f} | "
                     f"{r.mean_placement:.2f} | {r.pairs:,} | {r.ahead:.3f} | "
                     f"{r.ahead_low:.3f} – {r.ahead_high:.3f} | {r.mean_placement_gap:+.2f} |")
    return "\n".join(lines) + "\n"


def games_per_table(card: pd.DataFrame, budget: str) -> int:
    """The games each table of ``card`` played (``--table-games``; the budget's when empty)."""
    tab = card[card["table"] != "overall"]
    return int(tab["games"].max()) if len(tab) else BUDGETS[budget].games


def markdown_card(subject: Subject, budget: str, card: pd.DataFrame, ratings: pd.DataFrame,
                  reference: dict[str, pd.DataFrame], seconds: float) -> str:
    """``scorecard.md``."""
    lines = [f"# Scorecard: `{subject.text}`", "",
             f"budget `{budget}` ({games_per_table(card, budget):,} games per table), config hash "
             f"`{subject.digest}`, bluffsim {bluffsim.__version__}, "
             f"{dt.date.today().isoformat()}, {seconds:.0f} s. Seating balanced, duplicate deals. "
             "Win rate = outright first place; *+shared* adds shared first places; 95% CIs over "
             "deals (cluster bootstrap, at least Wilson's width); chance = 1/P; excess = win rate − 1/P.", "",
             "## Rating (Bradley–Terry, fixed reference pool, random = 0)", "",
             "Bradley–Terry over pairs (95% CI ± 1.96 se, and a bootstrap over deals) and "
             "Plackett–Luce over whole finishing orders against the pool's Plackett–Luce ratings "
             "(bootstrap over deals); both on the 400·log10 scale, random = 0.", "",
             "| game | rating | 95% CI | bootstrap CI | Plackett–Luce | bootstrap CI | pairs |",
             "|---|---:|---:|---:|---:|---:|---:|"]

    def num(v: float) -> str:
        return "–" if pd.isna(v) else f"{v:.0f}"

    # intervals a caller did not compute (an older ratings table) print as "–"
    for r in ratings.reindex(columns=list(dict.fromkeys([*ratings.columns, *RATING_COLUMNS]))
                             ).itertuples():
        lines.append(f"| {r.game} | {r.rating:.0f} | {r.ci_low:.0f} – {r.ci_high:.0f} | "
                     f"{num(r.bt_low)} – {num(r.bt_high)} | {num(r.pl_rating)} | "
                     f"{num(r.pl_low)} – {num(r.pl_high)} | {r.pairs} |")
    lines += ["", "Reference ratings (same scale): " + "; ".join(
        f"{g}: " + ", ".join(f"{a} {v:.0f}" for a, v in ref["rating"].items())
        for g, ref in reference.items()), ""]
    tab = card[card["table"] != "overall"]
    if len(tab):
        best, worst = tab.loc[tab["excess"].idxmax()], tab.loc[tab["excess"].idxmin()]
        lines += [f"Strongest table: {best.game} {best.players}p `{best.table}` "
                  f"({best.win_rate:.3f} vs 1/P {best.fair_share:.3f}); weakest: {worst.game} "
                  f"{worst.players}p `{worst.table}` ({worst.win_rate:.3f} vs "
                  f"{worst.fair_share:.3f}).", ""]
    lines += ["## Tables", "",
              "| game | P | table | games | win rate | 95% CI | +shared | 95% CI | 1/P | "
              "mean place |", "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in card.itertuples():
        lines.append(f"| {r.game} | {r.players} | {r.table} | {r.games} | {r.win_rate:.3f} | "
                     f"{r.ci_low:.3f} – {r.ci_high:.3f} | {r.win_or_shared:.3f} | "
                     f"{r.ws_ci_low:.3f} – {r.ws_ci_high:.3f} | {r.fair_share:.3f} | "
                     f"{r.mean_placement:.2f} |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- leaderboard
LEADERBOARD_KEY = ["agent", "hash", "budget", "scope"]
LEADERBOARD_FRONT = ["agent", "hash", "date", "budget", "scope", "bluffsim"]
FULL_SCOPE = "full"          # the scope of an evaluation of the whole battery
LOCK_SUFFIX = ".lock"        # beside the CSV: held (flock) while the leaderboard is rewritten
LEADERBOARD_REQUIRED = ["agent", "hash", "date", "budget"]   # what the printed table needs
# per game ``<game>_<stat>``: the Bradley–Terry rating and se, its bootstrap interval over deals,
# the Plackett–Luce rating and interval, and the subject's α-Rank mass among the pool.  A
# leaderboard written before a stat existed reads it as empty (NaN); only rating and se are
# required of a game's columns
LEADERBOARD_STATS = ("rating", "se", "bt_low", "bt_high", "pl_rating", "pl_low", "pl_high",
                     "alpharank")


def leaderboard_games(columns: Any) -> list[str]:
    """The games of a leaderboard's columns: every ``<game>_rating`` (``<game>_pl_rating`` is
    the Plackett–Luce column of ``<game>`` when ``<game>_rating`` is there too)."""
    names = [str(c) for c in columns]
    found = [c[: -len("_rating")] for c in names if c.endswith("_rating")]
    return [g for g in found if not (g.endswith("_pl") and g[: -len("_pl")] in found)]


def leaderboard_stat_columns(columns: Any) -> list[str]:
    """The per-game columns present among ``columns``, game by game in LEADERBOARD_STATS order."""
    names = {str(c) for c in columns}
    return [f"{g}_{s}" for g in sorted(leaderboard_games(columns)) for s in LEADERBOARD_STATS
            if f"{g}_{s}" in names]


def scope_of(games: list[str] | None, players: list[int] | None, table_games: int | None,
             budget_games: int) -> str:
    """What a (possibly restricted) evaluation played, e.g. ``full``, ``qdv:2p`` or
    ``qdv:2p,4p;x60`` (60 games per table instead of the budget's)."""
    parts = []
    if games or players:
        ps = ",".join(f"{n}p" for n in sorted(set(players or [])))
        parts.append(";".join(f"{g}:{ps}" if ps else g for g in sorted(set(games or []))) or
                     f"players:{ps}")
    if table_games is not None and table_games != budget_games:
        parts.append(f"x{table_games}")
    return ";".join(parts) or FULL_SCOPE


def leaderboard_row(subject: Subject, budget: str, scope: str, ratings: pd.DataFrame,
                    reference: dict[str, str], out: Path,
                    alpharank: pd.DataFrame | None = None) -> dict[str, Any]:
    """The leaderboard row of an evaluation (``alpharank``: ``alpharank_tables``' masses)."""
    row: dict[str, Any] = {"agent": subject.text, "hash": subject.digest,
                           "date": dt.date.today().isoformat(), "budget": budget,
                           "scope": scope, "bluffsim": bluffsim.__version__}
    for r in ratings.to_dict("records"):
        for stat in LEADERBOARD_STATS[:-1]:
            value = float(r.get(stat, np.nan))
            row[f"{r['game']}_{stat}"] = round(value, 1) if np.isfinite(value) else np.nan
        mass = np.nan
        if alpharank is not None and len(alpharank):
            me = alpharank[(alpharank["game"] == r["game"]) & (alpharank["agent"] == SUBJECT) &
                           (alpharank["population"] == "pool+subject")]["mass"]
            mass = round(float(me.iloc[0]), 4) if len(me) else np.nan
        row[f"{r['game']}_alpharank"] = mass
    row["reference"] = ";".join(f"{g}:{h}" for g, h in reference.items())
    row["scorecard"] = str(out / "scorecard.md")
    return row


def read_leaderboard(path: Path) -> pd.DataFrame:
    """The leaderboard CSV at ``path`` (empty if there is none); a file that is not one raises
    ``EvaluateError`` naming it and what is wrong (the file is left as it is)."""
    if not path.is_file():
        return pd.DataFrame()
    fix = "it is left as it is: repair it, move it aside or name another file"
    try:
        table = pd.read_csv(path, dtype={"hash": str})
    except pd.errors.EmptyDataError:
        raise EvaluateError(f"leaderboard {str(path)!r} is empty, not a leaderboard; {fix}") from None
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as e:
        what = str(e).splitlines()[0][:80] if str(e) else type(e).__name__
        raise EvaluateError(f"leaderboard {str(path)!r} is not a readable CSV ({what}); "
                            f"{fix}") from None
    games = leaderboard_games(table.columns)
    missing = [c for c in LEADERBOARD_REQUIRED if c not in table.columns]
    missing += [f"{g}_se" for g in games if f"{g}_se" not in table.columns]
    if missing:
        raise EvaluateError(f"leaderboard {str(path)!r} has no {', '.join(missing)} column (not "
                            f"written by bluffsim evaluate); {fix}")
    for c in leaderboard_stat_columns(table.columns):
        number = pd.to_numeric(table[c], errors="coerce")
        bad = table[c].notna() & ~np.isfinite(number.astype(float))
        if bad.any():
            raise EvaluateError(f"leaderboard {str(path)!r}: column {c!r} holds "
                                f"{str(table.loc[bad, c].iloc[0])[:30]!r}, not a finite number; "
                                f"{fix}")
    if "scope" not in table.columns:       # written before scopes: every row was the battery
        table.insert(min(4, len(table.columns)), "scope", FULL_SCOPE)
    table["scope"] = table["scope"].fillna(FULL_SCOPE).astype(str)
    for g in games:              # written before a stat existed: that stat is empty
        for stat in LEADERBOARD_STATS:
            if f"{g}_{stat}" not in table.columns:
                table[f"{g}_{stat}"] = np.nan
    return table


@contextlib.contextmanager
def leaderboard_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path``'s lock file (``LOCK_SUFFIX``) while rewriting it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + LOCK_SUFFIX), "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def update_leaderboard(path: Path, row: dict[str, Any], append: bool = False) -> pd.DataFrame:
    """Add ``row`` to the leaderboard CSV (replacing the row of the same agent, hash, budget and
    scope unless ``append``) and rewrite its ``.md``, under the lock; returns the table."""
    row = {"scope": FULL_SCOPE, **row}
    with leaderboard_lock(path):
        old = read_leaderboard(path)
        if not append and len(old):
            same = np.ones(len(old), bool)
            for k in LEADERBOARD_KEY:
                same &= old[k].astype(str).to_numpy() == str(row[k])
            old = old[~same]
        table = pd.concat([old, pd.DataFrame([row])], ignore_index=True) if len(old) else \
            pd.DataFrame([row])
        rating_cols = leaderboard_stat_columns(table.columns)
        front = [c for c in LEADERBOARD_FRONT if c in table.columns]
        table = table[front + rating_cols + [c for c in table.columns
                                             if c not in front and c not in rating_cols]]
        tmp = path.with_suffix(".csv.tmp")
        table.to_csv(tmp, index=False)
        os.replace(tmp, path)
        md = path.with_suffix(".md")
        md.with_suffix(".md.tmp").write_text(leaderboard_markdown(table), encoding="utf-8")
        os.replace(md.with_suffix(".md.tmp"), md)
    return table


def _leaderboard_cell(r: pd.Series, g: str) -> str:
    """One game's cell: ``rating ± se [bootstrap CI] · PL rating [CI] · α mass`` (parts
    without a value left out)."""
    def get(stat: str) -> float:
        v = r.get(f"{g}_{stat}", np.nan)
        return float(v) if not pd.isna(v) else np.nan

    if np.isnan(get("rating")):
        return ""
    cell = f"{get('rating'):.0f} ± {get('se'):.0f}"
    if np.isfinite(get("bt_low")) and np.isfinite(get("bt_high")):
        cell += f" [{get('bt_low'):.0f}, {get('bt_high'):.0f}]"
    if np.isfinite(get("pl_rating")):
        cell += f" · PL {get('pl_rating'):.0f}"
        if np.isfinite(get("pl_low")) and np.isfinite(get("pl_high")):
            cell += f" [{get('pl_low'):.0f}, {get('pl_high'):.0f}]"
    if np.isfinite(get("alpharank")):
        cell += f" · α {get('alpharank'):.3f}"
    return cell


def leaderboard_markdown(table: pd.DataFrame) -> str:
    """The leaderboard as a markdown table: per game rating ± se, its bootstrap interval over
    deals, the Plackett–Luce rating and interval, and the α-Rank mass."""
    games = leaderboard_games(table.columns)
    lines = ["| agent | hash | date | budget | scope | " + " | ".join(games) + " |",
             "|---|---|---|---|---|" + "---:|" * len(games)]
    for _, r in table.iterrows():
        cells = [_leaderboard_cell(r, g) for g in games]
        scope = r["scope"] if "scope" in r.index else FULL_SCOPE
        lines.append(f"| `{r['agent']}` | {r['hash']} | {r['date']} | {r['budget']} | {scope} | "
                     + " | ".join(cells) + " |")
    return ("Bradley–Terry ratings on the fixed reference pool (random = 0) ± standard error, "
            "[95% bootstrap interval over deals]; PL: the Plackett–Luce rating over whole "
            "finishing orders on the pool's Plackett–Luce scale (random = 0) [its interval]; "
            "α: the agent's α-Rank mass among the reference pool (`bluffsim evaluate`; "
            "docs/strength.md).\n\n" + "\n".join(lines) + "\n")


# ---------------------------------------------------------------- the whole evaluation
@dataclass(frozen=True)
class Plan:
    """A validated evaluation: nothing has been written when it exists."""

    subject: Subject
    budget: str
    tables: tuple[Table, ...]
    games: int
    out: Path
    leaderboard: Path
    reference_dir: Path
    workers: int
    append: bool
    resume: bool
    force: bool
    scope: str = FULL_SCOPE
    executor: str = "local"    # where tables play: local | dask (tournament.tables.Executor)
    address: str = ""          # a dask scheduler; empty: a LocalCluster of ``workers`` workers

    @property
    def runs_on(self) -> Any:
        """The ``tournament.tables.Executor`` the tables play on."""
        from bluffsim.tournament.tables import Executor

        return Executor(self.executor, self.workers, self.address)


def default_workers(tables: int) -> int:
    """Processes for ``tables`` tables: the machine's cores, at most one per table."""
    return max(1, min(os.cpu_count() or 1, tables))


def plan(agent: str, budget: str = "quick", out: str | None = None, workers: int | None = None,
         games: list[str] | None = None, players: list[int] | None = None,
         table_games: int | None = None, leaderboard: str = "results/leaderboard.csv",
         reference_dir: str | None = None, append: bool = False, resume: bool = False,
         force: bool = False, executor: str | None = None, address: str | None = None) -> Plan:
    """Validate every input and build every table's agents once (writes nothing); ``executor``
    and ``address`` are ``bluffsim run``'s (``--address`` implies ``--executor dask``)."""
    from bluffsim.tournament.config import ConfigError, check_run_key

    executor = executor or ("dask" if address else "local")
    address = address or ""
    try:
        check_run_key("executor", executor)
        check_run_key("address", address)
    except ConfigError as e:
        raise EvaluateError(str(e)) from None
    if address and executor != "dask":
        raise EvaluateError(f"--address {address!r} is a dask scheduler: it needs --executor "
                            "dask (or no --executor)")
    if budget not in BUDGETS:
        raise EvaluateError(f"--budget {budget!r}: allowed: {' | '.join(BUDGETS)}")
    if resume and force:
        raise EvaluateError("--resume and --force exclude each other")
    if workers is not None and (not isinstance(workers, int) or not 1 <= workers <= 256):
        raise EvaluateError(f"--workers {workers!r}: allowed: an integer 1..256")
    n = BUDGETS[budget].games if table_games is None else table_games
    if not isinstance(n, int) or n < DESIGN_LCM or n % DESIGN_LCM:
        raise EvaluateError(f"--table-games {n!r}: allowed: a positive multiple of {DESIGN_LCM} "
                            "(every balanced seating design of 2–6 players divides it)")
    for g in games or []:
        if g not in battery_players():
            raise EvaluateError(f"--game {g!r}: allowed: {' | '.join(battery_players())}")
    subject = parse_subject(agent)
    tables = battery(subject, budget, games, players)
    if not tables:
        plays = "; ".join(f"{g} {', '.join(map(str, ps))} players" for g, ps in subject.plays)
        asked = " ".join([f"--game {g}" for g in games or []] +
                         [f"--players {n}" for n in players or []])
        raise EvaluateError(f"AGENT {agent!r} has no table for {asked}; it plays {plays}")
    game_objs: dict[tuple[str, int], Any] = {}
    for t in tables:
        key = (t.game, t.players)
        if key in game_objs:
            continue
        game_objs[key] = bluffsim.make(t.game, t.players)
        try:
            agent_registry.make(subject.agent, game_objs[key], **subject.params)
        except (ValueError, BluffsimError) as e:
            raise EvaluateError(f"AGENT {agent!r} at {t.game} with {t.players} players: {e} "
                                "(--game/--players restrict the battery)") from None
    scope = scope_of(games, players, table_games, BUDGETS[budget].games)
    slug = f"{subject.slug}-{budget}" + ("" if scope == FULL_SCOPE else "-" + "".join(
        c if c.isalnum() else "_" for c in scope))
    out_dir = Path(out or f"results/evaluate/{slug}")
    lb = Path(leaderboard)
    if lb.suffix != ".csv":
        raise EvaluateError(f"--leaderboard {leaderboard!r}: allowed: a .csv path (the .md is "
                            "written beside it)")
    if lb.is_dir():
        raise EvaluateError(f"--leaderboard {leaderboard!r} is a directory; give a .csv path")
    read_leaderboard(lb)      # a corrupt leaderboard stops here, before any table is played
    if out_dir.exists() and not out_dir.is_dir():
        raise EvaluateError(f"--out {str(out_dir)!r} is a file; give a directory")
    if out_dir.is_dir() and any(out_dir.iterdir()) and not (resume or force):
        raise EvaluateError(f"--out {str(out_dir)!r} is not empty: --resume finishes that "
                            "evaluation, --force replaces it")
    if resume and (out_dir / "evaluation.json").is_file():
        saved = json.loads((out_dir / "evaluation.json").read_text())
        if saved.get("identity") != _identity(subject, budget, tables, n):
            raise EvaluateError(f"--resume: {str(out_dir)!r} holds an evaluation of other "
                                "settings; use another --out or --force")
    ref_dir = Path(reference_dir) if reference_dir else out_dir.parent / "reference"
    workers = default_workers(len(tables)) if workers is None else workers
    return Plan(subject, budget, tuple(tables), n, out_dir, lb, ref_dir, workers, append,
                resume, force, scope, executor, address)


def _identity(subject: Subject, budget: str, tables: list[Table] | tuple[Table, ...],
              games: int) -> dict[str, Any]:
    return {"agent": subject.text, "hash": subject.digest, "budget": budget, "games": games,
            "tables": [t.key for t in tables]}


def run(p: Plan, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Play the missing tables, the reference pools if not cached, write every output."""
    import shutil

    start = time.perf_counter()
    if p.force and p.out.is_dir():
        for name in ("tables", "plots", "transcripts"):
            shutil.rmtree(p.out / name, ignore_errors=True)
    (p.out / "tables").mkdir(parents=True, exist_ok=True)
    (p.out / "evaluation.json").write_text(json.dumps(
        {"identity": _identity(p.subject, p.budget, p.tables, p.games),
         "params": p.subject.params}, indent=1, default=str))
    from bluffsim.tournament.tables import TableDir, play_tables

    store = TableDir(p.out / "tables", p.out / "transcripts")
    tables = [battery_table(t, p.games, out=str(p.out), context=p.subject.digest)
              for t in p.tables]
    todo = [t for t in tables if not store.finished(t)]
    log(f"{p.subject.text}: {len(p.tables)} tables × {p.games} games ({len(todo)} to play, "
        f"{p.runs_on.describe(len(todo))})")
    _log_llm_estimate([t.exp for t in todo], p.out, log)
    finished = [0]

    def done(result: Any) -> None:
        finished[0] += 1
        log(f"  table {finished[0]}/{len(todo)} {result.table.name}: "
            f"{result.games['game'].nunique():,} games ({time.perf_counter() - start:.0f} s)")

    played = {t.key: r.games for t, r in
              zip(p.tables, play_tables(tables, p.runs_on, store, done), strict=True)}
    cost = merge_calls(p.out, [t.key for t in p.tables])
    if cost:
        log(cost)
    reference = {g: reference_ratings(g, p.reference_dir, p.runs_on, log)
                 for g in dict.fromkeys(t.game for t in p.tables)}
    card = scorecard(list(p.tables), played)
    ratings = subject_ratings(list(p.tables), played, reference)
    versus = opponents_table(list(p.tables), played, reference)
    seconds = time.perf_counter() - start
    card.to_csv(p.out / "scorecard.csv", index=False)
    ratings.to_csv(p.out / "ratings.csv", index=False)
    versus.to_csv(p.out / "opponents.csv", index=False)
    pd.concat(reference.values()).to_csv(p.out / "reference.csv")
    (p.out / "scorecard.md").write_text(
        markdown_card(p.subject, p.budget, card, ratings, reference, seconds)
        + opponents_markdown(versus), encoding="utf-8")
    _plots(p, card, ratings)
    masses, alpha_md = write_alpharank(p, reference, versus, ratings)
    behaviour_md = write_behaviour(p, played)
    with open(p.out / "scorecard.md", "a", encoding="utf-8") as f:
        f.write(alpha_md + behaviour_md)
    row = leaderboard_row(p.subject, p.budget, p.scope, ratings,
                          {g: reference_hash(g) for g in reference}, p.out, masses)
    board = update_leaderboard(p.leaderboard, row, p.append)
    return {"scorecard": card, "ratings": ratings, "leaderboard": board, "seconds": seconds}


def _log_llm_estimate(exps: list[Any], out: Path, log: Callable[[str], None]) -> None:
    """Before the first call of an ``llm`` subject: a fresh call counter in ``out`` (``max_calls``
    bounds the whole evaluation, every worker process included) and the calls its tables are
    expected to make."""
    from agents.llm import start_budget
    from bluffsim.tournament.runner import estimate_llm_calls, llm_seats

    exps = [e for e in exps if llm_seats(e)]
    if not exps:
        return
    start_budget(out)
    total = sum(estimate_llm_calls(e)[0] * e.games for e in exps)
    log(f"llm: about {total:,.0f} calls expected over {len(exps)} tables (llm decisions per game "
        "measured on each table's first games with random moves in the llm seat; rethinks add "
        "more, cached answers cost none)")


def calls_file(out: Path, key: str) -> Path:
    """The text seats' call table of table ``key``."""
    return out / "tables" / f"{key}.llm_calls.parquet"


def merge_calls(out: Path, keys: list[str]) -> str | None:
    """``llm_calls.parquet`` of the evaluation (every table's calls, a ``table`` column) and its
    cost line; None without text seats."""
    from bluffsim.tournament.runner import llm_cost_line

    parts = [pd.read_parquet(f) for k in keys if (f := calls_file(out, k)).is_file()]
    if not parts:
        return None
    write_table(pd.concat(parts, ignore_index=True), out / "llm_calls.parquet")
    return llm_cost_line(out)


BEHAVIOUR_SAMPLE = 60     # games replayed per table for the behaviour metrics (analysis.behaviour)


def battery_behaviour(p: Plan, played: dict[str, pd.DataFrame]
                      ) -> dict[str, tuple[pd.DataFrame, pd.DataFrame, pd.Series]]:
    """Per game: the replayed decisions and claims of the first ``BEHAVIOUR_SAMPLE`` games of
    every table (agent labels merged by identity) and the games per identity."""
    from bluffsim.analysis import behaviour as B

    out: dict[str, tuple[pd.DataFrame, pd.DataFrame, pd.Series]] = {}
    for game in dict.fromkeys(t.game for t in p.tables):
        decs, claims, counts = [], [], []
        for t in (t for t in p.tables if t.game == game):
            exp = table_experiment(t, p.games)
            try:
                beh = B.measure(B.Setup.of(exp), played[t.key], BEHAVIOUR_SAMPLE)
            except B.ReplayError:
                continue
            sample = B.sample_games(played[t.key], BEHAVIOUR_SAMPLE)
            counts.append(sample.assign(agent=sample["agent"].map(identity_of))
                          .groupby("agent")["game"].nunique())
            for frame, into in ((beh.decisions, decs), (beh.claims, claims)):
                if not frame.empty:
                    into.append(frame.assign(agent=frame["agent"].map(identity_of), table=t.key))
        if counts:
            out[game] = (pd.concat(decs, ignore_index=True) if decs else pd.DataFrame(),
                         pd.concat(claims, ignore_index=True) if claims else pd.DataFrame(),
                         pd.concat(counts).groupby(level=0).sum())
    return out


def write_behaviour(p: Plan, played: dict[str, pd.DataFrame]) -> str:
    """``behaviour.csv`` (per game and agent identity over the battery's replayed games) and
    ``plots/calibration_<game>.png``; returns the scorecard's section on the subject."""
    import matplotlib.pyplot as plt

    from bluffsim.analysis import behaviour as B
    from bluffsim.analysis import plots

    rows, lines = [], []
    for game, (decs, claims, counts) in battery_behaviour(p, played).items():
        table = B.behaviour_table(decs, claims, counts, B.omission_note(game))
        rows.append(table.reset_index().assign(game=game))
        names = {a: a for a in counts.index}
        cal = B.calibration_table(decs, names) if not decs.empty else pd.DataFrame()
        if len(cal):
            fig = plots.calibration(cal, f"{p.subject.text} ({p.budget}), {game}")
            fig.savefig(p.out / "plots" / f"calibration_{game}.png", dpi=110)
            plt.close(fig)
        if SUBJECT in table.index:
            r = table.loc[SUBJECT]
            lines.append(f"| {game} | {int(r['games'])} | {r['bluff_rate']:.3f} | "
                         f"{r['bluff_success']:.3f} | {r['call_rate']:.3f} | "
                         f"{r['call_accuracy']:.3f} | {r['brier']:.3f} |")
    if not rows:
        return ""
    pd.concat(rows, ignore_index=True).to_csv(p.out / "behaviour.csv", index=False)
    return (f"\n## How it bluffs and calls\n\nThe first {BEHAVIOUR_SAMPLE} games of every table "
            "replayed "
            "(`behaviour.csv`, `plots/calibration_<game>.png`; definitions in docs/behaviour.md): "
            "bluff rate (claims false when made), bluff success (false claims not caught), call "
            "rate and accuracy, and the Brier score of its doubt-or-not choices against the "
            "truth (calibration.csv and the plot set them against the exact odds of the claim "
            "given what it could know).\n\n"
            "| game | games | bluff rate | bluff success | call rate | call accuracy | Brier |\n"
            "|---|---:|---:|---:|---:|---:|---:|\n") + \
        "\n".join(lines).replace("nan", "–") + "\n"


def _plots(p: Plan, card: pd.DataFrame, ratings: pd.DataFrame) -> None:
    from bluffsim.analysis import plots

    (p.out / "plots").mkdir(exist_ok=True)
    title = f"{p.subject.text} ({p.budget})"
    for name, fig in (("ratings", plots.rating_intervals(ratings.set_index("game"), title)),
                      ("win_rates", plots.table_win_rates(card[card["table"] != "overall"],
                                                          title))):
        fig.savefig(p.out / "plots" / f"{name}.png", dpi=110)
        import matplotlib.pyplot as plt

        plt.close(fig)


def print_leaderboard(path: Path) -> str:
    """The leaderboard's markdown (``bluffsim leaderboard``)."""
    if path.is_dir():
        raise EvaluateError(f"--path {str(path)!r} is a directory; give the leaderboard CSV, e.g. "
                            "results/leaderboard.csv")
    if not path.is_file():
        raise EvaluateError(f"no leaderboard at {str(path)!r}; `bluffsim evaluate AGENT` writes "
                            "one (or give --path)")
    return leaderboard_markdown(read_leaderboard(path))


__all__ = ["BUDGETS", "Budget", "EvaluateError", "Plan", "Subject", "Table", "battery",
           "leaderboard_markdown", "parse_subject", "plan", "print_leaderboard",
           "reference_ratings", "run", "scorecard", "update_leaderboard"]
