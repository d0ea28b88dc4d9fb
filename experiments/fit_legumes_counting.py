"""Refit the legumes ``counting`` agent's claim model (``CLAIM_WEIGHTS``).

Plays a mixture of lineups (random, heuristic, each heuristic parameter
extreme, counting, mixed tables) at 2–6 players in rotated seatings with the
compiled engine, logs every decision where a seat may accuse — the features
of the last face-down card seen by that seat (``claim_model``: the agent's own compiled
features) and what the card really is (true, lie, Bomb; read from the state, which agents
never see) —
and fits a multinomial logistic regression (L2, L-BFGS).  Prints the weights to
paste into ``agents/legumes/counting.py`` and the log-loss per owner type.

    python experiments/fit_legumes_counting.py [--games 400] [--seed 4242]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import agents  # noqa: E402
import bluffsim  # noqa: E402
from agents.legumes.counting import FEATURES, claim_model  # noqa: E402
from bluffsim.games.legumes import rules as R  # noqa: E402
from bluffsim.rng import AgentRNG  # noqa: E402

RANDOM = ("random", {})
HEURISTIC = ("heuristic", {})
VARIANTS = [("heuristic", {p: v}) for p, vs in {"accuse_at": (1, 6), "double_at": (2, 8),
                                                  "accuse_rate": (0.0, 0.5)}.items() for v in vs]
COUNTING = ("counting", {})


def lineups(players: int) -> list[list[tuple[str, dict]]]:
    """The mixture at ``players`` seats: counting or a heuristic against each opponent kind,
    and mixed tables."""
    rest = players - 1
    out = [[COUNTING] + [RANDOM] * rest, [COUNTING] + [HEURISTIC] * rest,
           [HEURISTIC] + [RANDOM] * rest]
    out += [[COUNTING] + [v] * rest for v in VARIANTS]
    out += [[v] + [RANDOM] * rest for v in VARIANTS]
    mix = [COUNTING, HEURISTIC, RANDOM] + VARIANTS
    out.append([mix[i % len(mix)] for i in range(players)])
    return out


def kind(entry: tuple[str, dict]) -> str:
    """Owner-type label: ``random``, ``counting``, ``heuristic`` or ``heuristic k=v``."""
    name, params = entry
    return name + "".join(f" {k}={v}" for k, v in params.items())


def logged_claims(lineup: list[tuple[str, dict]], games: int, seed: int,
                  observers: set[str] | None = None) -> dict[str, np.ndarray]:
    """Every decision where a seat may accuse, in ``games`` rotated games of ``lineup``:
    ``features`` float[N, F], ``outcome`` int[N] (0 true, 1 lie, 2 Bomb), ``owner`` and
    ``observer`` type labels, ``beliefs`` float[N, 3] (the current model)."""
    p = len(lineup)
    game = bluffsim.make("legumes", num_players=p)
    acting = [agents.make(name, game, **params) for name, params in lineup]
    labels = np.asarray([kind(e) for e in lineup], dtype=object)
    g = np.arange(games)
    seat_agent = (np.arange(p)[None, :] + g[:, None]) % p          # rotated seatings
    st = game.init(np.arange(games, dtype=np.uint64) + seed)
    logs: dict[str, list[np.ndarray]] = {"features": [], "outcome": [], "owner": [],
                                         "observer": [], "beliefs": []}
    while not st.done.all():
        live = ~st.done
        who = seat_agent[g, np.maximum(st.current_player.astype(np.int64), 0)]
        obs = game.observe(st)
        mask = st.legal_action_mask
        can = np.flatnonzero(live & mask[:, R.ACCUSE])
        if observers is not None:
            can = can[np.isin(labels[who[can]], list(observers))]
        if can.size:
            sub = {k: v[can] for k, v in obs.items()}
            card = st.last_card[can].astype(np.int64)
            true = (card < R.BOMB) & (card // 3 == st.last_called[can])
            features, beliefs = claim_model(game, sub)
            logs["features"].append(features)
            logs["beliefs"].append(beliefs)
            logs["outcome"].append(np.where(card == R.BOMB, 2, np.where(true, 0, 1)))
            owner = st.last_owner[can].astype(np.int64)
            logs["owner"].append(labels[seat_agent[can, owner]])
            logs["observer"].append(labels[who[can]])
        actions = mask.argmax(axis=1)
        for j, agent in enumerate(acting):
            idx = np.flatnonzero(live & (who == j))
            if idx.size:
                sub = {k: v[idx] for k, v in obs.items()}
                rng = AgentRNG(st.seed[idx], st.current_player[idx], st.num_decisions[idx])
                actions[idx] = agent.act(sub, mask[idx], rng)
        game.step(st, np.where(live, actions, -1))
    return {k: np.concatenate(v) for k, v in logs.items()}


def mixture(games: int, seed: int) -> dict[str, np.ndarray]:
    """``logged_claims`` over every lineup of the mixture at 2–6 players."""
    parts = []
    for players in range(2, 7):
        for i, lineup in enumerate(lineups(players)):
            parts.append(logged_claims(lineup, games, seed + 100_000 * players + 1000 * i))
    return {k: np.concatenate([d[k] for d in parts]) for k in parts[0]}


def fit(x: np.ndarray, y: np.ndarray, ridge: float = 1e-3) -> np.ndarray:
    """Multinomial logistic weights [2, F] (lie and Bomb against true), L2 ``ridge``."""
    n, f = x.shape
    onehot = np.eye(3)[y]

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        wm = w.reshape(2, f)
        z = np.concatenate([np.zeros((n, 1)), x @ wm.T], axis=1)
        z -= z.max(axis=1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        p = np.exp(logp)
        nll = -(onehot * logp).sum() / n + ridge * (wm[:, 1:] ** 2).sum()
        grad = ((p - onehot)[:, 1:].T @ x) / n
        grad[:, 1:] += 2 * ridge * wm[:, 1:]
        return float(nll), grad.ravel()

    res = minimize(loss, np.zeros(2 * f), jac=True, method="L-BFGS-B",
                   options={"maxiter": 2000})
    return res.x.reshape(2, f)


def beliefs_of(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """float[N, 3] class probabilities of features ``x`` under weights ``w``."""
    z = np.concatenate([np.zeros((x.shape[0], 1)), x @ w.T], axis=1)
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def main() -> None:
    """Play, fit, print."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=400, help="games per lineup")
    ap.add_argument("--seed", type=int, default=4242)
    ap.add_argument("--save", help="also write the logged claims to this .npz")
    a = ap.parse_args()
    data = mixture(a.games, a.seed)
    if a.save:
        np.savez_compressed(a.save, **data)
    x, y = data["features"], data["outcome"]
    w = fit(x, y)
    p = beliefs_of(x, w)
    print(f"{len(y)} claims; outcome shares {np.bincount(y, minlength=3) / len(y)}")
    for t in sorted(set(data["owner"])):
        m = data["owner"] == t
        ll = -np.log(np.clip(p[m, y[m]], 1e-9, 1)).mean()
        print(f"  owner {t:28} n={m.sum():7d} truth {np.mean(y[m] == 0):.3f} model "
              f"{p[m, 0].mean():.3f}  bomb {np.mean(y[m] == 2):.3f} model {p[m, 2].mean():.3f}  "
              f"logloss {ll:.3f}")
    print("FEATURES =", FEATURES)
    print("CLAIM_WEIGHTS = np.array([")
    for row in w:
        print("    [" + ", ".join(f"{v:.4f}" for v in row) + "],")
    print("])")


if __name__ == "__main__":
    main()
