"""Plots of prepared tournament tables; each takes a DataFrame and returns a Figure.

Importing this module never chooses a matplotlib backend: in Jupyter the inline
backend must stay on so the figures show.  The CLI, which only writes PNG files,
selects the non-interactive Agg backend itself (``bluffsim.cli``).
"""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.legend_handler import HandlerTuple
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

WIN_SHARE_LABEL = "win share (first place, a tie for first split 1/k)"
"""Legend entry of the win-share marks drawn beside every outright win rate shown against chance:
outright rates of a game's seats sum to less than 1 when first places are shared, win shares to 1."""


def _error_bars(value: pd.Series, low: pd.Series, high: pd.Series) -> np.ndarray:
    """float[2, N] error-bar lengths (below, above) of ``value`` in [low, high], never negative
    (matplotlib rejects negative lengths; a 0% or 100% rate may sit on its bound)."""
    v = value.to_numpy(dtype=float)
    return np.clip(np.vstack([v - low.to_numpy(dtype=float), high.to_numpy(dtype=float) - v]),
                   0.0, None)


def _ordered(index: pd.Index, order: list[str] | None) -> list[str]:
    """Agents of ``index`` in the shared plot order (best first); unknown ones last by name."""
    names = [str(x) for x in index]
    if not order:
        return names
    return [a for a in order if a in names] + sorted(a for a in names if a not in order)


def agent_colour(agent: str, order: list[str] | None) -> str:
    """The colour of an agent in every plot: its position in the shared order."""
    order = order or []
    return f"C{order.index(agent) % 10}" if agent in order else "grey"


def _bar_height(n: int) -> float:
    """Figure height for ``n`` horizontal bars (pools can hold many agents)."""
    return max(3.8, 1.6 + 0.28 * n)


def _legend_below(ax: plt.Axes, **kwargs: Any) -> None:
    """The legend under the axes, clear of the bars (``tight_layout`` makes room for it);
    ``kwargs`` go to ``Axes.legend`` (e.g. explicit ``handles`` and ``labels``)."""
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, frameon=False,
              **kwargs)


def _colour_strip_legend(ax: plt.Axes, colours: list[str], label: str) -> None:
    """The legend below with ``label`` first, its key a strip of ``colours`` (the bars' own,
    one colour per agent: a single patch would show one agent's colour only), then the
    axes' labelled artists."""
    handles, labels = ax.get_legend_handles_labels()
    strip = tuple(Patch(facecolor=c) for c in dict.fromkeys(colours)) or (Patch(facecolor="grey"),)
    _legend_below(ax, handles=[strip, *handles], labels=[label, *labels],
                  handler_map={tuple: HandlerTuple(ndivide=None, pad=0)})


def _titled(ax: plt.Axes, what: str, title: str) -> None:
    """``what`` on the first line, the run's context (``title``) on the second."""
    ax.set_title(f"{what}\n{title}" if title else what, fontsize=10)


def win_rates(summary: pd.DataFrame, title: str = "", order: list[str] | None = None,
              chance: float | None = None) -> Figure:
    """Bar chart of outright win rates with 95% Wilson intervals (from ``stats.summary``), best
    on top in ``order``, each agent's ``win_share`` (when the table has it) as a black diamond
    on its bar, and the chance rate ``chance`` (1/P) as a dashed line."""
    fig, ax = plt.subplots(figsize=(6.5, _bar_height(len(summary))))
    s = summary.copy()
    s.index = s.index.astype(str)
    names = _ordered(s.index, order or s.sort_values("win_rate", ascending=False).index.tolist())
    s = s.loc[names[::-1]]
    err = _error_bars(s["win_rate"], s["ci_low"], s["ci_high"])
    colours = [agent_colour(a, order or names) for a in s.index]
    ax.barh(s.index, s["win_rate"], xerr=err, capsize=4, color=colours)
    top = [float(np.nanmax(s["ci_high"])) if len(s) else 0.0]
    if "win_share" in s:
        ax.plot(s["win_share"], s.index, ls="none", marker="D", color="black", ms=6, zorder=3,
                label=WIN_SHARE_LABEL)
        top.append(float(np.nanmax(s["win_share"])) if len(s) else 0.0)
    if chance:
        ax.axvline(chance, color="black", ls="--", lw=1, label=f"chance 1/P = {chance:.3g}")
    _colour_strip_legend(ax, colours[::-1], "outright win rate (first place alone)")
    ax.set_xlim(0, max(1e-3, max(top) * 1.1, (chance or 0) * 1.2))
    ax.set_xlabel("win rate (95% Wilson CI)")
    _titled(ax, "Win rate per agent", title)
    fig.tight_layout()
    return fig


def head_to_head_heatmap(table: pd.DataFrame, title: str = "", order: list[str] | None = None,
                         ci: pd.DataFrame | None = None) -> Figure:
    """Heatmap of ``stats.head_to_head``: share of games the row agent placed better than the
    column one; with ``ci`` (``seats.head_to_head_long``) each cell shows its 95% CI too."""
    names = _ordered(table.index, order)
    t = table.copy()
    t.index, t.columns = t.index.astype(str), t.columns.astype(str)
    t = t.loc[names, names]
    k = len(names)
    fig, ax = plt.subplots(figsize=(min(16.0, 1.2 * k + 3), min(14.0, 0.9 * k + 2.5)))
    im = ax.imshow(t.to_numpy(dtype=float), vmin=0, vmax=1, cmap="RdBu")
    ax.set_xticks(range(len(names)), names, rotation=45, ha="right")
    ax.set_yticks(range(len(names)), names)
    bounds = {} if ci is None else {(str(r.agent), str(r.opponent)): (r.ci_low, r.ci_high)
                                    for r in ci.itertuples()}
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            v = t.iat[i, j]
            if np.isfinite(v):
                text = f"{v:.2f}"
                if (a, b) in bounds and k <= 8:
                    text += "\n[{:.2f}, {:.2f}]".format(*bounds[(a, b)])
                ax.text(j, i, text, ha="center", va="center", fontsize=7 if k <= 8 else 5)
    fig.colorbar(im, ax=ax, label="share of games placed better")
    _titled(ax, "Head to head (row vs column, 95% CI)" if bounds else "Head to head (row vs column)",
            title)
    fig.tight_layout()
    return fig


def placement_bars(dist: pd.DataFrame, title: str = "", order: list[str] | None = None) -> Figure:
    """Stacked bars of placement shares per agent (from ``stats.placement_distribution``)."""
    fig, ax = plt.subplots(figsize=(6.5, _bar_height(len(dist))))
    d = dist.copy()
    d.index = d.index.astype(str)
    d = d.loc[_ordered(d.index, order)[::-1]]
    left = np.zeros(len(d))
    cmap = plt.get_cmap("viridis", max(2, d.shape[1]))
    for i, place in enumerate(d.columns):
        ax.barh(d.index, d[place], left=left, color=cmap(i), label=f"{place}")
        left += d[place].to_numpy()
    ax.set_xlabel("share of games")
    ax.legend(title="placement", bbox_to_anchor=(1.02, 1), loc="upper left", fontsize=8)
    _titled(ax, "Placement distribution", title)
    fig.tight_layout()
    return fig


def convergence_lines(conv: pd.DataFrame, title: str = "", order: list[str] | None = None,
                      chance: float | None = None) -> Figure:
    """Running outright win rate against games played with 95% CI bands (``stats.convergence``)."""
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    names = _ordered(pd.Index(conv["agent"].astype(str).unique()), order)
    for agent in names:
        g = conv[conv["agent"].astype(str) == agent]
        colour = agent_colour(agent, order or names)
        ax.plot(g["games"], g["win_rate"], label=agent, color=colour)
        if "ci_low" in g:
            ax.fill_between(g["games"], g["ci_low"], g["ci_high"], color=colour, alpha=0.15)
    if chance:
        ax.axhline(chance, color="black", ls="--", lw=1, label="chance 1/P")
    ax.set_xscale("log")
    ax.set_ylim(0, 1)
    ax.set_xlabel("games played")
    ax.set_ylabel("win rate so far (95% CI)")
    ax.legend(fontsize=8)
    _titled(ax, "Convergence of win rates", title)
    fig.tight_layout()
    return fig


def call_accuracy(bluff: pd.DataFrame, title: str = "", order: list[str] | None = None) -> Figure:
    """Share of checks that were right, per agent, with 95% CIs (``seats.bluff_table``)."""
    fig, ax = plt.subplots(figsize=(6.5, _bar_height(len(bluff))))
    b = bluff.dropna(subset=["calls_right"]).copy()
    b.index = b.index.astype(str)
    b = b.loc[_ordered(b.index, order or b.sort_values("calls_right").index[::-1].tolist())[::-1]]
    err = _error_bars(b["calls_right"], b["calls_right_ci_low"], b["calls_right_ci_high"])
    ax.barh(b.index, b["calls_right"], xerr=err, capsize=4,
            color=[agent_colour(a, order) if order else "tab:green" for a in b.index])
    ax.set_xlim(0, 1)
    ax.set_xlabel("checks right (95% CI)")
    _titled(ax, "Call accuracy", title)
    fig.tight_layout()
    return fig


def seat_advantage(seats: pd.DataFrame, title: str = "") -> Figure:
    """Outright win rate per seat index across all agents, 95% CIs, each seat's ``win_share``
    (when the table has it) as a black diamond and the 1/P chance line (from
    ``seats.seat_table``): a first-player advantage at a glance."""
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    s = seats.sort_index()
    err = _error_bars(s["win_rate"], s["ci_low"], s["ci_high"])
    xs = [str(i) for i in s.index]
    ax.bar(xs, s["win_rate"], yerr=err, capsize=4, color="tab:purple",
           label="outright win rate (first place alone)")
    top = [float(np.nanmax(s["ci_high"])) if len(s) else 0.0]
    if "win_share" in s:
        ax.plot(xs, s["win_share"], ls="none", marker="D", color="black", ms=6, zorder=3,
                label=WIN_SHARE_LABEL)
        top.append(float(np.nanmax(s["win_share"])) if len(s) else 0.0)
    if "chance" in s and len(s):
        ax.axhline(float(s["chance"].iloc[0]), color="black", ls="--", lw=1, label="chance 1/P")
        top.append(float(s["chance"].iloc[0]))
    _legend_below(ax)
    ax.set_xlabel("seat (0 = first in the seating)")
    ax.set_ylabel("win rate (95% CI)")
    ax.set_ylim(0, max(1e-3, max(top) * 1.15))
    _titled(ax, "Win rate per seat, all agents", title)
    fig.tight_layout()
    return fig


def sweep_lines(table: pd.DataFrame, key: str, metric: str = "win_rate", title: str = "",
                order: list[str] | None = None, by: str = "agent") -> Figure:
    """``metric`` against the swept value ``key`` (from ``sweeps.sweep_table`` or
    ``sweeps.sweep_seat_table``), one line per ``by`` value (and per combination of the
    other swept keys), with the ``ci_low``/``ci_high`` band when the table has one; for
    ``win_rate`` (outright) the ``win_share`` of each line too (thin, ``x`` marks, same
    colour), so the 1/P line is read against both."""
    shares = metric == "win_rate" and "win_share" in table
    fig, ax = plt.subplots(figsize=(7, 4))
    others = [c for c in table.attrs.get("keys", []) if c != key]
    numeric = pd.api.types.is_numeric_dtype(table[key])
    xs = sorted(table[key].unique().tolist(), key=lambda v: (not numeric, v if numeric else str(v)))
    pos = {v: (v if numeric else i) for i, v in enumerate(xs)}
    names = _ordered(pd.Index(table[by].astype(str).unique()), order)
    groups = table.groupby(others, sort=True) if others else [((), table)]
    styles = ["-", "--", ":", "-."]
    for gi, (gkey, part) in enumerate(groups):
        gkey = gkey if isinstance(gkey, tuple) else (gkey,)
        suffix = ", ".join(f"{k}={v}" for k, v in zip(others, gkey, strict=True))
        for name in names:
            line = part[part[by].astype(str) == name].copy()
            if line.empty:
                continue
            line["_x"] = line[key].map(pos)
            line = line.sort_values("_x")
            colour = agent_colour(name, order or names)
            label = f"{by} {name}" if by == "seat" else name
            ax.plot(line["_x"], line[metric], marker="o", color=colour, ls=styles[gi % 4],
                    label=f"{label} ({suffix})" if suffix else label)
            if metric == "win_rate" and "ci_low" in line:
                ax.fill_between(line["_x"], line["ci_low"], line["ci_high"], color=colour, alpha=0.15)
            if shares:
                ax.plot(line["_x"], line["win_share"], marker="x", color=colour, ls=styles[gi % 4],
                        lw=0.8, alpha=0.8)
    if shares:
        ax.add_line(Line2D([], [], marker="x", color="grey", lw=0.8, label=WIN_SHARE_LABEL))
    if metric == "win_rate" and "chance" in table and table["chance"].nunique() == 1:
        ax.axhline(float(table["chance"].iloc[0]), color="black", ls="--", lw=1,
                   label="chance 1/P")
    if not numeric:
        ax.set_xticks(range(len(xs)), [str(v) for v in xs])
    elif len(xs) <= 20:
        ax.set_xticks(xs, [f"{v:g}" for v in xs])
    ax.set_xlabel(key)
    ax.set_ylabel("outright win rate (95% CI), x: win share" if shares else
                  metric.replace("_", " ") + (" (95% CI)" if metric == "win_rate" else ""))
    ax.legend(fontsize=7, bbox_to_anchor=(1.02, 1), loc="upper left")
    what = f"{metric.replace('_', ' ')} against {key}" + (" per seat" if by == "seat" else "")
    _titled(ax, what, title)
    fig.tight_layout()
    return fig


def throughput_vs_batch(table: pd.DataFrame, title: str = "") -> Figure:
    """Decisions/s against batch size (log-log) from ``benchmarks.engines.bench_engines``: one line
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


def rating_intervals(ratings: pd.DataFrame, title: str = "") -> Figure:
    """Rating per game with its 95% CI (index: game; columns rating, ci_low, ci_high), on the
    evaluation's fixed reference scale (random = 0, dashed)."""
    fig, ax = plt.subplots(figsize=(6.5, _bar_height(len(ratings))))
    r = ratings.iloc[::-1]
    ax.errorbar(r["rating"], r.index.astype(str), xerr=_error_bars(r["rating"], r["ci_low"],
                                                                   r["ci_high"]),
                fmt="o", capsize=4, color="C0")
    ax.axvline(0, color="black", ls="--", lw=1, label="random = 0")
    ax.legend(fontsize=8, loc="lower right")
    ax.set_xlabel("Bradley–Terry rating (400·log10), 95% CI")
    _titled(ax, "Rating per game", title)
    fig.tight_layout()
    return fig


def table_win_rates(card: pd.DataFrame, title: str = "") -> Figure:
    """Win rate per table (rows: game, players, table, win_rate, ci_low, ci_high, fair_share)
    with the scorecard's 95% intervals over deals, each against its chance rate 1/P (black tick)."""
    n = len(card)
    fig, ax = plt.subplots(figsize=(7.5, max(2.5, 0.22 * n + 1.2)))
    c = card.iloc[::-1]
    names = [f"{g} {p}p {t}" for g, p, t in zip(c["game"], c["players"], c["table"], strict=True)]
    y = np.arange(n)
    above = (c["ci_low"] > c["fair_share"]).to_numpy()
    below = (c["ci_high"] < c["fair_share"]).to_numpy()
    colour = np.where(above, "C2", np.where(below, "C3", "C7"))
    ax.barh(y, c["win_rate"], xerr=_error_bars(c["win_rate"], c["ci_low"], c["ci_high"]),
            capsize=2, color=colour)
    ax.scatter(c["fair_share"], y, marker="|", s=200, color="black", label="chance 1/P", zorder=3)
    ax.set_yticks(y, names, fontsize=7)
    ax.set_xlim(0, max(1e-3, float(np.nanmax(c["ci_high"])) * 1.1))
    ax.set_xlabel("outright win rate (95% CI over deals: deal-cluster bootstrap, at least "
                  "Wilson's width)\ngreen: CI above chance, red: below, grey: CI contains chance")
    ax.legend(fontsize=8, loc="lower right")
    _titled(ax, "Win rate per table", title)
    fig.tight_layout()
    return fig


def abr_curve(curve: pd.DataFrame, evals: dict[str, dict[str, float]], players: int,
              title: str = "") -> Figure:
    """Learning curve of an approximate best response (``bluffsim.abr``): the learner's
    win share per PPO iteration (``curve``: decisions, win_share; NaN where no game ended) and
    the evaluated win rates (``evals``: per policy kind, win_rate, ci_low, ci_high) as bands at
    the right, against the fair share 1/P."""
    fig, ax = plt.subplots(figsize=(7, 4.8))
    x = curve["decisions"].to_numpy(float) if len(curve) else np.zeros(0)
    y = curve["win_share"].to_numpy(float) if len(curve) else np.zeros(0)
    ax.plot(x, y, "-o", ms=2.5, lw=1.2, color="C0", label="training: win share per iteration")
    right = float(x.max()) if x.size else 1.0
    _evaluation_bands(ax, evals, [f"C{i + 1}" for i in range(len(evals))], "evaluation", 0.9)
    ax.set_xlim(0, right * 1.12 if right > 0 else 1.0)
    return _response_axes(fig, ax, players, "learner decisions", "Approximate best response",
                          title)


def plateau_curves(curves: pd.DataFrame, marks: pd.DataFrame, fresh: dict[str, dict[str, float]],
                   players: int, final: str = "fresh deals", title: str = "") -> Figure:
    """Best responses run to a plateau (``bluffsim.plateau``): each seed's win share per PPO
    iteration (``curves``: seed, decisions, win_share), its evaluations with 95% CIs at the
    marks (``marks``: seed, decisions, win_rate, ci_low, ci_high), the chosen response's final
    scores (``fresh``: per policy kind; named ``final`` in the legend) as bands at the right and
    the fair share 1/P; learner decisions on a log axis (the marks double)."""
    fig, ax = plt.subplots(figsize=(7.5, 5))
    right = float(curves["decisions"].max()) if len(curves) else 1.0
    for i, seed in enumerate(sorted(curves["seed"].unique()) if len(curves) else []):
        c = curves[curves["seed"] == seed]
        ax.plot(c["decisions"], c["win_share"], lw=0.8, alpha=0.45, color=f"C{i}")
        m = marks[marks["seed"] == seed]
        err = _error_bars(m["win_rate"], m["ci_low"], m["ci_high"])
        ax.errorbar(m["decisions"], m["win_rate"], yerr=err, fmt="o-", ms=4, lw=1.4, capsize=3,
                    color=f"C{i}", label=f"seed {seed}: evaluations")
    _evaluation_bands(ax, fresh, ["black", "grey"], final, 0.92)
    ax.set_xscale("log")
    ax.set_xlim(right=right * 1.6 if right > 0 else 1.0)
    return _response_axes(fig, ax, players, "learner decisions (log)",
                          "Best responses run to a plateau", title)


def _evaluation_bands(ax: plt.Axes, evals: dict[str, dict[str, float]], colours: list[str],
                      what: str, left: float) -> None:
    """Each evaluated win rate (``evals``: per policy kind) as a line in its 95% CI band, from
    ``left`` (a fraction of the axes' width) to the right edge."""
    for (kind, e), colour in zip(evals.items(), colours, strict=False):
        lo, hi = float(e["ci_low"]), float(e["ci_high"])
        ax.axhspan(lo, max(hi, lo + 1e-3), xmin=left, xmax=1.0, color=colour, alpha=0.35)
        ax.axhline(float(e["win_rate"]), xmin=left, xmax=1.0, color=colour, lw=2,
                   label=f"{what}, {kind}: {float(e['win_rate']):.3f} [{lo:.3f}, {hi:.3f}]")


def _response_axes(fig: Figure, ax: plt.Axes, players: int, xlabel: str, what: str,
                   title: str) -> Figure:
    """A best response's win-rate axes finished: the fair share 1/P, the rate axis, labels,
    the legend and the title."""
    ax.axhline(1 / players, color="black", ls="--", lw=1, label=f"fair share 1/{players}")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("win rate of the response")
    _legend_below(ax)
    _titled(ax, what, title)
    fig.tight_layout()
    return fig


def calibration(table: pd.DataFrame, title: str = "", order: list[str] | None = None,
                references: tuple[str, ...] = ("counting", "heuristic")) -> Figure:
    """Call rate against the exact probability that the claim was true, per agent (``table``:
    ``analysis.behaviour.calibration_table`` rows; marker area grows with the bin's decisions).
    Agents whose ``agent_name`` is in ``references`` are drawn dashed as reference curves."""
    fig, ax = plt.subplots(figsize=(7, 5.2))
    ax.plot([0, 1], [1, 0], ls=":", lw=1, color="black", label="doubting with probability 1 − p")
    agents = table["agent"].astype(str) if len(table) else pd.Series(dtype=str)
    names = order or sorted(agents.unique())
    for agent in _ordered(pd.Index(agents.unique()), names):
        t = table[agents == agent].sort_values("p_mean")
        ref = str(t["agent_name"].iloc[0]) in references
        colour = agent_colour(agent, names)
        ax.plot(t["p_mean"], t["call_rate"], ls="--" if ref else "-", lw=2.2 if ref else 1.4,
                color=colour, label=f"{agent} (reference)" if ref else agent)
        ax.scatter(t["p_mean"], t["call_rate"], s=np.clip(t["decisions"].to_numpy(float), 4, 400) ** 0.5 * 3,
                   color=colour, zorder=3)
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("P(claim true | what the player could know), exact odds")
    ax.set_ylabel("call rate (share of claim decisions that doubted)")
    _legend_below(ax)
    _titled(ax, "Call calibration", title)
    fig.tight_layout()
    return fig


def alpharank(masses: pd.DataFrame, title: str = "", highlight: str | None = None) -> Figure:
    """α-Rank's stationary distribution (rows: game, population, agent, mass): one panel per
    game, a bar per agent of each population (``pool`` and, when present, ``pool+subject``),
    largest mass first; ``highlight`` (the agent evaluated) in its own colour."""
    games = list(dict.fromkeys(masses["game"]))
    pops = list(dict.fromkeys(masses["population"]))
    sizes = [masses.loc[masses["game"] == g, "agent"].nunique() for g in games]
    fig, axes = plt.subplots(1, len(games), figsize=(5.5 * len(games), _bar_height(max(sizes))),
                             squeeze=False)
    for ax, game in zip(axes[0], games, strict=True):
        g = masses[masses["game"] == game]
        wide = g.pivot_table(index="agent", columns="population", values="mass", aggfunc="first")
        wide = wide.reindex(columns=[p for p in pops if p in wide.columns])
        wide = wide.sort_values(wide.columns[-1], ascending=True)
        y = np.arange(len(wide))
        h = 0.8 / len(wide.columns)
        for i, pop in enumerate(wide.columns):
            colour = [("C3" if a == highlight else f"C{i}") for a in wide.index]
            ax.barh(y + (i - (len(wide.columns) - 1) / 2) * h, wide[pop].fillna(0), height=h,
                    color=colour, alpha=0.55 + 0.45 * i / max(len(wide.columns) - 1, 1),
                    label=pop)
        ax.set_yticks(y, [str(a) for a in wide.index], fontsize=7)
        ax.set_xlim(0, 1)
        ax.set_xlabel("stationary mass (α-Rank)")
        ax.set_title(game, fontsize=9)
        ax.legend(fontsize=7, loc="lower right")
    fig.suptitle("α-Rank over head-to-head rates" + (f": {title}" if title else ""), fontsize=10)
    fig.tight_layout()
    return fig
