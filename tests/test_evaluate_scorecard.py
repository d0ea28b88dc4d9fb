"""The evaluation's scorecard read by a person: the per-opponent table (win rate, mean placement
and pairs against each opponent kind, intervals over deals) and the games per table it states."""

from __future__ import annotations

import pandas as pd
import pytest

from bluffsim import evaluate


def _table(players: int, name: str, labels: list[str]) -> evaluate.Table:
    entries = [(label.split("#")[0] if label != evaluate.SUBJECT else "random", label, {})
               for label in labels]
    seats = tuple(evaluate.unique_seats(entries))
    return evaluate.Table("qdv", players, name, seats)


def _games(rows: list[tuple[int, int, list[tuple[str, int]]]]) -> pd.DataFrame:
    """(game, seed, [(agent label, placement) per seat]) -> a games frame as a table writes it."""
    return pd.DataFrame([{"game": g, "seed": seed, "seat": s, "agent": a, "placement": p}
                         for g, seed, seats in rows for s, (a, p) in enumerate(seats)])


S = evaluate.SUBJECT


@pytest.fixture
def battery():
    """Three small tables: random alone at 2 players, a mixed 3-player table, and two copies of
    random (labels random, random#2) at 3 players."""
    tables = [_table(2, "random", [S, "random"]), _table(3, "mixed", [S, "heuristic", "random"]),
              _table(3, "random", [S, "random", "random#2"])]
    played = {
        tables[0].key: _games([(0, 10, [(S, 1), ("random", 2)]), (1, 10, [(S, 1), ("random", 2)]),
                               (2, 11, [(S, 2), ("random", 1)]), (3, 11, [(S, 1), ("random", 2)])]),
        tables[1].key: _games([(0, 20, [(S, 1), ("heuristic", 2), ("random", 3)]),
                               (1, 20, [(S, 3), ("heuristic", 1), ("random", 2)])]),
        tables[2].key: _games([(0, 30, [(S, 2), ("random", 1), ("random#2", 3)])]),
    }
    return tables, played


def test_the_opponent_table_gives_win_rate_and_placement_per_opponent_kind(battery):
    tables, played = battery
    versus = evaluate.opponents_table(tables, played, {}).set_index("opponent")
    assert set(versus.index) == {"random", "heuristic"}          # random#2 is random
    rnd = versus.loc["random"]
    # random sat in 4 + 2 + 1 games (the two copies at the last table count the game once)
    assert rnd["games"] == 7 and rnd["win_rate"] == pytest.approx(4 / 7)
    assert rnd["mean_placement"] == pytest.approx((1 + 1 + 2 + 1 + 1 + 3 + 2) / 7)
    assert rnd["fair_share"] == pytest.approx((4 / 2 + 2 / 3 + 1 / 3) / 7)
    assert rnd["pairs"] == 8 and rnd["ahead"] == pytest.approx(5 / 8)
    heu = versus.loc["heuristic"]
    assert heu["games"] == 2 and heu["win_rate"] == 0.5 and heu["mean_placement"] == 2.0
    for lo, mid, hi in (("win_low", "win_rate", "win_high"), ("ahead_low", "ahead", "ahead_high")):
        assert ((versus[lo] <= versus[mid]) & (versus[mid] <= versus[hi])).all()
        assert ((versus[lo] >= 0) & (versus[hi] <= 1)).all()
    md = evaluate.opponents_markdown(versus.reset_index())
    assert "| game | opponent | reference rating | games | win rate | 95% CI | 1/P | mean place" in md
    assert "| qdv | random |  | 7 | 0.571 |" in md


def test_the_scorecard_states_the_games_each_table_played():
    """``--table-games 60`` under the quick budget: the scorecard says 60, not the budget's 240."""
    table = _table(2, "random", [S, "random"])
    rows = [(g, 100 + g // 2, [(S, 1 + g % 2), ("random", 2 - g % 2)]) for g in range(60)]
    played = {table.key: _games(rows)}
    card = evaluate.scorecard([table], played)
    ratings = pd.DataFrame({"game": ["qdv"], "rating": [0.0], "se": [1.0], "ci_low": [-2.0],
                            "ci_high": [2.0], "pairs": [60]})
    subject = evaluate.parse_subject("random")
    md = evaluate.markdown_card(subject, "quick", card, ratings, {}, 1.0)
    assert "budget `quick` (60 games per table)" in md and "240" not in md
