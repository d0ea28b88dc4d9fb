"""Rules object of ``liarsdice`` (Liar's Dice): the test suite's worked-example game.

Options (keyword arguments of ``bluffsim.make("liarsdice", num_players, ...)``), declared
once in ``OPTIONS`` below:

{options}

Every round each seat still in rolls its dice in secret.  Players bid in turn how many dice
on the whole table show one face (``bid 3x5``: at least three fives); every bid is higher than
the one before (a higher quantity, or the same quantity with a higher face).  Instead of
bidding a player may call ``liar``: the dice are shown, and if fewer dice than bid show the
face the bidder loses a die, else the caller does.  The loser opens the next round (or, when
out of dice, the next seat still in).  A seat without dice is out; the last seat with dice
wins, the others place in reverse order of going out.

Action ids: ``(q - 1) * 6 + (f - 1)`` is ``bid <q>x<f>`` (q = 1 .. all dice at the start,
f = 1..6); the last id is ``liar``.
"""

from __future__ import annotations

from dataclasses import dataclass

from bluffsim.options import Option, declare_options, int_option, options_table, validate_options

FACES = 6
FACE_NAMES = tuple(str(f + 1) for f in range(FACES))
PHASE_BID, PHASE_OVER = 0, 1

OPTIONS: tuple[Option, ...] = (
    int_option("num_players", 3, 2, 4, "players at the table"),
    int_option("dice", 2, 1, 3, "dice each player starts with"),
)


@declare_options("liarsdice", OPTIONS)
@dataclass(frozen=True)
class Rules:
    """Validated options of one ``liarsdice`` game (``OPTIONS``)."""

    num_players: int = 3
    dice: int = 2

    __post_init__ = validate_options  # required: declare_options checks it

    @property
    def total_dice(self) -> int:
        """Dice at the table at the start (the largest quantity a bid can name)."""
        return self.num_players * self.dice

    @property
    def liar(self) -> int:
        """The action id of ``liar`` (the last one)."""
        return self.total_dice * FACES

    @property
    def action_names(self) -> tuple[str, ...]:
        """Action names, index = action id."""
        return tuple(f"bid {q}x{f}" for q in range(1, self.total_dice + 1)
                     for f in FACE_NAMES) + ("liar",)


__doc__ = __doc__.replace("{options}", options_table(OPTIONS))
