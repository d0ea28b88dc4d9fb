"""A replayed game in the terminal: every decision in turn from one view, then the reveal."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bluffsim.replay.game import RECORDED, Replayed
from bluffsim.replay.views import ViewBuilder, view_name, view_note


def heading(r: Replayed) -> str:
    """Which game of which table: ``qdv, game 3 of results/x (seed 123)``."""
    return f"{r.game_id}, game {r.game} of {r.source} (seed {r.seed})"


def seat_line(r: Replayed) -> str:
    """Each seat's agent, the seats replayed from their recorded answers marked."""
    return ", ".join(f"seat {i} {x}" + (" (recorded answers)" if k == RECORDED else "")
                     for i, (x, k) in enumerate(zip(r.labels, r.kinds, strict=True)))


def header_lines(r: Replayed, seat: int | None) -> list[str]:
    """Which game, which table, which view."""
    return [f"{heading(r)}: {seat_line(r)}", f"view: {view_name(r, seat)} · {view_note(r, seat)}"]


def frame_lines(frame: dict[str, Any], prompts: list[str], full_prompts: bool = False) -> list[str]:
    """One frame as terminal lines: the decision in words, then, where the view sees the
    decider's side, its table, its choice, a text seat's answers and the exact odds."""
    out = list(frame["lines"])
    decided = frame.get("decided")
    if decided:
        view = decided["view"].splitlines()
        out.append("  the table as the decider saw it:")
        out += [f"    {x}" for x in view if x]
        out.append(f"  chose {decided['chose']}")
    model = frame.get("model")
    if model:
        if full_prompts and model["system"] >= 0:
            out.append("  system prompt:")
            out += [f"    {x}" for x in prompts[model["system"]].splitlines()]
        for k, answer in enumerate(model["answers"]):
            read = model["read"][k] if k < len(model["read"]) else {}
            how = read.get("action") or read.get("reason") or ""
            out.append(f"  answer {k + 1}: {answer!r} -> {read.get('outcome', '?')}"
                       + (f" ({how})" if how else ""))
        if model["outcome"] not in ("ok", ""):
            out.append(f"  decision outcome: {model['outcome']}")
    odds = frame.get("odds")
    if odds:
        out.append(f"  exact odds from the decider's cards: P(claim true) = {odds['p_true']}"
                   + (f", P(exact call right) = {odds['p_exact']}" if odds["p_exact"] else "")
                   + (f"; {odds['truth']}" if odds.get("truth") else ""))
    return out


def print_replay(r: Replayed, seat: int | None, say: Callable[[str], None],
                 full_prompts: bool = False) -> None:
    """Every frame of the view in turn, then the reveal."""
    builder = ViewBuilder(r, seat)
    for line in header_lines(r, seat):
        say(line)
    frames = builder.frames()
    for k, frame in enumerate(frames):
        if 0 < k < len(frames) - 1:
            say(f"[{frame['title']}]")
        elif k:
            say("")
        for line in frame_lines(frame, builder.prompts, full_prompts):
            say(line)
    reveal = builder.reveal()
    say("")
    say(f"=== {reveal['title']}: every hand, shown only after the end ===")
    for line in reveal["lines"]:
        say(line)
