"""legumes ``heuristic``: play the called vegetable if you hold it, else shed cheaply; accuse
when you hold many of the called vegetable.

- open: call the vegetable I hold most of and open with its highest card;
- play: the called vegetable's highest card if I hold one; else, when I hold
  two or more of another vegetable and have the Vegetable choice card, call
  that vegetable; else, holding the Reverse, shed my worst card face down with
  it (``reverse <card>``: the next player may not accuse it; worst = most
  points, among action cards Double, then a second Reverse, then Choice, then
  Bomb, which is kept as a trap); else lie with an action card face down —
  Double, then Choice, then Bomb — and only without one with my cheapest
  vegetable.  I lie anyway here, action cards only cost points (10 each at
  the end) and a lie with one costs what a lie with a 1 costs
  (``action_lie_penalty``, one card drawn if accused; a Bomb punishes the
  accuser instead), so I shed them: it costs a few wins (a Bomb kept to the
  end is a sure finish) and no longer places me below random at 4–6 players
  (the robustness ladder). At 2 players (``keeps``) the Bomb and the Double are finishers instead: a Bomb
  as my last card cannot be beaten (accepted I am out; accused, the accuser takes the pile
  and my hand is empty), the Double as my last card ends the game when I accuse a lie with
  it (rules.py: a Double accusation that costs nothing). So at 2 players I never lie with
  them nor shed them with the Reverse while the Choice or a vegetable can go instead (lie:
  Choice, then the cheapest vegetable; reverse: the most points among vegetables, then
  Reverse/Choice); with only the Bomb and the Double left the Bomb goes first (measured, 600
  games against ``learned``: keeping the Double last wins 0.46, the Bomb last 0.07). This
  lifts the heuristic against ``learned`` from 0.01 to 0.46. At 3–6 players the condition
  "my hand is at most the smallest other hand plus ``KEEP_MARGIN``" was tried (400 games a
  table): against random it wins more (margin 0: 3p 0.63, 4p 0.53, 5p 0.41, 6p 0.38 against
  0.57, 0.50, 0.38, 0.39 without), but it costs points and counting (which plays with these
  rules) then loses the mean placement to ``accuse_rate=0`` at 5–6 players, so
  ``KEEP_MARGIN`` is None (2 players only).
  A last card that can go down face up (Reverse alone, Vegetable
  choice) goes down face up: that ends the game with my hand empty;
- accuse when I hold at least ``accuse_at`` cards of the vegetable the last
  card was played as (with the Double accusation at ``double_at``), and
  otherwise with probability ``accuse_rate`` — but only when a Bomb would not
  hand me more cards than the accused still holds (the discard pile plus this
  round's cards at most the accused's hand size).  A revealed Bomb gives the
  accuser the whole pile (~40 cards late in a 4-player game); without this
  guard the accusing variants (``accuse_at=1``, ``accuse_rate=0.5``) placed
  below random at 3–6 players (the robustness ladder).  The parameters keep their meaning:
  the guard is the same for every value;
- facing a player's last face-down card (``accept`` is legal): accept only when
  there are 3+ players and I am sure to finish second (my score is at most
  every other player's hand size, a lower bound of their score); otherwise
  accuse (doubled at ``double_at``, or at 2 players when the Double is my last card: a
  lie then empties my hand and I win, anything else ends the game anyway), the only way
  to keep the game going.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent, Traits, integer, probability, register_agent
from bluffsim.games.legumes import rules as R
from bluffsim.rng import AgentRNG

VEG_OF = np.repeat(np.arange(R.NUM_VEG), 3)
NUMBER = np.tile(np.arange(1, 4), R.NUM_VEG)
POINTS = np.asarray(R.CARD_POINTS, dtype=np.int64)
# the card shed with ``reverse <card>``: most points first; among action cards
# Double, a second Reverse, Choice, then the Bomb (better kept as a trap)
SHED_RANK = np.concatenate([NUMBER, [10, 12, 13, 14]])
# the action card played face down as a lie (no Reverse to shed it with): Double, Choice, then
# the Bomb (a trap, and a sure finish as the last card, so it goes last)
LIE_RANK = np.asarray([1, 2, 0, 3])
# in the race (``keeps``) the Bomb and the Double are finishers, never shed: the Choice lies
# first, then the cheapest vegetable; a reverse sheds vegetables (most points) before them
KEEP_SHED_RANK = np.concatenate([NUMBER, [0, 12, 13, 0]])
KEEP_LIE_RANK = np.asarray([-1, 2, 0, -1])


@register_agent("legumes")
class LegumesHeuristic(Agent):
    """Rule-of-thumb legumes player (see the module docstring)."""

    # both extremes of every parameter worth varying: the variants ``bluffsim evaluate`` and
    # the robustness ladders seat (``bluffsim.evaluate.heuristic_extremes``)
    EXTREMES = {"accuse_at": (1, 6), "double_at": (2, 8), "accuse_rate": (0.0, 0.5)}
    name = "heuristic"
    traits = Traits(stochastic=True)
    params = {"accuse_at": 3, "double_at": 5, "accuse_rate": 0.15}
    KEEP_MARGIN: int | None = None
    spec = {
        "accuse_at": integer(0, doc="accuse when holding this many of the called vegetable"),
        "double_at": integer(0, doc="double accusation when holding this many"),
        "accuse_rate": probability("chance of accusing anyway"),
    }

    def act(self, obs: dict[str, np.ndarray], legal_mask: np.ndarray, rng: AgentRNG) -> np.ndarray:
        """One action per game, by phase."""
        c = self.config
        b = legal_mask.shape[0]
        rows = np.arange(b)
        u = rng.uniform(1)[:, 0]
        hand = obs["hand"].astype(np.int64)
        veg_cards = hand[:, :R.BOMB].reshape(b, R.NUM_VEG, 3)
        per_veg = veg_cards.sum(axis=2)
        # highest held card of each vegetable (type index), -1 if none
        top = np.where(veg_cards[:, :, 2] > 0, 2, np.where(veg_cards[:, :, 1] > 0, 1,
                                                             np.where(veg_cards[:, :, 0] > 0, 0, -1)))
        best = per_veg.argmax(axis=1)
        open_card = np.where(top[rows, best] >= 0, best * 3 + top[rows, best],
                             hand.argmax(axis=1))
        opening = R.OPEN0 + open_card * R.NUM_VEG + best
        called = np.maximum(obs["called"].astype(np.int64), 0)
        have_called = top[rows, called] >= 0
        play_called = R.PLAY0 + called * 3 + np.maximum(top[rows, called], 0)
        cheap_score = np.where(hand[:, :R.BOMB] > 0, NUMBER[None, :], 99)
        # no vegetable: argmax picks the Bomb on a tie with the Double (the Double kept last)
        no_veg = hand.argmax(axis=1)
        cheapest = np.where(cheap_score.min(axis=1) < 99, cheap_score.argmin(axis=1), no_veg)
        # a lie with an action card costs what a lie with a 1 costs (one card drawn) but sheds
        # 10 points: lie with one first (Double, Choice, Bomb), else the cheapest vegetable
        size = hand.sum(axis=1)
        keep = self.keeps(obs, size)[:, None]
        act_score = np.where(hand[:, R.BOMB:] > 0, np.where(keep, KEEP_LIE_RANK, LIE_RANK), -1)
        cheapest = np.where(act_score.max(axis=1) >= 0, R.BOMB + act_score.argmax(axis=1), cheapest)
        switch = (~have_called & (hand[:, R.CHOICE] > 0) & (per_veg.max(axis=1) >= 2))
        shed_ok = legal_mask[:, R.REVERSE_PLAY0:]
        worst = np.where(shed_ok, np.where(keep, KEEP_SHED_RANK, SHED_RANK), -1).argmax(axis=1)
        shed = shed_ok.any(axis=1)
        lie = np.where(shed, R.REVERSE_PLAY0 + worst, R.PLAY0 + cheapest)
        play = np.where(have_called, play_called, np.where(switch, R.CHOICE0 + best, lie))
        last_choice = (size == 1) & (hand[:, R.CHOICE] == 1)
        play = np.where(legal_mask[:, R.REVERSE_ID] & (size == 1), R.REVERSE_ID,
                        np.where(last_choice, R.CHOICE0 + best, play))
        last_veg = np.maximum(obs["last_called"].astype(np.int64), 0)
        many = per_veg[rows, last_veg]
        # a Bomb would hand me the pile: risk it only when the pile is no bigger than the
        # accused's hand (facing a last card the heuristic accuses anyway, below)
        pile = (obs["discard_size"].astype(np.int64) + obs["face_down_count"]
                + obs["face_up"].sum(axis=1))
        owner = np.maximum(obs["last_owner"].astype(np.int64), 0)
        safe = pile <= obs["hand_sizes"][rows, owner]
        accuse = legal_mask[:, R.ACCUSE] & safe & ((many >= c["accuse_at"]) | (u < c["accuse_rate"]))
        double = accuse & legal_mask[:, R.ACCUSE_DOUBLE] & (many >= c["double_at"])
        act_play = np.where(double, R.ACCUSE_DOUBLE, np.where(accuse, R.ACCUSE, play))
        act_play = np.where(legal_mask[:, R.ACCEPT], self.facing_last_card(obs, legal_mask, many),
                            act_play)
        return np.where(obs["phase"] == R.PHASE_OPEN, opening, act_play)

    def keeps(self, obs: dict[str, np.ndarray], size: np.ndarray) -> np.ndarray:
        """bool[B]: in the race, so the Bomb and the Double are kept as finishers (module
        docstring): always at 2 players, at 3+ when my hand is at most the smallest other hand
        plus ``KEEP_MARGIN`` (never when it is None)."""
        sizes = obs["hand_sizes"].astype(np.int64)
        b, p = sizes.shape
        if p <= 2:
            return np.ones(b, dtype=bool)
        if self.KEEP_MARGIN is None:
            return np.zeros(b, dtype=bool)
        me = np.arange(p)[None, :] == np.maximum(obs["seat"].astype(np.int64), 0)[:, None]
        return size <= np.where(me, np.iinfo(np.int64).max, sizes).min(axis=1) + self.KEEP_MARGIN

    def facing_last_card(self, obs: dict[str, np.ndarray], legal_mask: np.ndarray,
                         many: np.ndarray) -> np.ndarray:
        """Accept only when sure to finish second at a table of 3+; otherwise accuse."""
        sizes = obs["hand_sizes"].astype(np.int64)
        b, p = sizes.shape
        seats = np.arange(p)[None, :]
        me = np.maximum(obs["seat"].astype(np.int64), 0)[:, None]
        owner = obs["pending"].astype(np.int64)[:, None]
        others = np.where((seats == me) | (seats == owner), np.iinfo(np.int64).max, sizes)
        my_score = obs["hand"].astype(np.int64) @ POINTS
        sure_second = (p >= 3) & (my_score <= others.min(axis=1))
        accept = sure_second | ~legal_mask[:, R.ACCUSE]
        # at 2 players with the Double as my last card doubling costs nothing (the game ends
        # either way unless the card is a lie, and then my hand is empty: I win)
        hand = obs["hand"].astype(np.int64)
        last_double = (p == 2) & (hand[:, R.DOUBLE] == hand.sum(axis=1))
        double = legal_mask[:, R.ACCUSE_DOUBLE] & ((many >= self.config["double_at"]) | last_double)
        return np.where(accept, R.ACCEPT, np.where(double, R.ACCUSE_DOUBLE, R.ACCUSE))
