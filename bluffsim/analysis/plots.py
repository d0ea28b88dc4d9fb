"""Plots of prepared tournament tables; each takes a DataFrame and returns a Figure.

Importing this module never chooses a matplotlib backend: in Jupyter the inline
backend must stay on so the figures show.  The CLI, which only writes PNG files,
selects the non-interactive Agg backend itself (``bluffsim.cli``).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure


def _error_bars(value: pd.Series, low: pd.Series, high: pd.Series) -> np.ndarray:
    """float[2, N] error-bar lengths (below, above) of ``value`` in [low, high], never negative
    (matplotlib rejects negative lengths; a 0% or 100% rate may sit on its bound)."""
    v = value.to_numpy(dtype=float)
    return np.clip(np.vstack([v - low.to_numpy(dtype=float), high.to_numpy(dtype=float) - v]),
                   0.0, None)


def win_rates(summary: pd.DataFrame, title: str = "") -> Figure:
    """Bar chart of win rates with 95% Wilson intervals (from ``stats.summary``)."""
    fig, ax = plt.subplots(figsize=(6, 3.5))
    s = summary.sort_values("win_rate")
    err = _error_bars(s["win_rate"], s["ci_low"], s["ci_high"])
    ax.barh(s.index.astype(str), s["win_rate"], xerr=err, color="tab:blue", capsize=4)
    ax.set_xlabel("win rate (95% CI)")
    ax.set_title(title or "Win rate per agent")
    fig.tight_layout()
    return fig


def head_to_head_heatmap(table: pd.DataFrame, title: str = "") -> Figure:
    """Heatmap of ``stats.head_to_head``: share of games the row agent beat the column one."""
    fig, ax = plt.subplots(figsize=(5, 4))
    im = ax.imshow(table.to_numpy(dtype=float), vmin=0, vmax=1, cmap="RdBu")
    ax.set_xticks(range(len(table.columns)), table.columns.astype(str), rotation=45, ha="right")
    ax.set_yticks(range(len(table.index)), table.index.astype(str))
    for i in range(table.shape[0]):
        for j in range(table.shape[1]):
            v = table.iat[i, j]
            if np.isfinite(v):
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=8)
    fig.colorbar(im, ax=ax, label="share of games placed better")
    ax.set_title(title or "Head to head (row vs column)")
    fig.tight_layout()
    return fig


def placement_bars(dist: pd.DataFrame, title: str = "") -> Figure:
    """Stacked bars of placement shares per agent (from ``stats.placement_distribution``)."""
    fig, ax = plt.subplots(figsize=(6, 3.5))
    left = np.zeros(len(dist))
    cmap = plt.get_cmap("viridis", max(2, dist.shape[1]))
    for i, place in enumerate(dist.columns):
        ax.barh(dist.index.astype(str), dist[place], left=left, color=cmap(i),
                label=f"{place}")
        left += dist[place].to_numpy()
    ax.set_xlabel("share of games")
    ax.legend(title="placement", bbox_to_anchor=(1.02, 1), loc="upper left", fontsize=8)
    ax.set_title(title or "Placement distribution")
    fig.tight_layout()
    return fig


def convergence_lines(conv: pd.DataFrame, title: str = "") -> Figure:
    """Running win rate against games played (from ``stats.convergence``)."""
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for agent, g in conv.groupby("agent"):
        ax.plot(g["games"], g["win_rate"], label=str(agent))
    ax.set_xscale("log")
    ax.set_xlabel("games played")
    ax.set_ylabel("win rate so far")
    ax.legend(fontsize=8)
    ax.set_title(title or "Convergence of win rates")
    fig.tight_layout()
    return fig


def call_accuracy(bluff: pd.DataFrame, title: str = "") -> Figure:
    """Share of calls that were right, per agent, with 95% CIs (from ``stats.bluff_metrics``)."""
    fig, ax = plt.subplots(figsize=(6, 3.5))
    b = bluff.dropna(subset=["calls_right"]).sort_values("calls_right")
    err = _error_bars(b["calls_right"], b["calls_right_ci_low"], b["calls_right_ci_high"])
    ax.barh(b.index.astype(str), b["calls_right"], xerr=err, color="tab:green", capsize=4)
    ax.set_xlabel("calls right (95% CI)")
    ax.set_title(title or "Call accuracy")
    fig.tight_layout()
    return fig


def throughput_vs_batch(table: pd.DataFrame, title: str = "") -> Figure:
    """Decisions/s against batch size (log-log) from ``bluffsim.bench.bench_engines``: one line
    per game and agent mix with its min–max band, that mix's reference engine as a cross at
    batch 1, and the OpenSpiel anchor as a dashed line."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    vec = table[table["engine"] == "vectorised"]
    ref = table[table["engine"] == "reference"]
    for i, ((game, agent), part) in enumerate(vec.groupby(["game", "agents"], sort=True)):
        part = part.sort_values("batch")
        color = f"C{i % 10}"
        ax.plot(part["batch"], part["decisions_per_s"], marker="o", color=color,
                label=f"{game} · {agent}")
        ax.fill_between(part["batch"], part["min"], part["max"], color=color, alpha=0.15)
        mine = ref[(ref["game"] == game) & (ref["agents"] == agent)]
        ax.scatter([1] * len(mine), mine["decisions_per_s"], marker="x", s=60, color=color)
    for _, row in table[table["engine"] == "openspiel python loop"].iterrows():
        ax.axhline(row["decisions_per_s"], color="black", ls="--", lw=1.2,
                   label="OpenSpiel liars_dice, Python loop")
    ax.scatter([], [], marker="x", color="grey", label="reference engine (one game)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("batch size (games stepped together)")
    ax.set_ylabel("decisions per second, one core")
    ax.set_title(title or "Throughput against batch size")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    return fig
