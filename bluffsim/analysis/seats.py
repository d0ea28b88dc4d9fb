"""Seat effects and game shape: outright vs shared wins, per-seat win rates, game lengths,
head-to-head with CIs and bluff metrics for every game.

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
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bluffsim.analysis.stats import wilson_interval

QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9, 0.99)


def _clip(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.clip(lo, 0.0, 1.0), np.clip(hi, 0.0, 1.0)


def win_kinds(games: pd.DataFrame) -> pd.DataFrame:
    """``games`` with ``outright`` (sole first place), ``shared`` (first place shared) and
    ``win_share`` (1/k for k first places) columns added."""
    first = games["placement"].to_numpy() == 1
    n_first = pd.Series(first, index=games.index).groupby(games["game"]).transform("sum").to_numpy()
    return games.assign(outright=first & (n_first == 1), shared=first & (n_first > 1),
                        win_share=np.where(first, 1.0 / np.maximum(n_first, 1), 0.0))


def win_counts(games: pd.DataFrame, by: str) -> pd.DataFrame:
    """Per value of ``by``: games, wins (outright), outright_wins, shared_wins, win_rate with
    its 95% Wilson interval (ci_low, ci_high), win_share."""
    g = win_kinds(games).groupby(by, sort=True)
    out = pd.DataFrame({"games": g.size(), "wins": g["outright"].sum(),
                        "shared_wins": g["shared"].sum(), "win_share": g["win_share"].mean()})
    out["outright_wins"] = out["wins"]
    out["win_rate"] = out["wins"] / out["games"]
    out["ci_low"], out["ci_high"] = _clip(*wilson_interval(out["wins"].to_numpy(),
                                                          out["games"].to_numpy()))
    return out[["games", "wins", "outright_wins", "shared_wins", "win_rate", "ci_low", "ci_high",
                "win_share"]]


def seat_table(games: pd.DataFrame) -> pd.DataFrame:
    """Per seat index: games, wins, outright/shared wins, win rate with CI, win share,
    mean placement and the chance rate 1/P (``seats.csv``)."""
    out = win_counts(games, "seat")
    out["mean_placement"] = games.groupby("seat")["placement"].mean()
    out["chance"] = 1.0 / games.groupby("game")["seat"].size().max()
    out.index.name = "seat"
    return out


def length_table(games: pd.DataFrame) -> pd.DataFrame:
    """Decisions and rounds per game: games, mean, std, quantiles, min, max, truncated
    (count and share) (``lengths.csv``)."""
    per_game = games.drop_duplicates("game")
    rows = {}
    for col in ("decisions", "rounds"):
        v = per_game[col].to_numpy(dtype=float)
        row = {"games": v.size, "mean": v.mean() if v.size else np.nan,
               "std": v.std(ddof=1) if v.size > 1 else np.nan,
               "min": v.min() if v.size else np.nan}
        for q in QUANTILES:
            row[f"q{round(q * 100):02d}"] = np.quantile(v, q) if v.size else np.nan
        row["max"] = v.max() if v.size else np.nan
        row["truncated"] = int(per_game["truncated"].sum())
        row["truncated_share"] = float(per_game["truncated"].mean()) if v.size else np.nan
        rows[col] = row
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "per_game"
    return out


def head_to_head_long(games: pd.DataFrame) -> pd.DataFrame:
    """One row per ordered agent pair: meetings (seat pairs in shared games), share of them
    the agent placed better (ties count one half) with a 95% Wilson interval
    (``head_to_head_ci.csv``)."""
    from bluffsim.analysis.stats import pair_totals

    agents, w, n = pair_totals(games)
    a, b = np.meshgrid(np.arange(len(agents)), np.arange(len(agents)), indexing="ij")
    keep = (a != b).ravel() & (n.ravel() > 0)
    wins, meet = w.ravel()[keep], n.ravel()[keep]
    lo, hi = _clip(*wilson_interval(wins, meet))
    names = np.asarray(agents, dtype=object)
    return pd.DataFrame({"agent": names[a.ravel()[keep]], "opponent": names[b.ravel()[keep]],
                         "meetings": meet.astype(np.int64), "share": wins / meet,
                         "ci_low": lo, "ci_high": hi})


def _agent_of_seat(rounds: pd.DataFrame, games: pd.DataFrame, col: str) -> pd.Series:
    """Agent label of seat column ``col`` of each round (via the game's seating)."""
    key = games[["game", "seat", "agent"]].rename(columns={"seat": col, "agent": "_agent"})
    merged = rounds[["game", col]].astype({col: "int64"}).merge(
        key.astype({col: "int64"}), on=["game", col], how="left")
    return pd.Series(merged["_agent"].to_numpy(), index=rounds.index)


def bluff_table(rounds: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
    """Per agent, for every game that records checks (``bluff.csv``):

    - ``calls``, ``calls_right`` (+ 95% CI): checks made (qdv ``vrai``/``menteur``,
      veru ``believe``/``disbelieve``, legumes accusations) and the share that
      were right;
    - ``claims_checked``, ``claims_false`` (+ CI): the agent's own claims that an
      opponent checked, and the share found false (veru: the claimant of the
      checked card; legumes: the accused; qdv: the final bidder of a called round);
    - qdv also ``final_bids`` and ``bid_above_own_evidence``.
    """
    if rounds is None or rounds.empty or "call_right" not in rounds or "caller" not in rounds:
        return pd.DataFrame()
    r = rounds
    if "call" in r:  # veru timeouts are not checks
        r = r[r["call"].astype(str) != "timeout"]
    r = r[r["caller"].astype(np.int64) >= 0]
    caller = _agent_of_seat(r, games, "caller")
    right = r["call_right"].astype(bool)
    claimant_col = next((c for c in ("claimant", "accused", "bidder") if c in r), None)
    out = pd.DataFrame({"calls": right.groupby(caller).size(),
                        "calls_right": right.groupby(caller).mean()})
    if claimant_col is not None:
        rc = r[r[claimant_col].astype(np.int64) >= 0]
        claimant = _agent_of_seat(rc, games, claimant_col)
        if claimant_col == "claimant":          # veru: believe is right iff the claim was true
            false = ~((rc["call"].astype(str) == "believe") == rc["call_right"].astype(bool))
        elif claimant_col == "accused":         # legumes: the accusation is right iff a lie
            false = rc["call_right"].astype(bool)
        else:                                   # qdv: menteur right, or vrai wrong, = bid too high
            false = rc["true_count"] < rc["bid_count"]
        out = out.join(pd.DataFrame({"claims_checked": false.groupby(claimant).size(),
                                     "claims_false": false.groupby(claimant).mean()}), how="outer")
    if "bidder_own" in r:
        bids = rounds[rounds["bidder"].astype(np.int64) >= 0]
        bidder = _agent_of_seat(bids, games, "bidder")
        over = bids["bid_count"] > bids["bidder_own"]
        out = out.join(pd.DataFrame({"final_bids": over.groupby(bidder).size(),
                                     "bid_above_own_evidence": over.groupby(bidder).mean()}),
                       how="outer")
    for col, n in (("calls_right", "calls"), ("claims_false", "claims_checked")):
        if col in out:
            cnt = out[n].fillna(0).to_numpy(dtype=float)
            k = (out[col].fillna(0) * cnt).round().to_numpy()
            out[f"{col}_ci_low"], out[f"{col}_ci_high"] = _clip(*wilson_interval(k, cnt))
    for n in ("calls", "claims_checked", "final_bids"):
        if n in out:
            out[n] = out[n].fillna(0).astype(np.int64)
    out.index.name = "agent"
    return out


def lineup_table(games: pd.DataFrame) -> pd.DataFrame:
    """Pools: per lineup (its agents, sorted, joined by " | ") and agent: games, outright
    wins, win rate with 95% CI (``lineups.csv``); empty when every game had the same lineup."""
    g = games.sort_values(["game", "seat"], kind="stable")
    sizes = g.groupby("game", sort=False).size()
    if sizes.nunique() != 1:
        return pd.DataFrame()
    names = sorted(g["agent"].astype(str).unique())
    codes = pd.Categorical(g["agent"].astype(str), categories=names).codes.reshape(-1, sizes.iloc[0])
    rows, inverse = np.unique(np.sort(codes, axis=1), axis=0, return_inverse=True)
    if len(rows) <= 1:
        return pd.DataFrame()
    labels = np.asarray([" | ".join(names[c] for c in row) for row in rows], dtype=object)
    g = g.assign(lineup=np.repeat(labels[inverse.ravel()], sizes.iloc[0]))
    out = win_counts(g.assign(pair=g["lineup"] + "\x00" + g["agent"].astype(str)), "pair")
    out.index = pd.MultiIndex.from_tuples([tuple(k.split("\x00")) for k in out.index],
                                          names=["lineup", "agent"])
    return out[["games", "wins", "shared_wins", "win_rate", "ci_low", "ci_high"]]


def agent_order(summary: pd.DataFrame) -> list[str]:
    """The one agent order of every plot and table: by win rate, best first (ties by name)."""
    s = summary.reset_index()
    name = s.columns[0]
    return s.sort_values(["win_rate", name], ascending=[False, True])[name].astype(str).tolist()
