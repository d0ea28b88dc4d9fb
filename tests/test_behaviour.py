"""Behaviour against the exact odds (``bluffsim.analysis.behaviour``): the metrics' definitions on
hand-built games whose bluffs and calls are known, and ``behaviour.csv``, ``calibration.csv`` and
``plots/calibration.png`` written by the report of a run (replayed from its records, checked equal
to them), for every game and the fourth."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from bluffsim.analysis import behaviour as B
from bluffsim.analysis import odds as O
from bluffsim.cli import main
from tests.liarsdice_claims import LiarsDiceClaims

AGENTS = ["alice", "bob", "carol"]


def table_of(decisions: pd.DataFrame, claims: pd.DataFrame, seats: int) -> pd.DataFrame:
    return B.behaviour_table(decisions, claims, pd.Series(1, index=AGENTS[:seats]))


def test_qdv_a_caught_bluff_and_a_passed_true_bid() -> None:
    """bob bids 2 strawberries (true: one each), alice raises to 3 (2 strawberries and no salad in
    hands: a bluff), bob says menteur: caught, a right call; alice passed on a true claim.  The
    odds: alice, holding a strawberry, needs bob's 2 hidden cards (of the 10 she cannot see) to hold
    the other strawberry or the salad, 1 - C(8,2)/C(10,2) = 17/45; bob needs alice's 2 to be both,
    1/45."""
    from bluffsim.games.qdv.reference import scenario

    ref, s = scenario([["strawberry", "grape"], ["strawberry", "cherry"]], centre="banana",
                      tokens=[3, 3], fruit_multipliers=(1, 1), salads=1, challenge_deck=())
    dec, cl = B.scripted("qdv", s, ["+1 strawberry", "+1 strawberry", "menteur"], AGENTS, ref)
    assert cl[["seat", "true", "caught"]].values.tolist() == [[1, True, False], [0, False, True]]
    assert dec[["seat", "claimant", "response", "true"]].values.tolist() == [
        [0, 1, "pass", True], [1, 0, "doubt", False]]
    assert dec["p_true"].tolist() == [pytest.approx(17 / 45), pytest.approx(1 / 45)]
    t = table_of(dec, cl, 2)
    a, b = t.loc["alice"], t.loc["bob"]
    assert (a["claims"], a["bluffs"], a["bluff_rate"], a["bluffs_caught"], a["bluff_success"]) == (
        1, 1, 1.0, 1, 0.0)
    assert (a["decisions"], a["calls"], a["call_rate"], a["brier"]) == (1, 0, 0.0, 0.0)
    assert a["brier_odds"] == pytest.approx((28 / 45) ** 2) and a["p_passed"] == pytest.approx(17 / 45)
    assert (b["bluffs"], b["bluff_rate"], np.isnan(b["bluff_success"])) == (0, 0.0, True)
    assert (b["calls"], b["call_rate"], b["call_accuracy"], b["brier"]) == (1, 1.0, 1.0, 0.0)
    assert b["brier_odds"] == pytest.approx((1 / 45) ** 2) and b["p_called"] == pytest.approx(1 / 45)


def test_qdv_vrai_is_an_exact_call_not_a_doubt() -> None:
    from bluffsim.games.qdv.reference import scenario

    ref, s = scenario([["strawberry", "grape"], ["strawberry", "cherry"]], centre="banana",
                      tokens=[3, 3], fruit_multipliers=(1, 1), salads=1, challenge_deck=())
    dec, cl = B.scripted("qdv", s, ["+1 strawberry", "vrai"], AGENTS, ref)
    assert dec[["response", "true", "exact"]].values.tolist() == [["exact", True, True]]
    # exact when bob holds the other strawberry: 1 - C(9,2)/C(10,2)
    assert dec["p_exact"].tolist() == [pytest.approx(1 / 5)]
    a = table_of(dec, cl, 2).loc["alice"]
    assert (a["calls"], a["exact_calls"], a["exact_accuracy"], bool(cl["caught"][0])) == (0, 1, 1.0,
                                                                                        False)


def test_legumes_an_accused_lie_and_a_true_card_played_on() -> None:
    """alice opens a true carrot; bob plays a leek as a carrot (a bluff); alice accuses: right."""
    from bluffsim.games.legumes.reference import scenario

    ref, s = scenario([["carrot-1", "tomato-2", "bomb"], ["carrot-2", "leek-1", "pea-3"]],
                      draw_pile=["pea-1", "pea-2", "radish-1", "radish-2"])
    dec, cl = B.scripted("legumes", s, ["open carrot-1 carrot", "play leek-1", "accuse"], AGENTS, ref)
    assert cl[["seat", "true", "caught"]].values.tolist() == [[0, True, False], [1, False, True]]
    assert dec[["seat", "response", "true"]].values.tolist() == [[1, "pass", True],
                                                                 [0, "doubt", False]]
    t = table_of(dec, cl, 2)
    assert (t.loc["bob", "bluff_rate"], t.loc["bob", "bluff_success"]) == (1.0, 0.0)
    assert (t.loc["alice", "call_accuracy"], t.loc["bob", "call_rate"]) == (1.0, 0.0)


def test_veru_a_disbelieved_bluff_then_a_believed_truth() -> None:
    """alice claims 2 queens with a queen and a 5 (false), bob disbelieves (right) and opens 7s with
    a 7, carol believes (right)."""
    from bluffsim.games.veru.reference import scenario

    ref, s = scenario([["Q", "Q", "5"], ["7", "9", "K"], ["2", "3", "4"]], jokers=0)
    script = ["announce Q", "put Q", "put 5", "done", "disbelieve",
              "announce 7", "put 7", "done", "believe"]
    dec, cl = B.scripted("veru", s, script, AGENTS, ref)
    assert cl[["seat", "true", "caught"]].values.tolist() == [[0, False, True], [1, True, False]]
    assert dec[["seat", "claimant", "response", "true"]].values.tolist() == [
        [1, 0, "doubt", False], [2, 1, "affirm", True]]
    t = table_of(dec, cl, 3)
    assert (t.loc["bob", "calls"], t.loc["bob", "call_accuracy"], t.loc["bob", "brier"]) == (1, 1.0, 0.0)
    assert (t.loc["carol", "believes"], t.loc["carol", "believe_accuracy"], t.loc["carol", "calls"]) == (
        1, 1.0, 0)
    assert dec["p_true"].between(0, 1).all()


def test_calibration_bins_count_decisions_calls_and_truths() -> None:
    dec = pd.DataFrame({"agent": ["a", "a", "a", "b"], "p_true": [0.05, 0.08, 0.95, 1.0],
                        "response": ["doubt", "pass", "pass", "doubt"],
                        "true": [False, True, True, True]})
    cal = B.calibration_table(dec, {"a": "counting", "b": "random"})
    assert cal[["agent", "agent_name", "bin_low", "decisions", "calls", "true_rate"]].values.tolist() == [
        ["a", "counting", 0.0, 2, 1, 0.5], ["a", "counting", 0.9, 1, 0, 1.0],
        ["b", "random", 0.9, 1, 1, 1.0]]
    assert cal["call_rate"].tolist() == [0.5, 0.0, 1.0]


def test_the_calibration_plot_returns_a_figure_with_its_axes_and_reference_curves() -> None:
    cal = pd.DataFrame({"agent": ["counting", "counting", "me"],
                        "agent_name": ["counting", "counting", "llm"],
                        "bin_low": [0.0, 0.5, 0.0], "bin_high": [0.1, 0.6, 0.1],
                        "decisions": [10, 20, 5], "calls": [9, 1, 2], "call_rate": [0.9, 0.05, 0.4],
                        "p_mean": [0.05, 0.55, 0.07], "true_rate": [0.3, 0.8, 0.2]})
    from bluffsim.analysis import plots

    fig = plots.calibration(cal, "qdv, 4 players", ["me", "counting"])
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert ax.get_xlabel().startswith("P(claim true") and ax.get_ylabel().startswith("call rate")
    assert ax.get_xlim() == (0.0, 1.0) and "Call calibration" in ax.get_title()
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "counting (reference)" in labels and "me" in labels
    import matplotlib.pyplot as plt

    plt.close(fig)


def write_config(tmp_path, game: str, players: int, seats: list[str], games: int, rules: str = "") -> str:
    path = tmp_path / f"{game}.toml"
    body = "".join(f'[[seats]]\nagent = "{a}"\n' for a in seats)
    path.write_text(f'[experiment]\nname = "b"\ngame = "{game}"\nplayers = {players}\ngames = {games}\n'
                    f'seed = 3\n[rules]\n{rules}\n{body}[run]\nplots = true\n')
    return str(path)


@pytest.mark.parametrize(("game", "players", "rules"), [
    ("qdv", 2, "starting_tokens = 2"), ("legumes", 3, "hand_size = 3"), ("veru", 3, "")])
def test_the_report_writes_behaviour_calibration_and_its_plot(tmp_path, game, players, rules) -> None:
    """A run's report replays its games (equal to games.parquet, or it would say so) and writes the
    three outputs, with a row per agent."""
    out = tmp_path / "out"
    seats = ["random", "counting", "heuristic"][:players]
    assert main(["run", write_config(tmp_path, game, players, seats, 6, rules), "--out", str(out),
                 "--quiet"]) == 0
    beh = pd.read_csv(out / "behaviour.csv", index_col="agent")
    assert sorted(beh.index) == sorted(seats) and list(beh.columns) == B.COLUMNS
    assert (beh["games"] == 6).all() and beh["note"].isna().all()
    assert (beh["claims"] > 0).all() and (beh["decisions"] > 0).all()
    assert beh["brier"].between(0, 1).all() and beh["brier_odds"].between(0, 1).all()
    cal = pd.read_csv(out / "calibration.csv")
    assert cal.groupby("agent")["decisions"].sum().to_dict() == beh["decisions"].to_dict()
    assert (out / "plots" / "calibration.png").stat().st_size > 0


def test_a_replay_that_differs_from_the_records_is_said_not_measured(tmp_path) -> None:
    out = tmp_path / "out"
    assert main(["run", write_config(tmp_path, "qdv", 2, ["random", "heuristic"], 4), "--out",
                 str(out), "--quiet"]) == 0
    games = pd.read_parquet(out / "games.parquet")
    first = games["game"] == games["game"].min()
    games.loc[first, "placement"] = games.loc[first, "placement"].to_numpy()[::-1]
    games.to_parquet(out / "games.parquet", index=False)
    assert (out / "plots" / "calibration.png").is_file()
    assert main(["report", str(out)]) == 0
    beh = pd.read_csv(out / "behaviour.csv", index_col="agent")
    assert beh["note"].str.contains("differ").all() and beh["claims"].isna().all()
    assert not (out / "calibration.csv").exists() and not (out / "plots" / "calibration.png").exists()


def test_the_fourth_game_without_claim_rules_gets_a_stated_reason_then_with_them_its_metrics(
        tmp_path, monkeypatch) -> None:
    out = tmp_path / "out"
    assert main(["run", write_config(tmp_path, "liarsdice", 2, ["random", "random"], 6), "--out",
                 str(out), "--quiet"]) == 0
    beh = pd.read_csv(out / "behaviour.csv", index_col="agent")
    assert beh["note"].str.contains("declares no claim rules").all() and beh["claims"].isna().all()
    assert not (out / "calibration.csv").exists() and not (out / "plots" / "calibration.png").exists()
    monkeypatch.setitem(O.CLAIMS, "liarsdice", LiarsDiceClaims())
    assert main(["report", str(out)]) == 0
    beh = pd.read_csv(out / "behaviour.csv", index_col="agent")
    assert beh["note"].isna().all() and (beh["decisions"] > 0).all() and (beh["claims"] > 0).all()
    assert (out / "plots" / "calibration.png").is_file()


def test_evaluate_tables_get_their_behaviour_rows() -> None:
    """``table_behaviour`` (what ``bluffsim evaluate`` calls per table) on a played battery table."""
    from bluffsim.evaluate import Table, table_experiment, unique_seats
    from bluffsim.tournament.runner import play_shard

    seats = unique_seats([("random", "subject", {}), ("counting", "counting", {}),
                          ("counting", "counting", {})])
    exp = table_experiment(Table("veru", 3, "counting", seats), 6)
    games, _ = play_shard(exp, 0)
    rows = B.table_behaviour(exp, games)
    assert sorted(rows.index) == ["counting", "counting#2", "subject"]
    assert (rows["note"].fillna("") == "").all()
    assert rows.loc["subject", "games"] == 6 and rows.loc["subject", "decisions"] > 0


def test_an_agent_that_cannot_be_replayed_is_not(tmp_path, monkeypatch) -> None:
    """An agent saying ``replayable = False`` (e.g. a language model without its answer cache) is
    never asked again: the rows say why."""
    import agents

    out = tmp_path / "out"
    assert main(["run", write_config(tmp_path, "qdv", 2, ["random", "heuristic"], 4), "--out",
                 str(out), "--quiet"]) == 0
    monkeypatch.setattr(agents.RandomAgent, "replayable", False, raising=False)
    assert main(["report", str(out)]) == 0
    beh = pd.read_csv(out / "behaviour.csv", index_col="agent")
    assert beh["note"].str.contains("'random' cannot be replayed").all() and beh["calls"].isna().all()
