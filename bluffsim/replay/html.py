"""A replayed game as one self-contained HTML file: ``viewer.html`` filled with the game's frames.

The file needs no network (its Content-Security-Policy forbids every fetch): the frames of each
view it holds are JSON in a ``<script type="application/json">`` block and the page's own script
steps through them.  A seat's file holds that seat's view only; a spectator's file holds the
spectator's view and every seat's, chosen with the view selector.  What a view keeps hidden
until the end (``ViewBuilder.reveal``) sits in a block of its own that the script reads only
at the last frame.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from pathlib import Path
from typing import Any

from bluffsim.replay.game import Replayed
from bluffsim.replay.terminal import heading, seat_line
from bluffsim.replay.views import ViewBuilder, view_name, view_note

TEMPLATE = "viewer.html"
SLOTS = ("@@TITLE@@", "@@DATA@@", "@@REVEAL@@")


def script_json(value: Any) -> str:
    """JSON safe inside a ``<script>`` block: no ``<`` (so no ``</script>`` nor ``<!--``)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def viewer_data(r: Replayed, seat: int | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the page's data: heading, views in selector order, shared system prompts; the reveal)."""
    seats = [None, *range(r.players)] if seat is None else [seat]
    prompts: list[str] = []
    builders = {s: ViewBuilder(r, s, prompts) for s in seats}
    views = {view_name(r, s): b.frames() for s, b in builders.items()}
    data = {"meta": {"heading": heading(r), "seats": seat_line(r), "note": view_note(r, seat)},
            "order": list(views), "views": views, "prompts": prompts,
            "omniscient": seat is None}
    return data, builders[seat].reveal()


def viewer_html(r: Replayed, seat: int | None) -> str:
    """The filled viewer page of one view (module docstring)."""
    page = resources.files("bluffsim.replay").joinpath(TEMPLATE).read_text(encoding="utf-8")
    data, reveal = viewer_data(r, seat)
    title = f"bluffsim replay · {r.game_id} game {r.game} · {view_name(r, seat)}"
    for slot, text in zip(SLOTS, (html.escape(title), script_json(data), script_json(reveal)),
                          strict=True):
        page = page.replace(slot, text)
    return page


def write_viewer(r: Replayed, seat: int | None, path: str | Path) -> Path:
    """Write the viewer page to ``path`` (through a temporary file: a failed write leaves no
    half page) and return it."""
    out = Path(path)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(viewer_html(r, seat), encoding="utf-8")
    tmp.replace(out)
    return out
