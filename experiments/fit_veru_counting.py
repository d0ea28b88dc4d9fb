"""Refit the veru ``counting`` agent's opponent model (``HONESTY_WEIGHTS``).

Plays the ``ladder_veru`` lineup (random, heuristic, trusting heuristic, counting)
in every seating with the vectorised engine, logs each claim the counting seat
has to answer together with whether it was true (read from the state, which the
agent never sees), and fits a logistic regression of truth on
``honesty_features`` by Newton's method.  Prints the weights to paste into
``agents/veru/counting.py`` and the log-loss against a constant model.

    python experiments/fit_veru_counting.py [--games 4800] [--seed 999]
"""

from __future__ import annotations

import argparse
import itertools

import numpy as np

import agents
import bluffsim
from agents.veru.counting import HONESTY_FEATURES, honesty_features
from bluffsim.games.veru import rules as R
from bluffsim.rng import AgentRNG

LINEUP = [("random", {}), ("heuristic", {}), ("heuristic", {"trust": 0.8}), ("counting", {})]


def logged_claims(games: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(features float64[N, F], truth bool[N]) for every claim the counting seat answered."""
    game = bluffsim.make("veru", num_players=4)
    lineup = [agents.make(name, game, **params) for name, params in LINEUP]
    perms = np.array(list(itertools.permutations(range(4))))
    seat_agent = perms[np.arange(games) % len(perms)]
    st = game.init(np.arange(games, dtype=np.uint64) + seed)
    feats, truth = [], []
    while not st.done.all():
        live = ~st.done
        who = seat_agent[np.arange(games), np.maximum(st.current_player.astype(np.int64), 0)]
        obs = game.observe(st)
        actions = st.legal_action_mask.argmax(axis=1)
        for j, agent in enumerate(lineup):
            idx = np.flatnonzero(live & (who == j))
            if idx.size == 0:
                continue
            sub = {k: v[idx] for k, v in obs.items()}
            rng = AgentRNG(st.seed[idx], st.current_player[idx], st.num_decisions[idx])
            actions[idx] = agent.act(sub, st.legal_action_mask[idx], rng)
            answer = np.flatnonzero(sub["phase"] == R.PHASE_RESPOND)
            if LINEUP[j][0] == "counting" and answer.size:
                rows = idx[answer]
                table = st.table[rows].astype(np.int64)
                rank = st.claim_rank[rows].astype(np.int64)[:, None]
                truth.append(((table < 0) | (table == rank) | (table == R.JOKER)).all(axis=1))
                feats.append(honesty_features({k: v[answer] for k, v in sub.items()}, game.rules))
        game.step(st, actions)
    return np.concatenate(feats), np.concatenate(truth)


def fit_logistic(x: np.ndarray, y: np.ndarray, ridge: float = 1e-4, iters: int = 50) -> np.ndarray:
    """Ridge-regularised logistic regression weights by Newton's method."""
    w = np.zeros(x.shape[1])
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        grad = x.T @ (p - y) / len(y) + ridge * w
        hess = (x * (p * (1 - p))[:, None]).T @ x / len(y) + ridge * np.eye(len(w))
        w -= np.linalg.solve(hess, grad)
    return w


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    """Mean negative log-likelihood of ``y`` under probabilities ``p``."""
    p = np.clip(p, 1e-9, 1 - 1e-9)
    return float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean())


def main() -> None:
    """Play, fit, print."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=4800)
    ap.add_argument("--seed", type=int, default=999)
    args = ap.parse_args()
    x, truth = logged_claims(args.games, args.seed)
    y = truth.astype(np.float64)
    w = fit_logistic(x, y)
    print(f"{len(y)} answered claims, {y.mean():.3f} true")
    print(f"log-loss: fitted {log_loss(1 / (1 + np.exp(-(x @ w))), y):.4f}, "
          f"constant {log_loss(np.full_like(y, y.mean()), y):.4f}")
    for name, v in zip(HONESTY_FEATURES, w, strict=True):
        print(f"  {name:28s} {v:+.3f}")
    print("HONESTY_WEIGHTS = np.array([" + ", ".join(f"{v:.3f}" for v in w) + "])")


if __name__ == "__main__":
    main()
