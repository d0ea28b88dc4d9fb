"""Why veru's honest heuristic (``bluff=0``) cannot beat random players: an upper bound.

The robustness ladder's ``h/bluff=0.0`` veru tables (the never-lying heuristic
against P−1 random players) fail at 3–6 players.  This script asks whether *any*
honest policy could pass them: the honest heuristic is given the truth of every
claim on the table (it reads the engine's state, which no real player can) and
plays three ways against P−1 random players, rotated seatings:

| policy          | putting                 | responding                                         |
|-----------------|-------------------------|----------------------------------------------------|
| `shipped`       | heuristic ``bluff=0``   | heuristic ``bluff=0`` (adds true cards, else checks) |
| `perfect-check` | heuristic ``bluff=0``   | adds its true cards as the heuristic does, else checks *right* |
| `perfect-only`  | heuristic ``bluff=0``   | always checks right, never adds                    |

If a perfect checker that never lies still wins less often than a random seat,
no honest policy's *checking* can fix the table: the honest player loses on
*shedding*.  In veru the first player out wins and players who go out at the
same moment share the place; random players put face down whatever they hold,
so their hands empty within a few turns, and then *any* end of the round that
does not hand them the pile — the Bank going out on a right believe, the
claimant or the checker taking it — takes their cards out of the round and
several of them go out together.  An honest player only ever sheds cards of the
running rank (about 1.4 a claim) and its aces only when its hand is aces alone.

    python experiments/ladders/honest_bound.py [--games 2400] [--players 3 4 5 6]
        [--out results/ladders]

writes ``honest_bound.csv`` and ``honest_bound.md`` in ``--out`` (docs/strength.md quotes
the table).  Seeds are fixed (game ``i`` has seed ``i``, the honest seat ``i % P``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import agents  # noqa: E402
import bluffsim  # noqa: E402
from bluffsim.analysis.stats import wilson_interval  # noqa: E402
from bluffsim.games.veru import rules as R  # noqa: E402
from bluffsim.rng import AgentRNG  # noqa: E402

POLICIES = ("shipped", "perfect-check", "perfect-only")


def claim_is_true(st: object) -> np.ndarray:
    """bool[B]: every card of the claim on the table is the announced rank or a Joker
    (read from the engine's state: information no player has)."""
    table = st.table.astype(np.int64)
    rank = st.claim_rank.astype(np.int64)[:, None]
    return ((table < 0) | (table == rank) | (table == R.JOKER)).all(axis=1)


def honest_actions(policy: str, heuristic: object, obs: dict[str, np.ndarray], mask: np.ndarray,
                   rng: AgentRNG, truth: np.ndarray) -> np.ndarray:
    """The honest seat's actions: the ``bluff=0`` heuristic's, with the responses the
    policy replaces by the right check (module docstring)."""
    out = heuristic.act(obs, mask, rng)
    if policy == "shipped":
        return out
    respond = obs["phase"] == R.PHASE_RESPOND
    right = np.where(truth, R.BELIEVE, R.DISBELIEVE)
    adds = (out >= R.PUT0) & (out < R.DONE)
    replace = respond if policy == "perfect-only" else respond & ~adds
    return np.where(replace, right, out)


def play(policy: str, players: int, games: int, batch: int = 1024) -> pd.DataFrame:
    """One row per (game, seat): ``honest`` (the seat under test), ``offset`` (seats after the
    honest one in turn order), ``placement``, ``won``, ``shared`` (a first place shared)."""
    game = bluffsim.make("veru", num_players=players)
    heuristic = agents.make("heuristic", game, bluff=0.0)
    rand = agents.make("random", game)
    rows = []
    for start in range(0, games, batch):
        seeds = np.arange(start, min(games, start + batch), dtype=np.uint64)
        honest_seat = (seeds % players).astype(np.int64)
        st = game.init(seeds)
        while not st.done.all():
            obs = game.observe(st)
            cur = st.current_player.astype(np.int64)
            live = ~st.done
            actions = np.full(seeds.size, -1, np.int64)
            for is_honest in (True, False):
                idx = np.flatnonzero(live & ((cur == honest_seat) == is_honest))
                if not idx.size:
                    continue
                sub = {k: v[idx] for k, v in obs.items()}
                mask = st.legal_action_mask[idx]
                rng = AgentRNG(st.seed[idx], st.current_player[idx], st.num_decisions[idx])
                actions[idx] = (honest_actions(policy, heuristic, sub, mask, rng,
                                               claim_is_true(st)[idx])
                                if is_honest else rand.act(sub, mask, rng))
            game.step(st, actions)
        place = st.placements.astype(np.int64)
        seat = np.arange(players)
        rows.append(pd.DataFrame({
            "game": np.repeat(seeds.astype(np.int64), players),
            "honest": (seat[None, :] == honest_seat[:, None]).ravel(),
            "offset": ((seat[None, :] - honest_seat[:, None]) % players).ravel(),
            "placement": place.ravel(), "won": (place == 1).ravel(),
            "shared": ((place == 1) & ((place == 1).sum(axis=1, keepdims=True) > 1)).ravel()}))
    return pd.concat(rows, ignore_index=True)


def summary(policy: str, players: int, df: pd.DataFrame) -> dict[str, object]:
    """The table row of one policy at one player count."""
    me, rnd = df[df["honest"]], df[~df["honest"]]
    wins = int(me["won"].sum())
    lo, hi = wilson_interval(np.array([wins]), np.array([len(me)]))
    by_offset = rnd.groupby("offset")["won"].mean()
    return {"players": players, "policy": policy, "games": len(me),
            "honest_win_rate": wins / len(me), "ci_low": float(lo[0]), "ci_high": float(hi[0]),
            "random_seat_win_rate": float(rnd["won"].mean()),
            "best_random_seat": int(by_offset.idxmax()),
            "best_random_seat_win_rate": float(by_offset.max()),
            "random_seat_before_win_rate": float(by_offset.loc[players - 1]),
            "random_wins_shared": float(rnd.loc[rnd["won"], "shared"].mean()),
            "honest_placement": float(me["placement"].mean()),
            "random_placement": float(rnd["placement"].mean()), "fair_share": 1.0 / players,
            "win_rate_by_offset": "; ".join(f"+{k} {v:.3f}" for k, v in by_offset.items())}


def markdown(df: pd.DataFrame) -> str:
    """The bound as a markdown table."""
    lines = ["| P | honest policy | win rate | 95% CI | 1/P | random seats' win rates, by seats "
             "after the honest one | random wins shared | mean placement (honest / random) |",
             "|---:|---|---:|---:|---:|---|---:|---:|"]
    for r in df.itertuples():
        lines.append(f"| {r.players} | {r.policy} | {r.honest_win_rate:.3f} | {r.ci_low:.3f} – "
                     f"{r.ci_high:.3f} | {r.fair_share:.3f} | {r.win_rate_by_offset} | "
                     f"{r.random_wins_shared:.0%} | {r.honest_placement:.2f} / "
                     f"{r.random_placement:.2f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    """Command line (module docstring)."""
    low, high, _ = bluffsim.spec("veru").players
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2400, help="games per row (at least 1)")
    ap.add_argument("--players", type=int, nargs="+", default=list(range(low, high + 1)),
                    help=f"player counts ({low}-{high})")
    ap.add_argument("--out", default="results/ladders")
    a = ap.parse_args(argv)
    if a.games < 1:
        ap.error(f"--games must be at least 1, got {a.games}")
    bad = [p for p in a.players if not low <= p <= high]
    if bad:
        ap.error(f"--players {bad[0]} is not a veru player count; allowed: {low}-{high}")
    rows = []
    for p in a.players:
        for policy in POLICIES:
            rows.append(summary(policy, p, play(policy, p, a.games)))
            r = rows[-1]
            print(f"{p}p {policy:14} {r['honest_win_rate']:.3f} [{r['ci_low']:.3f}, "
                  f"{r['ci_high']:.3f}]  random seats {r['win_rate_by_offset']}", flush=True)
    df = pd.DataFrame(rows)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    df.to_csv(out / "honest_bound.csv", index=False)
    head = (f"veru honest-player bound (issue 15), {a.games:,} games per row, rotated seatings: "
            f"`python experiments/ladders/honest_bound.py --games {a.games} --players "
            f"{' '.join(map(str, a.players))}` (module docstring).\n\n")
    (out / "honest_bound.md").write_text(head + markdown(df), encoding="utf-8")


if __name__ == "__main__":
    main()
