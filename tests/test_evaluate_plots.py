"""The evaluation's win-rate-per-table figure: every bar colour is explained, the colours follow
each CI against chance, and 0% and 100% rates draw."""

from __future__ import annotations

import matplotlib.colors as mcolors
import pandas as pd

from bluffsim.analysis.plots import table_win_rates


def test_table_win_rates_colours_follow_the_ci_and_are_explained() -> None:
    card = pd.DataFrame({
        "game": ["qdv"] * 3, "players": [2, 3, 4], "table": ["random", "heuristic", "counting"],
        "win_rate": [1.0, 0.34, 0.0], "ci_low": [0.98, 0.30, 0.0], "ci_high": [1.0, 0.38, 0.02],
        "fair_share": [0.5, 1 / 3, 0.25]})
    fig = table_win_rates(card)
    ax = fig.axes[0]
    label = ax.get_xlabel()
    assert "green" in label and "red" in label and "grey" in label
    colours = [mcolors.to_hex(b.get_facecolor()) for b in ax.patches]   # rows drawn bottom-up
    assert colours == [mcolors.to_hex(c) for c in ("C3", "C7", "C2")]
    assert ax.get_xlim()[1] > 1.0
