"""Fit and check the qdv ``counting`` agent's models on a mixture of tables.

Plays a mixture of lineups (counting against random, the heuristic and every
heuristic variant of the robustness ladder, and mixed tables), player counts 2–6
and random seatings with the vectorised engine, and logs at every bidding
decision of a counting seat: its observation, the true card count of every fruit
(read from the state, which the agent never sees), the opponent type of the
standing bid, and whether the next seat called ``menteur`` on the counting
seat's own bid.  Then

* fits the bid-evidence prior and scale (``BETA_PRIOR``, ``BETA_PRIOR_BIDS``,
  ``BETA_SCALE``) by grid search on the calibration of "the standing bid's card
  count holds" (the belief the decisions use; salads left out, so the truth is
  exact): the smallest worst gap between belief and truth over belief bins and
  over the bidder types random and heuristic (the Brier score is printed too;
  minimising it instead trades calibration against one type for the other);
* fits the next seat's call model (``CALL_WEIGHTS``) by logistic regression
  (Newton's method) of "the next seat called menteur" on the call model's features;
* prints both to paste into ``agents/qdv/counting.py`` and a calibration table
  (belief bins against the truth per opponent type).

    python experiments/fit_qdv_counting.py [--games 600] [--seed 4242]

The beliefs and features are the compiled policy's own (``agents.qdv.counting.model_rows``
runs the functions ``counting_policy`` decides with), so what is fitted and checked here is
what the agent uses.  ``logged`` is also what the calibration tests use
(tests/qdv/test_counting_calibration.py).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import agents  # noqa: E402
import bluffsim  # noqa: E402
from agents.qdv import counting as C  # noqa: E402
from agents.qdv.common import VALUE  # noqa: E402
from bluffsim.games.qdv import rules as R  # noqa: E402
from bluffsim.rng import AgentRNG  # noqa: E402

HEURISTIC_VARIANTS = [{}, {"call_margin": 0.0}, {"call_margin": 3.0}, {"exact_window": 0.0},
                      {"exact_window": 1.0}, {"bluff": 0.0}, {"bluff": 0.5},
                      {"switch_gain": 0.0}, {"switch_gain": 3.0}, {"salad_weight": 0.0},
                      {"salad_weight": 1.0}]


def mixture(players: int) -> list[list[tuple[str, dict[str, Any]]]]:
    """Lineups of the mixture at ``players`` seats (seat 0 is counting)."""
    cnt = ("counting", {})
    out = [[cnt] + [("random", {})] * (players - 1)]
    out += [[cnt] + [("heuristic", v)] * (players - 1) for v in HEURISTIC_VARIANTS]
    if players >= 3:
        fill = [("heuristic", v) for v in HEURISTIC_VARIANTS]
        out.append([cnt, ("random", {})] + fill[: players - 2])
        out.append([cnt, ("heuristic", {}), ("random", {})] + fill[::-1][: players - 3])
    return out


def opponent_type(name: str, params: dict[str, Any]) -> str:
    """'random', 'heuristic' (any variant) or 'counting'."""
    return name


def true_counts(st: Any, idx: np.ndarray) -> np.ndarray:
    """int64[N, F]: the true card count of every fruit in games ``idx`` of state ``st`` (every
    hand with multipliers and the centre card, a centre salad counting for the start fruit;
    no salads declared), read from the state, which the agent never sees."""
    out = st.hands[idx].sum(axis=1).astype(np.int64) @ VALUE
    centre = st.centre[idx].astype(np.int64)
    start = st.start[idx].astype(np.int64)
    out += VALUE[np.clip(centre, 0, R.NUM_KINDS - 1)] * (centre != R.SALAD)[:, None]
    rows = np.flatnonzero((centre == R.SALAD) & (start >= 0))
    out[rows, start[rows]] += 1
    return out


def logged(players: int, lineup: list[tuple[str, dict[str, Any]]], games: int,
           seed: int) -> dict[str, Any]:
    """Play ``games`` games of ``lineup`` (random seatings) and log every counting decision.

    Returns lists of per-decision arrays: ``obs`` (the counting seat's observation dicts),
    ``truth`` (true card count per fruit, int[N, F]), ``bidder_type`` (of the standing
    bid), for every decision ``features`` (the call model's features of the bid the seat
    made, ``model_rows``) and ``called`` (whether the next seat called menteur on it; -1 for
    decisions that were no bid or never answered), ``menteur_belief`` and ``menteur_right``.
    """
    game = bluffsim.make("qdv", num_players=players)
    objs = [agents.make(n, game, **p) for n, p in lineup]
    types = np.array([opponent_type(n, p) for n, p in lineup] + ["initial"], dtype=object)
    rng = np.random.default_rng(seed)
    seat_agent = np.array([rng.permutation(players) for _ in range(games)])  # seat -> lineup
    st = game.init(np.arange(games, dtype=np.uint64) + np.uint64(seed) * np.uint64(1000003))
    log: dict[str, list[Any]] = {k: [] for k in ("obs", "truth", "bidder_type", "features",
                                                  "called", "menteur_belief", "menteur_right")}
    pending = np.full(games, -1)   # index into the bid log of the counting bid awaiting an answer
    pending_m = np.full(games, -1)  # index into the menteur log awaiting the showdown
    n_bids = 0
    n_menteur = 0
    bids_called: list[np.ndarray] = []
    menteur_right: list[np.ndarray] = []
    rows_all = np.arange(games)
    while not st.done.all():
        live = ~st.done
        cur = np.maximum(st.current_player.astype(np.int64), 0)
        who = seat_agent[rows_all, cur]
        obs = game.observe(st)
        actions = np.full(games, -1, np.int64)
        for j, agent in enumerate(objs):
            idx = np.flatnonzero(live & (who == j))
            if not idx.size:
                continue
            sub = {k: v[idx] for k, v in obs.items()}
            rng_a = AgentRNG(st.seed[idx], st.current_player[idx], st.num_decisions[idx])
            actions[idx] = agent.act(sub, st.legal_action_mask[idx], rng_a)
        # answers to pending counting bids: the next bidding decision of that game
        ans = np.flatnonzero(live & (pending >= 0) & (st.phase == R.PHASE_BID))
        if ans.size:
            bids_called.append(np.stack([pending[ans], actions[ans] == R.MENTEUR], axis=1))
            pending[ans] = -1
        cidx = np.flatnonzero(live & (who == 0) & (st.phase == R.PHASE_BID))
        if cidx.size:
            sub = {k: v[cidx] for k, v in obs.items()}
            log["obs"].append(sub)
            log["truth"].append(true_counts(st, cidx))
            bidder = sub["bidder"].astype(np.int64)
            log["bidder_type"].append(types[np.where(bidder >= 0, seat_agent[cidx, np.maximum(
                bidder, 0)], players)])
            model = C.model_rows(game, sub, st.legal_action_mask[cidx])
            a = actions[cidx]
            is_bid = a < R.VRAI
            # the call model's features of the bid made (rows without a bid: never fitted)
            log["features"].append(model["features"][np.arange(cidx.size),
                                                     np.where(is_bid, a, 0)])
            pending[cidx[is_bid]] = n_bids + np.flatnonzero(is_bid)
            n_bids += cidx.size
            # menteur calls: belief that menteur wins = P(T < b) under the called posterior
            ment = a == R.MENTEUR
            log["menteur_belief"].append(np.where(ment, called_below(model, sub), np.nan))
            pending_m[cidx[ment]] = n_menteur + np.flatnonzero(ment)
            n_menteur += cidx.size
        game.step(st, np.where(live, actions, -1))
        ended = np.flatnonzero(st.round_over & (pending_m >= 0))
        if ended.size:
            rec = game.round_record(st, ended)
            menteur_right.append(np.stack([pending_m[ended], rec["call_right"].astype(bool)],
                                          axis=1))
            pending_m[ended] = -1
    called = np.full(n_bids, -1)
    if bids_called:
        bc = np.concatenate(bids_called)
        called[bc[:, 0]] = bc[:, 1]
    right = np.full(n_menteur, -1)
    if menteur_right:
        mr = np.concatenate(menteur_right)
        right[mr[:, 0]] = mr[:, 1]
    return {"obs": log["obs"], "truth": log["truth"], "bidder_type": log["bidder_type"],
            "features": np.concatenate(log["features"]),
            "called": called, "menteur_belief": np.concatenate(log["menteur_belief"]),
            "menteur_right": right, "rules": game.rules, "game": game}


def bid_fruit_counts(model: dict[str, np.ndarray], obs: dict[str, np.ndarray]
                     ) -> tuple[np.ndarray, np.ndarray]:
    """(pmf float64[N, W], counts int64[N, W]): the posterior of the standing bid's fruit
    (``model_rows``): ``P(T = counts[:, u]) = pmf[:, u]``."""
    fruit = np.maximum(obs["bid_fruit"].astype(np.int64), 0)
    rows = np.arange(fruit.size)
    pmf = model["pmf"][rows, fruit]
    return pmf, model["known"][rows, fruit][:, None] + np.arange(pmf.shape[1])


def called_below(model: dict[str, np.ndarray], obs: dict[str, np.ndarray]) -> np.ndarray:
    """float64[N]: P(T < the standing bid) of its fruit under the called posterior (the
    belief that ``menteur`` wins)."""
    _, counts = bid_fruit_counts(model, obs)
    bid = obs["bid_count"].astype(np.int64)[:, None]
    return (model["called"] * (counts < bid)).sum(axis=1)


def true_beliefs(data: dict[str, Any], evidence: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(belief, truth) of "the standing bid's fruit has card count >= the bid" per logged
    decision (salads left out, so the truth is exact): the policy's posterior
    (``model_rows``, no salad of the others counted), read at each call (the grid search
    sets the module constants)."""
    beliefs, truths = [], []
    game = data["game"]
    for sub, truth in zip(data["obs"], data["truth"], strict=True):
        pmf, counts = bid_fruit_counts(C.model_rows(game, sub, evidence=evidence), sub)
        fruit = np.maximum(sub["bid_fruit"].astype(np.int64), 0)
        bid = sub["bid_count"].astype(np.int64)
        beliefs.append((pmf * (counts >= bid[:, None])).sum(axis=1))
        truths.append(truth[np.arange(len(fruit)), fruit] >= bid)
    return np.concatenate(beliefs), np.concatenate(truths)


def scores_by_type(data: list[dict[str, Any]]) -> tuple[float, float]:
    """(worst calibration error, mean Brier score) of "the standing bid's card count holds"
    (``true_beliefs``) over the bidder types random and heuristic: the largest gap between
    mean belief and truth in a belief bin of at least 100 samples, and the Brier score
    averaged over the two types with equal weight."""
    worst, briers = 0.0, []
    for kind in ("random", "heuristic"):
        bel, tru = [], []
        for d in data:
            b, t = true_beliefs(d)
            sel = np.concatenate(d["bidder_type"]) == kind
            bel.append(b[sel])
            tru.append(t[sel])
        b, t = np.concatenate(bel), np.concatenate(tru).astype(float)
        briers.append(float(((b - t) ** 2).mean()))
        rows = calibration_table(b, t, bins=10)
        worst = max([worst] + [abs(r[3] - r[4]) for r in rows if r[2] >= 100])
    return worst, float(np.mean(briers))


def calibration_table(belief: np.ndarray, truth: np.ndarray, bins: int = 5) -> list[tuple]:
    """(bin low, bin high, n, mean belief, share true) per belief bin."""
    edges = np.linspace(0, 1, bins + 1)
    out = []
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        sel = (belief >= lo) & ((belief < hi) | (hi == 1.0))
        if sel.any():
            out.append((lo, hi, int(sel.sum()), float(belief[sel].mean()),
                        float(truth[sel].mean())))
    return out


def fit_logistic(x: np.ndarray, y: np.ndarray, iters: int = 30) -> np.ndarray:
    """Weights of a logistic regression (Newton's method, tiny ridge)."""
    w = np.zeros(x.shape[1])
    for _ in range(iters):
        p = 1 / (1 + np.exp(-(x @ w)))
        g = x.T @ (y - p) - 1e-3 * w
        h = (x * (p * (1 - p))[:, None]).T @ x + 1e-3 * np.eye(x.shape[1])
        w += np.linalg.solve(h, g)
    return w


def collect(games: int, seed: int) -> list[dict[str, Any]]:
    """Logs of every lineup of the mixture at 2–6 players."""
    out = []
    for players in range(2, 7):
        for i, lineup in enumerate(mixture(players)):
            out.append(logged(players, lineup, games, seed + 100 * players + i))
            out[-1]["lineup"] = lineup
    return out


def main() -> None:
    """Command line (module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=60, help="games per lineup")
    ap.add_argument("--seed", type=int, default=4242)
    a = ap.parse_args()
    data = collect(a.games, a.seed)
    best = None
    for prior in (0.25, 0.5):
        for weight in (4.0, 8.0):
            for scale in (0.75, 1.0):
                C.BETA_PRIOR, C.BETA_PRIOR_BIDS, C.BETA_SCALE = prior, weight, scale
                worst, brier = scores_by_type(data)
                print(f"BETA_PRIOR={prior} BETA_PRIOR_BIDS={weight} BETA_SCALE={scale}: "
                      f"worst bin error {worst:.3f}, Brier {brier:.5f}", flush=True)
                if best is None or worst < best[0]:
                    best = (worst, prior, weight, scale)
    _, C.BETA_PRIOR, C.BETA_PRIOR_BIDS, C.BETA_SCALE = best
    print(f"best: BETA_PRIOR = {C.BETA_PRIOR}, BETA_PRIOR_BIDS = {C.BETA_PRIOR_BIDS}, "
          f"BETA_SCALE = {C.BETA_SCALE}")
    x = np.concatenate([d["features"] for d in data])
    called = np.concatenate([d["called"] for d in data])
    ok = called >= 0
    w = fit_logistic(x[ok], called[ok].astype(float))
    print("CALL_WEIGHTS = (" + ", ".join(f"{v:.3f}" for v in w) + f")  ({ok.sum()} bids)")
    print("calibration of p_call:")
    for row in calibration_table(C.p_call(x[ok], tuple(w)), called[ok].astype(float)):
        print("  [{:.1f}, {:.1f}) n={:6d} belief {:.3f} true {:.3f}".format(*row))
    for kind in ("random", "heuristic"):
        bel, tru = [], []
        for d in data:
            b, t = true_beliefs(d)
            sel = np.concatenate(d["bidder_type"]) == kind
            bel.append(b[sel])
            tru.append(t[sel])
        print(f"calibration of P(card count >= bid), standing bid by {kind}:")
        for row in calibration_table(np.concatenate(bel), np.concatenate(tru)):
            print("  [{:.1f}, {:.1f}) n={:6d} belief {:.3f} true {:.3f}".format(*row))


if __name__ == "__main__":
    main()
