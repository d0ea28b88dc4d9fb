"""Refit the veru ``counting`` agent's two logistic models on a mixture of tables.

Plays veru at 3, 4, 5 and 6 players; every seat of every game gets an agent
drawn at random from ``POOL`` (random, the default heuristic, both extremes of
each heuristic parameter, counting), so lineups, player counts and seatings all
vary.  At every answer to a claim (whoever answers) it logs

- the claim model's inputs from the answering seat's observation (``model_rows``:
  the compiled policy's own inputs and reckless terms) and whether the claim was true (read
  from the state, which no agent sees); the logistic part is fitted with each row
  weighted by 1 - P(reckless claimant), since the mixture gives reckless claimants
  their own term;
- the *claimant's* observation at that moment (the state is observed as the
  claimant), whether the answering player held a fitting card (for the
  ``fitting_probability`` correction, fitted first) and whether the answer was
  ``disbelieve`` (for the doubt model, fitted on top);

then fits both by ridge-regularised Newton steps and writes
``agents/veru/counting_weights.json`` (the agent reads it at import).  Prints the
log-loss of each model against a constant.

    python experiments/fit_veru_counting.py [--games 400] [--seed 1234] [--dry-run]

The counting seats play with the weights already in the file, so a refit after
changing the agent moves them a little; the committed file is this command's output
(defaults) after the last model change, not iterated to a fixed point.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import agents  # noqa: E402
import bluffsim  # noqa: E402
from agents.veru.counting import (  # noqa: E402
    DOUBT_FEATURES,
    FITTING_FEATURES,
    HONESTY_FEATURES,
    WEIGHTS_FILE,
    model_rows,
)
from bluffsim.games.veru import rules as R  # noqa: E402
from bluffsim.rng import AgentRNG  # noqa: E402

POOL = [("random", {}), ("heuristic", {}), ("heuristic", {"bluff": 0.0}), ("heuristic", {"bluff": 1.0}),
        ("heuristic", {"trust": 0.0}), ("heuristic", {"trust": 1.0}),
        ("heuristic", {"joker_slack": 0}), ("heuristic", {"joker_slack": 2}), ("counting", {})]
# counting and random are drawn more often than each single heuristic variant
POOL_WEIGHTS = np.array([3, 2, 1, 1, 1, 1, 1, 1, 3], np.float64)


def logged(players: int, games: int, seed: int) -> tuple[np.ndarray, ...]:
    """(honesty x, truth, the claimants' observations, disbelieved, claimant's agent index,
    (reckless posterior, reckless truth), answerer holds a fitting card, rules) over ``games``
    games."""
    game = bluffsim.make("veru", num_players=players)
    pool = [agents.make(name, game, **params) for name, params in POOL]
    draw = np.random.default_rng(seed + players)
    seat_agent = draw.choice(len(POOL), size=(games, players), p=POOL_WEIGHTS / POOL_WEIGHTS.sum())
    st = game.init(np.arange(games, dtype=np.uint64) + seed * 1000 + players)
    hx, truth, dx, doubted, who_log, rk, fits = [], [], [], [], [], [], []
    rows_all = np.arange(games)
    while not st.done.all():
        live = ~st.done
        cp = np.maximum(st.current_player.astype(np.int64), 0)
        who = seat_agent[rows_all, cp]
        obs = game.observe(st)
        actions = st.legal_action_mask.argmax(axis=1)
        for j, agent in enumerate(pool):
            idx = np.flatnonzero(live & (who == j))
            if idx.size == 0:
                continue
            sub = {k: v[idx] for k, v in obs.items()}
            rng = AgentRNG(st.seed[idx], st.current_player[idx], st.num_decisions[idx])
            actions[idx] = agent.act(sub, st.legal_action_mask[idx], rng)
        answer = np.flatnonzero(live & (obs["phase"] == R.PHASE_RESPOND))
        if answer.size:
            sub = {k: v[answer] for k, v in obs.items()}
            table = st.table[answer].astype(np.int64)
            rank = st.claim_rank[answer].astype(np.int64)[:, None]
            truth.append(((table < 0) | (table == rank) | (table == R.JOKER)).all(axis=1))
            models, x, _, _ = model_rows(sub, game.rules)
            hx.append(x)
            rk.append(models[:, 5:7])   # the claimant's reckless posterior, a reckless truth
            who_log.append(seat_agent[answer, np.maximum(st.claimant[answer].astype(np.int64), 0)])
            # the claimant's view of the same moment: observe the state as the claimant
            saved = st.current_player.copy()
            st.current_player[answer] = st.claimant[answer]
            cobs = game.observe(st)
            st.current_player[:] = saved
            csub = {k: v[answer] for k, v in cobs.items()}
            dx.append(csub)
            nxt = st.current_player[answer].astype(np.int64)
            held = st.hands[answer, nxt]
            fits.append(held[np.arange(answer.size), rank[:, 0]] + held[:, R.JOKER] > 0)
            doubted.append(actions[answer] == R.DISBELIEVE)
        game.step(st, np.where(live, actions, -1))
    claimant_obs = {k: np.concatenate([d[k] for d in dx]) for k in dx[0]}
    return (np.concatenate(hx), np.concatenate(truth), claimant_obs, np.concatenate(doubted),
            np.concatenate(who_log), np.concatenate(rk), np.concatenate(fits), game.rules)


def fit_logistic(x: np.ndarray, y: np.ndarray, ridge: float = 1e-4, iters: int = 30,
                 weight: np.ndarray | None = None) -> np.ndarray:
    """Ridge-regularised (row-weighted) logistic regression weights by Newton's method."""
    w = np.zeros(x.shape[1])
    v = np.ones(len(y)) if weight is None else weight
    n = v.sum()
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        grad = x.T @ (v * (p - y)) / n + ridge * w
        hess = (x * (v * p * (1 - p))[:, None]).T @ x / n + ridge * np.eye(len(w))
        w -= np.linalg.solve(hess, grad)
    return w


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    """Mean negative log-likelihood of ``y`` under probabilities ``p``."""
    p = np.clip(p, 1e-9, 1 - 1e-9)
    return float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean())


def report(name: str, names: tuple[str, ...], x: np.ndarray, y: np.ndarray, w: np.ndarray) -> None:
    """Print a fitted model's log-loss and weights."""
    p = 1 / (1 + np.exp(-(x @ w)))
    print(f"{name}: {len(y)} rows, {y.mean():.3f} positive; log-loss fitted {log_loss(p, y):.4f}, "
          f"constant {log_loss(np.full_like(y, y.mean()), y):.4f}")
    for n, v in zip(names, w, strict=True):
        print(f"  {n:32s} {v:+.3f}")


def main() -> None:
    """Play, fit, write the weights file."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=400, help="games per player count")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--dry-run", action="store_true", help="print, do not write the weights file")
    args = ap.parse_args()
    parts = [logged(p, args.games, args.seed) for p in (3, 4, 5, 6)]
    hx, truth, doubted, who, rk = (np.concatenate([p[i] for p in parts]) for i in (0, 1, 3, 4, 5))
    # 1. the fitting correction, 2. the doubt model on top of it (same claimants' observations)
    fx = np.concatenate([model_rows(p[2], p[7])[2] for p in parts])
    fits = np.concatenate([p[6] for p in parts]).astype(np.float64)
    wf = fit_logistic(fx, fits)
    report("fitting correction", FITTING_FEATURES, fx, fits, wf)
    dx = np.concatenate([model_rows(p[2], p[7], fitting_weights=wf)[3] for p in parts])
    # the logistic part is the rule-following claimant's: rows weighted by 1 - P(reckless)
    wh = fit_logistic(hx, truth.astype(np.float64), weight=1.0 - rk[:, 0])
    wd = fit_logistic(dx, doubted.astype(np.float64))
    report("claim model (logistic part)", HONESTY_FEATURES, hx, truth.astype(np.float64), wh)
    report("doubt model", DOUBT_FEATURES, dx, doubted.astype(np.float64), wd)
    ph = rk[:, 0] * rk[:, 1] + (1 - rk[:, 0]) / (1 + np.exp(-(hx @ wh)))
    print(f"claim model (mixture): log-loss {log_loss(ph, truth.astype(np.float64)):.4f}")
    for j, (name, params) in enumerate(POOL):
        m = who == j
        if m.any():
            print(f"  claimant {name} {params}: belief {ph[m].mean():.3f}, truth {truth[m].mean():.3f}")
            bins = np.minimum((ph[m] * 5).astype(int), 4)
            print("    bins: " + ", ".join(f"{(bins == i).sum()}: {ph[m][bins == i].mean():.2f}/"
                                           f"{truth[m][bins == i].mean():.2f}"
                                           for i in range(5) if (bins == i).any()))
    if not args.dry_run:
        WEIGHTS_FILE.write_text(json.dumps({
            "honesty": [round(float(v), 4) for v in wh], "doubt": [round(float(v), 4) for v in wd],
            "fitting": [round(float(v), 4) for v in wf],
            "fitted_by": "experiments/fit_veru_counting.py",
            "games_per_player_count": args.games, "seed": args.seed}, indent=1) + "\n",
            encoding="utf-8")
        print(f"written {WEIGHTS_FILE}")


if __name__ == "__main__":
    main()
