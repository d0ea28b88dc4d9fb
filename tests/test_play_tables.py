"""One way to play many tables (``bluffsim.tournament.tables.play_tables``, issue 35 item 4): the
same games in this process, a local pool and Dask; resume by identity; ``bluffsim evaluate``
plays its battery through it, the games bit for bit those it played before (pinned digests),
and on Dask gives the local executor's ratings."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from bluffsim import evaluate
from bluffsim.cli import main
from bluffsim.results import table_digest
from bluffsim.tournament.config import Experiment, Seat
from bluffsim.tournament.tables import Executor, Table, TableDir, play_table, play_tables

ROOT = Path(__file__).resolve().parents[1]
# the games tables of `bluffsim evaluate counting --game qdv --players 2 --table-games 60`, by
# results.table_digest, as the evaluation played them before play_tables existed (its own pool
# loop, evaluate._play_many at c7f5930): the same games now
PINNED = {
    "qdv_2p_counting": "6fac95636d9572bce2d492f180e889912dd3358b02e74f8f8cc817701d26563b",
    "qdv_2p_heuristic": "667474c05c6ab561ddaa1a6474b9186cd2772c57ccc7d882c95d497f63a87b93",
    "qdv_2p_learned": "fd3bdc2481d8abbc0940c011cbe47a5e714f8c3f9cb5b58656620fa629f28bb9",
    "qdv_2p_random": "e204aab0c0e68191240d8b5ea0d601e0d926d05e58dbc0d7c2dbba307c88a568",
}


def tiny(name: str, seed: int, games: int = 24, opponent: str = "random") -> Experiment:
    seats = (Seat("heuristic", "heuristic"), Seat(opponent, opponent))
    return Experiment(name=name, game="qdv", players=2, games=games, seed=seed, rules={},
                      seats=seats, batch=8, seating="rotate", shard_games=games, plots=False)


TABLES = [Table(tiny(f"t{i}", 10 + i)) for i in range(3)]


def test_the_executors_play_the_same_games_in_the_order_given():
    here = play_tables(TABLES, Executor())
    pool = play_tables(TABLES, Executor("local", 2))
    assert [r.table for r in here] == TABLES == [r.table for r in pool]
    for a, b in zip(here, pool, strict=True):
        pd.testing.assert_frame_equal(a.games, b.games)
        pd.testing.assert_frame_equal(a.rounds, b.rounds)
    assert here[0].games["seed"].tolist() != here[1].games["seed"].tolist()


def test_identity_covers_what_decides_the_games_and_nothing_else():
    exp = tiny("t", 1)
    same = Experiment(**{**exp.__dict__, "batch": 3, "workers": 2, "executor": "dask",
                         "out": "elsewhere"})
    assert Table(exp).identity == Table(same).identity
    for other in (Table(tiny("t", 2)), Table(exp, shard=1), Table(exp, context="weights v2"),
                  Table(tiny("t", 1, opponent="counting"))):
        assert other.identity != Table(exp).identity


def test_a_table_dir_resumes_by_identity(tmp_path):
    store = TableDir(tmp_path / "tables")
    said = []
    first = play_tables(TABLES[:2], Executor(), store, done=lambda r: said.append(r.table.name))
    assert said == ["t0", "t1"]
    assert json.loads((tmp_path / "tables" / "t0.json").read_text())["identity"] == \
        TABLES[0].identity
    # a rerun plays only the table not there; a table whose identity changed is played again
    changed = Table(tiny("t1", 99))
    said.clear()
    again = play_tables([TABLES[0], changed, TABLES[2]], Executor(), store,
                        done=lambda r: said.append(r.table.name))
    assert said == ["t1", "t2"]
    pd.testing.assert_frame_equal(again[0].games, first[0].games)   # read back from the file
    pd.testing.assert_frame_equal(again[1].games, play_table(changed).games)
    # a games file without its identity (an interrupted write) is played again
    (tmp_path / "tables" / "t2.json").unlink()
    assert not store.finished(TABLES[2]) and store.finished(TABLES[0])


def test_two_tables_of_one_name_are_refused(tmp_path):
    with pytest.raises(ValueError, match="share"):
        play_tables([TABLES[0], TABLES[0]], Executor())
    with pytest.raises(ValueError, match="share"):
        play_tables([Table(tiny("t", 1)), Table(tiny("t", 2))], Executor(), TableDir(tmp_path))


def evaluate_tiny(tmp: Path, *extra: str) -> Path:
    """``counting`` at qdv 2 players, 60 games per table, the reference pool cut to its 3-player
    pool at 240 games (as tests/test_evaluate_ratings.py cuts it)."""
    cut = [Experiment(**{**e.__dict__, "games": 240, "shard_games": 240})
           for e in evaluate.reference_pool("qdv")[1:2]]
    cwd = os.getcwd()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(evaluate, "reference_pool", lambda game: cut)
        os.chdir(ROOT)
        try:
            code = main(["evaluate", "counting", "--game", "qdv", "--players", "2",
                         "--table-games", "60", "--out", str(tmp / "card"), "--leaderboard",
                         str(tmp / "lb.csv"), "--reference-dir", str(tmp / "ref"), "--quiet",
                         "--workers", "2", *extra])
        finally:
            os.chdir(cwd)
    assert code == 0
    return tmp / "card"


@pytest.mark.slow
def test_evaluate_on_dask_plays_the_pinned_games_and_rates_as_local(tmp_path):
    local = evaluate_tiny(tmp_path / "local")
    dask = evaluate_tiny(tmp_path / "dask", "--executor", "dask")
    for card in (local, dask):
        digests = {f.stem: table_digest(pd.read_parquet(f))
                   for f in sorted((card / "tables").glob("qdv_*.parquet"))
                   if not f.name.endswith(".llm_calls.parquet")}
        assert digests == PINNED
    for name in ("ratings.csv", "reference.csv", "scorecard.csv"):
        pd.testing.assert_frame_equal(pd.read_csv(local / name), pd.read_csv(dask / name))


def test_evaluate_refuses_a_bad_executor_in_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["evaluate", "counting", "--executor", "slurm", "--out", str(tmp_path / "x")])
    assert e.value.code == 2
    assert main(["evaluate", "counting", "--address", "not an address",
                 "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "--address = 'not an address' is invalid" in err[-1]
    assert not (tmp_path / "x").exists()
