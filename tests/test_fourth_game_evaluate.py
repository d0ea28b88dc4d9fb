"""``bluffsim evaluate`` with the test-suite fourth game (issue 27 item 5): a game whose only
built-in agent is ``random`` gets the tables its agents can play (no heuristic or counting
table), a scorecard and a rating, from the command line."""

from __future__ import annotations

import pandas as pd

import agents
from bluffsim.cli import main

GAME = "liarsdice"


def test_evaluate_plays_the_tables_a_new_games_agents_can_play(tmp_path, capsys) -> None:
    assert "heuristic" not in [n for n in agents.list_agents()
                               if GAME in agents.REGISTRY.get(n, {})]
    out = tmp_path / "out"
    code = main(["evaluate", "random", "--game", GAME, "--table-games", "60", "--out", str(out),
                 "--leaderboard", str(tmp_path / "lb.csv"), "--reference-dir",
                 str(tmp_path / "ref"), "--quiet"])
    assert code == 0, capsys.readouterr().err
    card = pd.read_csv(out / "scorecard.csv")
    tables = card[card["table"] != "overall"]
    assert set(tables["game"]) == {GAME} and set(tables["table"]) == {"random"}
    assert sorted(tables["players"].astype(int)) == [2, 3, 4]
    assert (tables["games"] == 60).all() and (tables["deals"] > 0).all()
    assert ((tables["ci_low"] <= tables["win_rate"]) & (tables["win_rate"] <= tables["ci_high"])).all()
    assert (out / "scorecard.md").read_text().count(f"| {GAME} |") >= 3
    assert pd.read_csv(out / "ratings.csv")["game"].tolist() == [GAME]
