"""A replayed game as one viewer saw it: the frames the terminal and the HTML viewer show.

A view is one seat's (``seat=K``) or a spectator's (``seat=None``, every hand shown and
labelled so).  ``frames`` gives one frame per moment — the deal, every decision, the end —
each a JSON-ready dict:

* ``title``: ``decision 12 · round 3 · seat 2 (counting)``, ``the deal``, ``game over``;
* ``actor``: the deciding seat (-1 for the deal and the end); ``round``: the round under way
  (0 at the end);
* ``lines``: the decision in words as the viewer saw it (the game's display: ``describe``);
* ``table``: the table afterwards: the seat's own status (its observation), or every hand;
* ``decided``: where the viewer may see the decision from inside: ``view`` (the decider's text
  view, the legal actions listed) and ``chose``;
* ``model``: a text seat's decision there: ``system`` (an index into ``prompts``),
  ``messages``, ``answers``, ``read``, ``outcome``;
* ``odds``: facing a claim with a doubt legal, the exact odds from the decider's observation
  (and, for a spectator, whether the claim was true).

**A seat's frames are built from its own observations only** (``SingleGame.observation``:
its information set) and the *public* part of the other seats' action names
(``GameDisplay.public_action``), plus its own transcript lines; never from a state's hidden
fields, so re-dealing every card the seat cannot see leaves them unchanged (tested).  The
other seats' prompts and odds are not in them (those are built from their cards).  What the
seat could not see is the **reveal** (``reveal``): the deal and the hands at the end, and the
final screen, kept apart so a viewer shows it only after the last decision.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from bluffsim.games.display import Event, GameDisplay
from bluffsim.play import SPECTATOR, display_for
from bluffsim.replay.game import RECORDED, Replayed, Step


def view_name(r: Replayed, seat: int | None) -> str:
    """``seat 2 (counting)`` or ``spectator``."""
    return "spectator" if seat is None else f"seat {seat} ({r.labels[seat]})"


def view_note(r: Replayed, seat: int | None) -> str:
    """What the view shows, in one line."""
    if seat is None:
        return (f"{SPECTATOR} every hand and every face-down card is shown: no player at the "
                "table saw all this")
    return (f"seat {seat}'s view: only what seat {seat} ({r.labels[seat]}) could see; its own "
            "cards, the public table and history; the other hands are revealed after the end")


class ViewBuilder:
    """Frames of one view of a replayed game (module docstring)."""

    def __init__(self, r: Replayed, seat: int | None, prompts: list[str] | None = None):
        from bluffsim.analysis.odds import claims_for
        from bluffsim.text import protocol_for

        self.r, self.seat = r, seat
        self.omniscient = seat is None
        self.single = r.single
        self.display: GameDisplay = display_for(r.game_id, self.single.rules, r.labels,
                                                0 if seat is None else seat, self.omniscient)
        self.protocol = protocol_for(self.single.vectorised(), list_legal=True)
        claims = claims_for(r.game_id)
        self.claims = claims if claims is not None and claims.has_odds else None
        responses = self.claims.responses(self.single.rules) if self.claims else {}
        self.doubts = {a for a, k in responses.items() if k == "doubt"}
        # system prompts of text seats, each kept once (shared by the views of one file)
        self.prompts: list[str] = [] if prompts is None else prompts
        self.shown: dict[str, str] = {}   # spectator: the hands last shown

    # -------------------------------------------------------- what the viewer may see
    def obs(self, state: Any, seat: int) -> dict[str, np.ndarray]:
        """``seat``'s observation (its information set) in ``state``."""
        return self.single.observation(state, seat)

    def sees_inside(self, step: Step) -> bool:
        """The viewer may see this decision from the decider's side (its cards, prompt, odds)."""
        return self.omniscient or step.seat == self.seat

    # -------------------------------------------------------- frames
    def frames(self) -> list[dict[str, Any]]:
        """The deal, every decision, the end."""
        out = [self.deal_frame()]
        out += [self.step_frame(s) for s in self.r.steps]
        out.append(self.end_frame())
        return out

    def deal_frame(self) -> dict[str, Any]:
        """Before the first decision: the opening lines and the table."""
        start = self.r.start
        first = int(start.current_player) if not start.done else 0
        lines = list(self.display.opening(self.obs(start, first if self.omniscient else self.seat)))
        if self.omniscient:
            lines.append(f"{SPECTATOR} hands: {self.display.hands_line(start)}")
            self.shown = dict(self.display.hands_parts(start))
        return {"title": "the deal", "actor": -1, "round": 1, "lines": lines,
                "table": self.table(start)}

    def step_frame(self, step: Step) -> dict[str, Any]:
        """One decision as the viewer saw it."""
        observer = step.seat if self.omniscient else self.seat
        before, after = self.obs(step.before, observer), self.obs(step.after, observer)
        own = self.sees_inside(step)
        name = step.name if own else self.display.public_action(step.name)
        ev = Event(actor=step.seat, name=name, viewer=observer, before=before, after=after,
                   omniscient=self.omniscient,
                   state_before=step.before if self.omniscient else None,
                   state_after=step.after if self.omniscient else None)
        lines = list(self.display.describe(ev))
        if self.omniscient:
            changed = self.changed_hands(step.after)
            if changed:
                lines.append(f"  {SPECTATOR} changed: {self.display.hands_line(step.after, changed)}")
        frame: dict[str, Any] = {
            "title": f"decision {step.decision + 1} · round {step.round} · "
                     f"{self.display.who(step.seat)}",
            "actor": step.seat, "round": step.round, "lines": lines,
            "table": self.table(step.after)}
        if own:
            frame.update(self.inside(step, before))
        return frame

    def end_frame(self) -> dict[str, Any]:
        """After the last decision: the places (the hands are the reveal's)."""
        r = self.r
        order = sorted(range(r.players), key=lambda i: (r.placements[i], i))
        lines = [f"game over after {self.display.count(r.rounds, 'round')}"
                 + (" (cut by the safety cap)" if r.final.truncated else "")]
        lines += [f"  {self.display.who(i)}: place {r.placements[i]}"
                  + (" (forfeited: placed last)" if i in r.forfeit else "") for i in order]
        lines.append(f"replayed exactly: {r.checked}")
        return {"title": "game over", "actor": -1, "round": 0, "lines": lines,
                "table": self.table(r.final)}

    # -------------------------------------------------------- parts of a frame
    def table(self, state: Any) -> list[str]:
        """The table after a moment: the seat's own status, or every hand for a spectator."""
        if self.omniscient:
            return [f"{k}: {v}" for k, v in self.display.hands_parts(state)]
        return list(self.display.status(self.obs(state, self.seat)))

    def inside(self, step: Step, obs: dict[str, np.ndarray]) -> dict[str, Any]:
        """The decider's side of a decision: its text view, its choice, a text seat's
        conversation and the exact odds of the claim it faced."""
        mask = np.zeros(self.single.num_actions, bool)
        mask[step.legal] = True
        out: dict[str, Any] = {"decided": {
            "view": self.protocol.view(obs, mask),
            "chose": f"{self.protocol.action_text(step.action)}: "
                     f"{self.display.action_label(step.name, obs)}"}}
        if step.text is not None and self.r.kinds[step.seat] == RECORDED:
            out["model"] = self.model(step.text)
        odds = self.odds(step, obs)
        if odds is not None:
            out["odds"] = odds
        return out

    def model(self, line: dict[str, Any]) -> dict[str, Any]:
        """A transcript decision line for the viewer (the system prompt kept once)."""
        messages = [dict(m) for m in line.get("messages", [])]
        system = -1
        if messages and messages[0].get("role") == "system":
            text = str(messages.pop(0).get("content", ""))
            if text not in self.prompts:
                self.prompts.append(text)
            system = self.prompts.index(text)
        return {"system": system, "messages": messages, "answers": list(line.get("answers", [])),
                "read": list(line.get("read", [])), "outcome": str(line.get("outcome", "")),
                "rethinks": int(line.get("rethinks", 0))}

    def odds(self, step: Step, obs: dict[str, np.ndarray]) -> dict[str, Any] | None:
        """The exact odds of the standing claim from the decider's observation, when a doubt is
        legal; a spectator also sees whether the claim was true."""
        if self.claims is None or not self.doubts & set(step.legal):
            return None
        o = self.claims.odds(self.single.rules, obs)
        if o is None:
            return None
        out: dict[str, Any] = {"p_true": fraction_text(o.true),
                               "p_exact": fraction_text(o.exact) if o.exact is not None else ""}
        if self.omniscient:
            stand = self.claims.standing(self.single.engine, step.before, step.seat)
            if stand is not None:
                out["truth"] = (f"seat {stand.claimant}'s claim was "
                                f"{'true' if stand.true else 'false'}"
                                + ("" if stand.exact is None else
                                   f"; an exact call would have been {'right' if stand.exact else 'wrong'}"))
        return out

    def changed_hands(self, state: Any) -> list[tuple[str, str]]:
        """Spectator: the hands (and hidden piles) that changed since last shown; a pile that
        emptied reads ``none``, a seat no longer in play ``out``."""
        prev, now = self.shown, dict(self.display.hands_parts(state))
        self.shown = now
        keys = [*now, *(k for k in prev if k not in now)]
        return [(k, now.get(k, "out" if k.startswith("seat ") else "none")) for k in keys
                if prev.get(k) != now.get(k, "out" if k.startswith("seat ") else "none")]

    # -------------------------------------------------------- the reveal
    def reveal(self) -> dict[str, Any]:
        """What the view kept hidden until the end: the deal, the hands at the end and the final
        screen (every seat's cards)."""
        spectator = display_for(self.r.game_id, self.single.rules, self.r.labels, 0, True)
        return {"title": "the reveal",
                "lines": [f"the deal: {spectator.hands_line(self.r.start)}",
                          f"at the end: {spectator.hands_line(self.r.final)}",
                          *spectator.final(self.r.final, self.r.rounds)]}


def fraction_text(p: Fraction) -> str:
    """``0.423 (11/26)``."""
    return f"{float(p):.3f} ({p.numerator}/{p.denominator})"


def frames(r: Replayed, seat: int | None) -> tuple[list[dict[str, Any]], list[str]]:
    """(frames, system prompts the frames' ``model`` entries point to) of one view."""
    b = ViewBuilder(r, seat)
    return b.frames(), b.prompts


def reveal(r: Replayed, seat: int | None) -> dict[str, Any]:
    """The reveal of one view (``ViewBuilder.reveal``)."""
    return ViewBuilder(r, seat).reveal()
