"""Compare trained weights quickly: head to head against heuristic and counting, and a small
approximate best response (the numbers of docs/learning.md's recipe ablation).

    python experiments/learned/compare.py GAME PLAYERS WEIGHTS.npz [--games 1200] [--abr]

Each table is ``bluffsim evaluate``'s (``evaluate.table_experiment``): learned + (P−1) ×
opponent, neighbour-balanced seatings, every deal replayed under each seating; the win rate's
95% CI is taken over deals (``analysis.stats.deal_interval``).  ``--abr`` adds
``bluffsim exploit``'s ``small`` budget against the weights (1,200 evaluation games).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bluffsim import evaluate  # noqa: E402
from bluffsim.analysis.stats import deal_interval  # noqa: E402
from bluffsim.tournament.config import Seat  # noqa: E402
from bluffsim.tournament.tables import play_table  # noqa: E402


def head_to_head(game: str, players: int, weights: str, opponent: str, games: int) -> str:
    """One table's line: the learned seat's win rate [CI over deals] and an opponent seat's."""
    seats = (Seat("learned", evaluate.SUBJECT, {"weights": weights}),) + tuple(
        Seat(opponent, opponent if i == 1 else f"{opponent}#{i}", {}) for i in range(1, players))
    table = evaluate.Table(game, players, f"vs_{opponent}", seats)
    played = play_table(evaluate.battery_table(table, games)).games
    me = played[played["agent"] == evaluate.SUBJECT]
    won = (me["placement"] == 1).to_numpy()
    lo, hi = deal_interval(won, me["seed"].to_numpy())
    others = played[played["agent"] != evaluate.SUBJECT]
    return (f"vs {opponent}: {won.mean():.3f} [{lo:.3f}, {hi:.3f}], each {opponent} seat "
            f"{(others['placement'] == 1).mean():.3f}")


def main(argv: list[str] | None = None) -> int:
    """Command line (module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game")
    ap.add_argument("players", type=int)
    ap.add_argument("weights")
    ap.add_argument("--games", type=int, default=1200)
    ap.add_argument("--abr", action="store_true")
    args = ap.parse_args(argv)
    print(args.weights)
    for opponent in ("heuristic", "counting"):
        print("  " + head_to_head(args.game, args.players, args.weights, opponent, args.games))
    if args.abr:
        from bluffsim.abr import approximate_best_response

        r = approximate_best_response(args.game, args.weights, args.players, "small",
                                      out=str(Path(args.weights).with_suffix(".abr")),
                                      eval_games=1200)["sampling"]
        print(f"  ABR small: {r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
