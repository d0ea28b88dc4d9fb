"""Seat effects and game shape: outright vs shared wins, per-seat win rates, game lengths,
pool lineups, head-to-head with CIs and bluff metrics for every game.

Definitions (also in the README):

- an **outright win** is a game in which the seat placed first alone; a
  **shared win** is a first place shared with another seat (veru: players who
  leave on the same turn; legumes: equal best scores).  ``win_rate`` counts
  outright wins only, so win rates of one game's seats sum to at most 1;
  ``win_share`` splits a shared first place (1/k each for k winners), so it sums
  to exactly 1 over the seats of every game.
- ``seats``: per seat index (0 = the first seat of the game, whichever agent
  sits there) games, outright and shared wins and the win rate with a 95%
  Wilson interval, across all agents: a first-player advantage at a glance.
- ``lengths``: decisions and rounds per game (one value per game): mean, std,
  quantiles, max, and how many games were truncated (hit the game's limit).

Like ``stats.GameTotals``, ``ShapeTotals`` (games) and ``BluffTotals`` (rounds)
accumulate sums chunk by chunk (game lengths as exact integer histograms), so a
results dir of any size is summarised in bounded memory; the functions taking a
DataFrame are the one-chunk case.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from bluffsim.analysis.stats import GameTotals, wilson_interval, win_kinds

QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9, 0.99)
WIN_COLUMNS = ["games", "wins", "outright_wins", "shared_wins", "win_rate", "ci_low", "ci_high",
               "win_share"]


def _sums(kinds: pd.DataFrame, by: str | list[str]) -> pd.DataFrame:
    g = kinds.groupby(by, sort=True)
    return pd.DataFrame({"games": g.size(), "wins": g["outright"].sum(),
                         "shared_wins": g["shared"].sum(), "share_sum": g["win_share"].sum(),
                         "placement_sum": g["placement"].sum()}).astype(float)


def _win_table(t: pd.DataFrame) -> pd.DataFrame:
    """Win columns (``WIN_COLUMNS``) + mean_placement from summed counts."""
    out = pd.DataFrame({"games": t["games"].astype(np.int64), "wins": t["wins"].astype(np.int64),
                        "shared_wins": t["shared_wins"].astype(np.int64)}, index=t.index)
    out["outright_wins"] = out["wins"]
    out["win_rate"] = out["wins"] / out["games"]
    out["ci_low"], out["ci_high"] = wilson_interval(out["wins"].to_numpy(), out["games"].to_numpy())
    out["win_share"] = t["share_sum"] / t["games"]
    out["mean_placement"] = t["placement_sum"] / t["games"]
    return out[[*WIN_COLUMNS, "mean_placement"]]


def _add(acc: pd.DataFrame, part: pd.DataFrame) -> pd.DataFrame:
    return part if acc.empty else acc.add(part, fill_value=0)


class ShapeTotals:
    """Per-seat wins, game-length histograms and pool-lineup wins over chunks of whole games.

    Columns used: game, seat, agent, placement, decisions, rounds, truncated.
    """

    def __init__(self) -> None:
        self.seats = pd.DataFrame(dtype=float)
        self.lineups = pd.DataFrame(dtype=float)
        self.hist: dict[str, np.ndarray] = {"decisions": np.zeros(0, np.int64),
                                            "rounds": np.zeros(0, np.int64)}
        self.truncated = 0
        self.games = 0
        self.players = 0

    def add(self, games: pd.DataFrame) -> ShapeTotals:
        """Add a chunk of whole games; returns self."""
        if games.empty:
            return self
        kinds = win_kinds(games)
        self.seats = _add(self.seats, _sums(kinds, "seat"))
        game = games["game"].to_numpy()
        starts = np.flatnonzero(np.r_[True, game[1:] != game[:-1]])   # rows are in game order
        sizes = np.diff(np.r_[starts, game.size])
        self.players = max(self.players, int(sizes.max()))
        per_game = games.iloc[starts]
        self.games += len(per_game)
        for col in self.hist:
            if col in per_game:
                counts = np.bincount(per_game[col].to_numpy(dtype=np.int64))
                h = self.hist[col]
                if counts.size > h.size:
                    h = np.concatenate([h, np.zeros(counts.size - h.size, np.int64)])
                h[: counts.size] += counts
                self.hist[col] = h
        if "truncated" in per_game:
            self.truncated += int(per_game["truncated"].sum())
        if (sizes == sizes[0]).all():
            self.lineups = _add(self.lineups, _lineup_sums(kinds, int(sizes[0])))
        return self

    @classmethod
    def of(cls, games: pd.DataFrame | Iterable[pd.DataFrame]) -> ShapeTotals:
        """Totals of one DataFrame or of an iterable of chunks of whole games."""
        tot = cls()
        for chunk in ([games] if isinstance(games, pd.DataFrame) else games):
            tot.add(chunk)
        return tot

    def seat_table(self) -> pd.DataFrame:
        """Per seat index: games, wins, outright/shared wins, win rate with CI, win share,
        mean placement and the chance rate 1/P (``seats.csv``)."""
        if self.seats.empty:
            return pd.DataFrame(columns=[*WIN_COLUMNS, "mean_placement", "chance"])
        out = _win_table(self.seats)
        out.index = out.index.astype(np.int64)
        out.index.name = "seat"
        out["chance"] = 1.0 / self.players
        return out

    def length_table(self) -> pd.DataFrame:
        """Decisions and rounds per game: games, mean, std, min, quantiles, max, truncated
        games (count and share) (``lengths.csv``); exact, from integer histograms."""
        rows = {}
        for col, h in self.hist.items():
            n = int(h.sum())
            if n == 0:
                continue
            v = np.arange(h.size, dtype=float)
            mean = float((h * v).sum() / n)
            var = float((h * (v - mean) ** 2).sum() / (n - 1)) if n > 1 else np.nan
            cum = np.cumsum(h)
            row = {"games": n, "mean": mean, "std": np.sqrt(var), "min": int(np.flatnonzero(h)[0])}
            for q in QUANTILES:   # numpy's default (linear) quantile over the sorted values
                pos = q * (n - 1)
                lo, hi = int(np.floor(pos)), int(np.ceil(pos))
                a, b = np.searchsorted(cum, lo, side="right"), np.searchsorted(cum, hi, side="right")
                row[f"q{round(q * 100):02d}"] = a + (b - a) * (pos - lo)
            row["max"] = int(np.flatnonzero(h)[-1])
            row["truncated"] = self.truncated
            row["truncated_share"] = self.truncated / n
            rows[col] = row
        out = pd.DataFrame.from_dict(rows, orient="index")
        out.index.name = "per_game"
        return out

    def lineup_table(self) -> pd.DataFrame:
        """Pools: per lineup (its agents, sorted, joined by " | ") and agent: games, outright
        and shared wins, win rate with 95% CI (``lineups.csv``); empty without a pool."""
        if self.lineups.empty or self.lineups.index.get_level_values(0).nunique() <= 1:
            return pd.DataFrame()
        out = _win_table(self.lineups)
        out.index.names = ["lineup", "agent"]
        return out[["games", "wins", "shared_wins", "win_rate", "ci_low", "ci_high"]]


def _lineup_sums(kinds: pd.DataFrame, players: int) -> pd.DataFrame:
    """Win sums per (lineup, agent) of a chunk of whole games with ``players`` seats each."""
    names = sorted(kinds["agent"].astype(str).unique())
    if len(names) == players:   # one lineup in the whole chunk (no pool): no per-game work
        part = _sums(kinds, "agent")
        part.index = pd.MultiIndex.from_product([[" | ".join(names)], part.index.astype(str)],
                                                names=["lineup", "agent"])
        return part
    g = kinds.sort_values(["game", "seat"], kind="stable")
    codes = pd.Categorical(g["agent"].astype(str), categories=names).codes.reshape(-1, players)
    rows, inverse = np.unique(np.sort(codes, axis=1), axis=0, return_inverse=True)
    labels = np.asarray([" | ".join(names[c] for c in row) for row in rows], dtype=object)
    g = g.assign(lineup=np.repeat(labels[inverse.ravel()], players))
    return _sums(g, ["lineup", "agent"])


def seat_table(games: pd.DataFrame | Iterable[pd.DataFrame]) -> pd.DataFrame:
    """Per seat index: wins, win rate with CI, chance 1/P (see ``ShapeTotals.seat_table``)."""
    return ShapeTotals.of(games).seat_table()


def length_table(games: pd.DataFrame | Iterable[pd.DataFrame]) -> pd.DataFrame:
    """Decisions and rounds per game (see ``ShapeTotals.length_table``)."""
    return ShapeTotals.of(games).length_table()


def lineup_table(games: pd.DataFrame | Iterable[pd.DataFrame]) -> pd.DataFrame:
    """Per pool lineup and agent (see ``ShapeTotals.lineup_table``)."""
    return ShapeTotals.of(games).lineup_table()


def win_counts(games: pd.DataFrame, by: str) -> pd.DataFrame:
    """Per value of ``by`` (one chunk of whole games): games, wins (outright), outright_wins,
    shared_wins, win_rate with its 95% Wilson interval, win_share, mean_placement."""
    return _win_table(_sums(win_kinds(games), by))


def head_to_head_ci(agents: list[str], w: np.ndarray, n: np.ndarray) -> pd.DataFrame:
    """One row per ordered agent pair that met: meetings (seat pairs in shared games), share of
    them the agent placed better (ties count one half) with a 95% Wilson interval, from
    ``stats.pair_totals`` / ``GameTotals.pair_arrays`` (``head_to_head_ci.csv``)."""
    k = len(agents)
    a, b = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
    keep = (a != b).ravel() & (n.ravel() > 0)
    wins, meet = w.ravel()[keep], n.ravel()[keep]
    lo, hi = wilson_interval(wins, meet)
    names = np.asarray(agents, dtype=object)
    return pd.DataFrame({"agent": names[a.ravel()[keep]], "opponent": names[b.ravel()[keep]],
                         "meetings": meet.astype(np.int64), "share": wins / meet,
                         "ci_low": lo, "ci_high": hi})


def head_to_head_long(games: pd.DataFrame | Iterable[pd.DataFrame]) -> pd.DataFrame:
    """``head_to_head_ci`` of games (one DataFrame or chunks of whole games)."""
    return head_to_head_ci(*GameTotals.of(games).pair_arrays())


class BluffTotals:
    """Per-agent check and claim counts over chunks of ``rounds.parquet`` (any split).

    - ``calls``, ``calls_right`` (+ 95% CI): checks made (qdv ``vrai``/``menteur``,
      veru ``believe``/``disbelieve``, legumes accusations; veru timeouts are not
      checks) and the share that were right;
    - ``claims_checked``, ``claims_false`` (+ CI): the agent's own claims an
      opponent checked, and the share found false (veru: the claimant of the
      checked card; legumes: the accused; qdv: the final bidder of the round);
    - the game's ``round_metrics`` (its spec), e.g. qdv's ``final_bids`` and
      ``bid_above_own_evidence``.

    Agents come from the rounds' ``<seat>_agent`` columns (``caller_agent``,
    ``claimant_agent``, ``accused_agent``, ``bidder_agent``).  The game is named by its id
    (read from the results, never guessed from the columns).
    """

    @staticmethod
    def columns(game: str) -> list[str]:
        """The rounds.parquet columns these totals read (from the game's spec)."""
        return _round_columns(game)

    def __init__(self, game: str) -> None:
        self.game = game
        self.sums = pd.DataFrame(dtype=float)

    def add(self, rounds: pd.DataFrame) -> BluffTotals:
        """Add a chunk of rounds; returns self."""
        if rounds is None or rounds.empty or "call_right" not in rounds or "caller_agent" not in rounds:
            return self
        r = rounds
        if "call" in r:
            r = r[r["call"].astype(str) != "timeout"]
        r = r[r["caller"].astype(np.int64) >= 0]
        right = r["call_right"].astype(bool)
        parts = [pd.DataFrame({"calls": right.groupby(r["caller_agent"]).size(),
                               "calls_right": right.groupby(r["caller_agent"]).sum()})]
        spec = _spec(self.game)
        if f"{spec.claim_seat}_agent" in r and all(c in r for c in spec.claim_columns):
            who = spec.claim_seat
            rc = r[r[who].astype(np.int64) >= 0]
            false = spec.claim_false(rc)
            parts.append(pd.DataFrame({"claims_checked": false.groupby(rc[f"{who}_agent"]).size(),
                                       "claims_false": false.groupby(rc[f"{who}_agent"]).sum()}))
        for m in spec.round_metrics:
            if not all(c in rounds for c in m.columns):
                continue
            bids = rounds[rounds[m.seat].astype(np.int64) >= 0]
            over = m.flag(bids)
            parts.append(pd.DataFrame({m.count: over.groupby(bids[f"{m.seat}_agent"]).size(),
                                       m.share: over.groupby(bids[f"{m.seat}_agent"]).sum()}))
        part = pd.concat(parts, axis=1).astype(float)
        self.sums = part if self.sums.empty else self.sums.add(part, fill_value=0)
        return self

    @classmethod
    def of(cls, rounds: pd.DataFrame | Iterable[pd.DataFrame], game: str) -> BluffTotals:
        """Totals of one DataFrame or of an iterable of chunks of game ``game``."""
        tot = cls(game)
        for chunk in ([rounds] if isinstance(rounds, pd.DataFrame) else rounds):
            tot.add(chunk)
        return tot

    def table(self) -> pd.DataFrame:
        """The per-agent table (``bluff.csv``); empty when the rounds record no checks."""
        if self.sums.empty:
            return pd.DataFrame()
        t = self.sums.fillna(0)
        out = pd.DataFrame(index=t.index)
        metrics = {m.share for m in _spec(self.game).round_metrics}   # shares without a CI
        for n, k in (("calls", "calls_right"), ("claims_checked", "claims_false"),
                     *((m.count, m.share) for m in _spec(self.game).round_metrics)):
            if n not in t:
                continue
            out[n] = t[n].astype(np.int64)
            with np.errstate(invalid="ignore", divide="ignore"):
                out[k] = np.where(t[n] > 0, t[k] / t[n], np.nan)
            if k not in metrics:
                out[f"{k}_ci_low"], out[f"{k}_ci_high"] = wilson_interval(t[k].to_numpy(),
                                                                          t[n].to_numpy())
        out.index.name = "agent"
        return out


def bluff_table(rounds: pd.DataFrame | Iterable[pd.DataFrame],
                games: pd.DataFrame | None = None, *, game: str) -> pd.DataFrame:
    """Per-agent checks and claims of game ``game`` (see ``BluffTotals``).  Rounds written
    before the runner named every seat column's agent (e.g. legumes' ``accused``) get them
    from ``games``."""
    if isinstance(rounds, pd.DataFrame) and games is not None and not rounds.empty:
        rounds = with_seat_agents(rounds, games, game)
    return BluffTotals.of(rounds, game).table()


def with_seat_agents(rounds: pd.DataFrame, games: pd.DataFrame, game: str) -> pd.DataFrame:
    """``rounds`` with an ``<column>_agent`` column for every seat column of the game's spec
    that lacks one, looked up in ``games`` (one row per game and seat)."""
    for col in _spec(game).seat_columns:
        if col not in rounds or f"{col}_agent" in rounds:
            continue
        key = games[["game", "seat", "agent"]].rename(columns={"seat": col, "agent": f"{col}_agent"})
        seats = rounds[["game", col]].astype({col: "int64"})
        agent = seats.merge(key.astype({col: "int64"}), on=["game", col], how="left")
        rounds = rounds.assign(**{f"{col}_agent": agent[f"{col}_agent"].to_numpy()})
    return rounds


def _spec(game: str) -> Any:
    import bluffsim

    return bluffsim.spec(game)


def _round_columns(game: str) -> list[str]:
    """The rounds.parquet columns ``BluffTotals`` reads (from the game's spec)."""
    s = _spec(game)
    cols = ["call", "call_right"]
    cols += [c for seat in s.seat_columns for c in (seat, f"{seat}_agent")]
    cols += list(s.claim_columns)
    cols += [c for m in s.round_metrics for c in (m.seat, f"{m.seat}_agent", *m.columns)]
    return list(dict.fromkeys(cols))


def agent_order(summary: pd.DataFrame) -> list[str]:
    """The one agent order of every plot and table: by win rate, best first (ties by name)."""
    s = summary.reset_index()
    name = s.columns[0]
    return s.sort_values(["win_rate", name], ascending=[False, True])[name].astype(str).tolist()
