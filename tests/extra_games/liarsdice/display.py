"""Terminal text of ``liarsdice`` for ``bluffsim play``: every bid is public; a call shows the
count of the bid face (each seat sees its own dice, a spectator every cup)."""

from __future__ import annotations

from typing import Any

import numpy as np

from bluffsim.games.display import Event, GameDisplay
from bluffsim.games.liarsdice import rules as R


def _i(x: Any) -> int:
    return int(np.asarray(x))


def bid_text(quantity: int, face: int) -> str:
    """``3 × 5`` (``face`` 0-based)."""
    return f"{quantity} × {R.FACE_NAMES[face]}"


class LiarsDiceDisplay(GameDisplay):
    """Wording of ``liarsdice`` for the terminal."""

    card_names = R.FACE_NAMES

    def action_label(self, name: str, obs: dict[str, np.ndarray]) -> str:
        """``bid 3 × 5`` or ``call liar on seat 1's bid``."""
        if name == "liar":
            return f"call liar on {self.poss(_i(obs['bidder']))} bid"
        q, f = name.split()[1].split("x")
        return f"bid {q} × {f}"

    def status(self, obs: dict[str, np.ndarray]) -> list[str]:
        """Round, dice per seat, the current bid, then my dice."""
        dice = np.asarray(obs["dice_left"])
        lines = [f"round {_i(obs['num_rounds']) + 1} · dice: "
                 + " · ".join(f"{self.seat_short(i)} {int(n)}" for i, n in enumerate(dice))]
        q = _i(obs["bid_quantity"])
        lines.append("no bid yet" if q < 0 else
                     f"current bid: {bid_text(q, _i(obs['bid_face']))} by "
                     f"{self.seat_short(_i(obs['bidder']))}")
        lines.append(f"your dice: {self.cards(obs['hand'])}")
        return lines

    def describe(self, ev: Event) -> list[str]:
        """A bid, or a call and its outcome in one sentence."""
        who = self.who(ev.actor)
        if ev.name != "liar":
            q, f = ev.name.split()[1].split("x")
            return [f"{who}: bids {q} × {f}"]
        caller, bidder, q, face, count, loser = np.asarray(ev.after["last_reveal"]).tolist()
        lines = [f"{who}: calls liar on {self.poss(bidder)} bid",
                 f"round {_i(ev.before['num_rounds']) + 1} over: {self.count(count, 'die')} "
                 f"showed {R.FACE_NAMES[face]} (bid {q}); {self.does(loser, 'lose')} a die."]
        if _i(ev.after["phase"]) == R.PHASE_OVER:
            lines.append("the game is over: one seat has dice left")
        return lines

    def final(self, state: Any, rounds: int | None = None) -> list[str]:
        """Every seat: place and dice left."""
        lines = [self.game_over(state.num_rounds if rounds is None else rounds)]
        for i in sorted(range(state.num_players), key=lambda i: (state.placements[i], i)):
            lines.append(f"  {self.who(i)}: place {state.placements[i]} · "
                         f"dice left {state.dice_left[i]}")
        return lines


DISPLAY = LiarsDiceDisplay
