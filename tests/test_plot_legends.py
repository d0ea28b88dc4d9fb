"""Plot legends show what the plot draws: the run's ``win_rates.png`` key for the bars carries
every bar's colour (one colour per agent), not the colour of whichever bar came first."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.colors import to_rgba
from matplotlib.patches import Rectangle

from bluffsim.analysis import plots

BARS = "outright win rate (first place alone)"


def summary(rates: list[float]) -> pd.DataFrame:
    """A ``stats.summary``-shaped table of agents a0, a1, ... with these outright rates."""
    r = np.asarray(rates, float)
    return pd.DataFrame({"games": 50, "win_rate": r, "ci_low": r * 0.8, "ci_high": r * 1.2 + 0.01,
                         "win_share": r}, index=pd.Index([f"a{i}" for i in range(len(r))],
                                                         name="agent"))


def colours(patches: list[Rectangle]) -> list[tuple[float, ...]]:
    return [tuple(np.round(to_rgba(p.get_facecolor()), 4)) for p in patches]


def test_the_win_rate_bars_key_has_every_bars_colour_in_bar_order():
    """The bars are coloured per agent: the legend's key for them is a strip of the same
    colours, top bar first, and the bars' label comes first with the other entries after."""
    order = ["a0", "a1", "a2", "a3"]
    fig = plots.win_rates(summary([0.5, 0.3, 0.2, 0.0]), "t", order, chance=0.25)
    ax = fig.axes[0]
    legend = ax.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == [
        BARS, plots.WIN_SHARE_LABEL, "chance 1/P = 0.25"]
    bars = colours([p for p in ax.patches if isinstance(p, Rectangle)])
    assert len(set(bars)) == 4
    key = colours([p for p in legend.findobj(Rectangle) if p is not legend.legendPatch
                   and p.get_visible() and p.get_width() > 0])
    assert key == bars[::-1]                      # the strip reads like the bars, best on top


def test_one_agent_gives_a_one_colour_key():
    fig = plots.win_rates(summary([0.4]), "t")
    legend = fig.axes[0].get_legend()
    key = colours([p for p in legend.findobj(Rectangle) if p is not legend.legendPatch
                   and p.get_visible() and p.get_width() > 0])
    assert key == colours([p for p in fig.axes[0].patches if isinstance(p, Rectangle)])
