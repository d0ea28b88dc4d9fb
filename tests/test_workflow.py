"""Issue 13 defects of the researcher's workflow: each test reproduces a failure of the old code.

Zero-win crash (1), blank notebook (2), one-line CLI errors (3), agent parameter
validation (4), output dirs (5) and the streaming merge (6).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bluffsim.analysis import plots, stats
from bluffsim.cli import main

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------ 1. zero-win crash
def test_wilson_interval_stays_in_unit_interval_and_brackets_the_rate():
    n = np.arange(1, 2000)
    for wins in (np.zeros_like(n), n):
        lo, hi = stats.wilson_interval(wins, n)
        p = wins / n
        assert (lo >= 0).all() and (hi <= 1).all()
        assert (lo <= p).all() and (p <= hi).all()


def all_or_nothing_games(n: int = 7) -> pd.DataFrame:
    """``n`` two-seat games: 'always' wins every one, 'never' none."""
    rows = []
    for g in range(n):
        rows += [(g, 0, "always", 1), (g, 1, "never", 2)]
    df = pd.DataFrame(rows, columns=["game", "seat", "agent", "placement"])
    df["won"] = df["placement"] == 1
    df["score"] = 0
    return df


def test_every_plot_survives_zero_and_hundred_percent_rates():
    from matplotlib.figure import Figure

    games = all_or_nothing_games()
    summ = stats.summary(games)
    assert summ.loc["never", "win_rate"] == 0 and summ.loc["always", "win_rate"] == 1
    bluff = pd.DataFrame({"calls_right": [0.0, 1.0], "calls": [5, 9]},
                         index=pd.Index(["never", "always"], name="agent"))
    bluff["calls_right_ci_low"], bluff["calls_right_ci_high"] = stats.wilson_interval(
        np.array([0, 9]), np.array([5, 9]))
    figs = [plots.win_rates(summ), plots.head_to_head_heatmap(stats.head_to_head(games)),
            plots.placement_bars(stats.placement_distribution(games)),
            plots.convergence_lines(stats.convergence(games)), plots.call_accuracy(bluff)]
    for f in figs:
        assert isinstance(f, Figure)
        f.savefig(__import__("io").BytesIO(), format="png")


def test_quickstart_smoke_run_and_report_do_not_crash_on_a_winless_agent(tmp_path, capsys):
    out = tmp_path / "qs"
    assert main(["run", str(ROOT / "experiments" / "quickstart.toml"), "--games", "100",
                 "--workers", "1", "--out", str(out), "--quiet"]) == 0
    summ = pd.read_csv(out / "summary.csv", index_col="agent")
    assert summ["wins"].min() == 0          # the case that crashed: an agent without a win
    assert (summ["ci_low"] >= 0).all() and (summ["ci_high"] <= 1).all()
    assert (out / "plots" / "win_rates.png").is_file()
    assert main(["report", str(out)]) == 0
