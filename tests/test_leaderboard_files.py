"""Leaderboard and reference-cache files that are not what ``bluffsim evaluate`` writes: a
leaderboard lacking a column the printed table needs, or holding a rating that is not a finite
number, is one line naming the file (in ``bluffsim leaderboard`` and before ``evaluate`` plays);
a reference cache that does not rate every agent of the pool is set aside and replayed."""

from __future__ import annotations

import numpy as np
import pytest

from bluffsim import evaluate
from bluffsim.cli import main

BROKEN = {
    "no date": ("agent,hash,budget\nx,abc,quick\n", "has no date column"),
    "rating without se": ("agent,hash,date,budget,qdv_rating\nx,abc,2026-01-01,quick,5\n",
                          "has no qdv_se column"),
    "infinite rating": ("agent,hash,date,budget,qdv_rating,qdv_se\nx,abc,2026-01-01,quick,inf,3\n",
                        "column 'qdv_rating' holds 'inf', not a finite number"),
}


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_a_leaderboard_missing_what_it_prints_is_one_line(tmp_path, capsys, kind):
    text, message = BROKEN[kind]
    lb = tmp_path / "leaderboard.csv"
    lb.write_text(text)
    for args in (["leaderboard", "--path", str(lb)],
                 ["evaluate", "random", "--game", "qdv", "--players", "2", "--leaderboard", str(lb),
                  "--out", str(tmp_path / "o"), "--quiet"]):
        assert main(args) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "Traceback" not in err, err
        assert err.startswith(f"bluffsim: error: leaderboard {str(lb)!r}") and message in err, err
    assert not (tmp_path / "o").exists() and lb.read_text() == text


def test_a_reference_cache_without_every_pool_agent_is_replayed(tmp_path, monkeypatch):
    """A cache that parses but lost rows (here only random's is left) would rate the subject
    against part of the pool: it is set aside, said in one line, and the pool is played again."""
    from bluffsim.tournament.config import Experiment

    tiny = [Experiment(**{**e.__dict__, "games": 240, "shard_games": 240})
            for e in evaluate.reference_pool("qdv")[:1]]
    monkeypatch.setattr(evaluate, "reference_pool", lambda game: tiny)
    cache = tmp_path / "ref"
    cache.mkdir()
    path = cache / f"qdv-{evaluate.reference_hash('qdv')}.csv"
    path.write_text("agent,rating,se,game\nrandom,0.0,0.0,qdv\n")
    said: list[str] = []
    table = evaluate.reference_ratings("qdv", cache, log=said.append)
    assert set(table.index) == evaluate.reference_agents("qdv") and len(table) > 1
    assert np.isfinite(table["rating"]).all()
    assert "no rating of" in said[0] and "counting" in said[0] and len(said) == 2
    assert path.with_suffix(".corrupt").read_text().startswith("agent,rating,se,game\nrandom")
