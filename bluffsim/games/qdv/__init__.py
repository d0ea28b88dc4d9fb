"""``qdv`` — Qui dit vrai ?: liar's-dice-style bidding over hidden fruit cards."""

from typing import Any

import numpy as np

from bluffsim.games.qdv import observe, reference
from bluffsim.games.qdv.rules import Rules
from bluffsim.games.qdv.vec import QdvGame, QdvState
from bluffsim.games.spec import GameSpec, RoundMetric

NAME = "Qui dit vrai ?"
SUMMARY = "liar's-dice-style bidding over hidden fruit cards, exact calls, token elimination"


def claim_false(rounds: Any) -> Any:
    """The round's final bid was above the true count (what ``menteur`` asserts)."""
    return rounds["true_count"] < rounds["bid_count"]


def bid_above_own_evidence(rounds: Any) -> Any:
    """The round's final bid was above what the bidder's own cards showed."""
    return rounds["bid_count"] > rounds["bidder_own"]


def settled(st: Any, rows: np.ndarray, seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A seat with 0 tokens is out, its place fixed (everyone with tokens ranks above it, the
    seats that hit 0 earlier below, the same event shares): pseudo placements from that order."""
    tok = st.tokens[rows].astype(np.int64)
    score = np.where(tok > 0, np.int64(1) << 40, st.zero_time[rows].astype(np.int64))
    return tok[np.arange(rows.size), seats] == 0, score


def potential(st: Any, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """The seat's share of the tokens in play (1 for the last player with tokens)."""
    tok = st.tokens[rows].astype(np.float64)
    return (tok[np.arange(rows.size), seats] / np.maximum(tok.sum(axis=1), 1.0)).astype(np.float32)


# tiny variants (2 players, 1 token, one round, no challenge cards, a reduced deck) with a few
# explicit deals, small enough for CFR (bluffsim.adapters.exploit): qdv-tiny is nearly degenerate
# (saying vrai at once is an equilibrium move) and serves the tests; qdv-small (two x1 cards per
# fruit, one salad, 8 deals: 2,520 positions, 948 information states) is the one worth reading,
# with weights trained on its rules (experiments/train_qdv_small.toml)
EXPLOIT_PRESETS = (
    ("qdv-tiny", {"players": 2, "deals": 2,
                  "options": {"starting_tokens": 1, "fruit_multipliers": [1, 2], "salads": 0,
                              "challenge_deck": [], "max_rounds": 1}}),
    ("qdv-small", {"players": 2, "deals": 8,
                   "options": {"starting_tokens": 1, "fruit_multipliers": [1, 1], "salads": 1,
                               "challenge_deck": [], "max_rounds": 1},
                   "learned": "qdv_small_2p.npz", "default": True}),
)


def max_game_length(rules: Rules) -> int:
    """Decisions of one game at most: per round a start choice, at most max_count + 1 bids,
    a call, the salad declarations and a reward, for at most ``max_rounds`` rounds."""
    return rules.max_rounds * (rules.max_count + rules.num_players + 5)


SPEC = GameSpec(
    game_id="qdv", name=NAME, summary=SUMMARY, rules=Rules, engine=QdvGame, reference=reference,
    observation=observe, display="bluffsim.games.qdv.display",
    seat_columns=("caller", "bidder", "loser", "gainer"), claim_seat="bidder",
    claim_false=claim_false,
    claim_columns=("true_count", "bid_count"), max_game_length=max_game_length,
    streams=("DEAL", "CHALLENGE_DECK", "EFFECT"),
    test_tables=((2, (), ""), (4, (), ""), (6, (), "")),
    round_metrics=(RoundMetric("final_bids", "bid_above_own_evidence", "bidder",
                               bid_above_own_evidence, ("bid_count", "bidder_own")),),
    play_seats="human,counting,heuristic", watch_seats="counting,heuristic,random",
    settled=settled, potential=potential, exploit_presets=EXPLOIT_PRESETS,
)

__all__ = ["NAME", "SPEC", "SUMMARY", "QdvGame", "QdvState", "Rules"]
