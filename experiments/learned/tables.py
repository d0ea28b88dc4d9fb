"""The learned agents' strength table: every shipped ``learned`` against random, heuristic and
counting at its own table, on neighbour-balanced seatings with duplicate deals (issue 26).

    python experiments/learned/tables.py [--table-games 2400] [--workers 1] --out results/learned

For each shipped weights file ``agents/weights/<game>_<P>p.npz`` (the ``bluffsim train``
files; ``qdv_small_2p.npz`` is a preset's and skipped) this runs ``bluffsim evaluate FILE``
(``bluffsim.evaluate``: the lineup learned + (P−1) × opponent, ``seating = "balanced"``,
every deal replayed under every seating of the design) and keeps its ``random``,
``heuristic`` and ``counting`` tables.  A win rate's 95% CI is taken over deals (the
deal-cluster bootstrap, at least Wilson's width: ``analysis.stats.deal_interval``).

*Beats* means the CI lies above the fair share 1/P: the learned seat wins more often than
a copy of the opponent would in its place (by symmetry a copy wins 1/P), so every opponent
seat wins less than 1/P on average.  Writes ``learned_tables.md`` and ``learned_tables.csv``
in ``--out`` (each agent's full evaluation in ``--out/<file stem>/``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agents.learned import WEIGHTS_DIR, load_weights  # noqa: E402
from bluffsim import evaluate  # noqa: E402

OPPONENTS = ("random", "heuristic", "counting")
COLUMNS = ["game", "players", "opponent", "games", "deals", "win_rate", "ci_low", "ci_high",
           "fair_share", "mean_placement", "beats"]


def shipped_files() -> list[Path]:
    """The shipped ``bluffsim train`` weights files (a preset's rules are not the battery's)."""
    out = []
    for path in sorted(WEIGHTS_DIR.glob("*.npz")):
        _, meta = load_weights(path)
        if not meta.get("rules"):
            out.append(path)
    return out


def evaluate_file(path: Path, out: Path, table_games: int, workers: int,
                  reference_dir: str) -> pd.DataFrame:
    """The random / heuristic / counting rows of ``bluffsim evaluate`` for one weights file."""
    p = evaluate.plan(str(path), "quick", out=str(out / path.stem), workers=workers,
                      table_games=table_games, leaderboard=str(out / "leaderboard.csv"),
                      reference_dir=reference_dir, force=True)
    card = evaluate.run(p, log=lambda _msg: None)["scorecard"]
    rows = card[card["table"].isin(OPPONENTS)].rename(columns={"table": "opponent"})
    rows = rows.assign(beats=rows["ci_low"] > rows["fair_share"])
    return rows[COLUMNS]


def markdown(table: pd.DataFrame, command: str) -> str:
    """The table as a markdown page section with its command, date, machine and versions."""
    import numpy as np

    import bluffsim

    lines = ["# Learned agents against the built-in agents", "",
             f"- **Command:** `{command}`",
             f"- **Date:** {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC",
             f"- **Machine:** {platform.machine()} {platform.processor() or ''}".rstrip(),
             f"- **Versions:** Python {platform.python_version()}, numpy {np.__version__}, "
             f"pandas {pd.__version__}, bluffsim {bluffsim.__version__}", "",
             "| game | P | learned + (P−1) × | games | deals | learned win rate | 95% CI (over deals) "
             "| fair share | mean placement | beats |",
             "|---|---:|---|---:|---:|---:|---|---:|---:|:---:|"]
    for r in table.itertuples():
        lines.append(f"| {r.game} | {r.players} | {r.opponent} | {r.games:,} | {r.deals:,} | "
                     f"{r.win_rate:.3f} | {r.ci_low:.3f} – {r.ci_high:.3f} | {r.fair_share:.3f} | "
                     f"{r.mean_placement:.2f} | {'**yes**' if r.beats else 'no'} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Command line (module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--table-games", type=int, default=2400)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", default="results/learned")
    ap.add_argument("--only", nargs="+", default=None, metavar="STEM",
                    help="only these weights files (e.g. veru_4p); their rows replace theirs in an "
                         "existing --out table")
    ap.add_argument("--reference-dir", default="results/evaluate/reference",
                    help="cache of the reference ratings (shared with bluffsim evaluate)")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    files = [f for f in shipped_files() if args.only is None or f.stem in args.only]
    table = pd.concat([evaluate_file(f, out, args.table_games, args.workers, args.reference_dir)
                       for f in files], ignore_index=True)
    old = out / "learned_tables.csv"
    if args.only and old.is_file():   # keep the other files' rows, in the full run's order
        kept = pd.read_csv(old)
        stems = kept["game"] + "_" + kept["players"].astype(str) + "p"
        table = pd.concat([kept[~stems.isin(args.only)], table], ignore_index=True)
        table = table.sort_values(["game", "players"], kind="stable", ignore_index=True)
    table.to_csv(out / "learned_tables.csv", index=False)
    command = ("python experiments/learned/tables.py --table-games "
               f"{args.table_games} --out {args.out}")
    (out / "learned_tables.md").write_text(markdown(table, command), encoding="utf-8")
    print(markdown(table, command))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
