"""``bluffsim run`` and ``bluffsim evaluate`` with ``llm`` seats against the scripted server
(tests/llm_server.py): records (transcripts, llm_calls.parquet, the cost line), the forfeit rule,
no secret written, a rerun / --force / second dir call-free and identical, a killed run resumed
to the same results, max_calls, and one-line errors before any game."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bluffsim.results import results_digest
from bluffsim.tournament import parse_config, run_experiment
from tests.llm_server import MODEL, LLMServer
from tests.test_workflow import assert_one_line_error, cli

ROOT = Path(__file__).resolve().parents[1]
SENTINEL = "sk-bluffsim-SENTINEL-0123456789"


def config(url: str, game: str = "veru", players: int = 3, games: int = 4, shard_games: int = 2,
           **llm: object) -> dict:
    """A table: seat 0 the llm, the others random."""
    params = {"model": MODEL, "base_url": url, "concurrency": 8, **llm}
    return {"experiment": {"name": "llmrun", "game": game, "players": players, "games": games,
                           "seed": 7},
            "seats": [{"agent": "llm", "params": params}]
            + [{"agent": "random", "label": f"random-{i}"} for i in range(1, players)],
            "run": {"batch": 4, "shard_games": shard_games, "plots": False}}


def toml_text(raw: dict) -> str:
    """``raw`` as a TOML config file's text (only the shapes ``config`` makes)."""
    def value(v: object) -> str:
        if isinstance(v, dict):
            return "{" + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + "}"
        return json.dumps(v)

    lines = ["[experiment]", *(f"{k} = {value(v)}" for k, v in raw["experiment"].items())]
    for seat in raw["seats"]:
        lines += ["", "[[seats]]", *(f"{k} = {value(v)}" for k, v in seat.items())]
    lines += ["", "[run]", *(f"{k} = {value(v)}" for k, v in raw["run"].items())]
    return "\n".join(lines) + "\n"


def write_config(tmp_path: Path, raw: dict, name: str = "llm.toml") -> Path:
    path = tmp_path / name
    path.write_text(toml_text(raw), encoding="utf-8")
    return path


def run_cli(*argv: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    """``bluffsim ARGV`` in a subprocess (stdout and stderr kept)."""
    full = {**os.environ, **(env or {}),
            "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, "-m", "bluffsim.cli", *argv], capture_output=True,
                          text=True, cwd=cwd, env=full, timeout=300)


def transcript(out: Path, game: int) -> list[dict]:
    return [json.loads(line) for line in
            (out / "transcripts" / f"{game:06d}.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("game, players", [("veru", 3), ("qdv", 2), ("legumes", 2),
                                           ("liarsdice", 2)])
def test_a_run_writes_transcripts_calls_and_forfeit_columns(tmp_path, monkeypatch, game,
                                                             players) -> None:
    """Every game and the fourth: one transcript per game (each decision's messages, answers,
    reading and action, then the end with every seat's hidden cards), one llm_calls row per
    request the server received."""
    monkeypatch.chdir(tmp_path)
    with LLMServer() as server:
        exp = parse_config(config(server.url, game, players, games=2, shard_games=1))
        run_experiment(exp, progress=False)
        out = exp.out_dir
        calls = pd.read_parquet(out / "llm_calls.parquet")
        assert len(calls) == server.chat_calls > 0
        assert not calls["cached"].any() and calls["legal"].all()
        assert (calls["tokens_in"] > 0).all() and (calls["agent"] == "llm").all()
    games = pd.read_parquet(out / "games.parquet")
    assert "forfeit" in games and not games["forfeit"].any()
    for g in (0, 1):
        lines = transcript(out, g)
        decisions, end = lines[:-1], lines[-1]
        assert end["type"] == "end" and all(d["type"] == "decision" for d in decisions)
        assert len(decisions) == int((calls["game"] == g).sum())
        first = decisions[0]
        assert first["messages"][0]["role"] == "system" and first["answers"][0] == \
            first["action_text"] and first["read"][0]["outcome"] == "ok"
        assert len(end["hidden"]) == len(decisions) and len(end["hidden"][0]["hands"]) == players
        row = games[games["game"] == g].sort_values("seat")
        assert end["placements"] == row["placement"].tolist() and end["forfeit"] == []


def test_a_seat_whose_answers_never_parse_forfeits_and_is_placed_last(tmp_path,
                                                                      monkeypatch) -> None:
    """Unparseable answers, two rethinks, then forfeit: asked 3 times at its first decision only,
    played at random by the runner after that, placed last; the others keep their order."""
    monkeypatch.chdir(tmp_path)
    with LLMServer(faults=lambda n, m, t: "malformed") as server:
        exp = parse_config(config(server.url, "veru", 3, games=3, shard_games=3, rethinks=2))
        run_experiment(exp, progress=False)
        assert server.chat_calls == 3 * 3
    games = pd.read_parquet(exp.out_dir / "games.parquet")
    llm = games[games["agent"] == "llm"]
    assert llm["forfeit"].all() and (llm["placement"] == 3).all() and not llm["won"].any()
    assert not games[games["agent"] != "llm"]["forfeit"].any()
    for _, g in games.groupby("game"):
        assert sorted(g["placement"]) == [1, 2, 3]
    lines = transcript(exp.out_dir, 0)
    asked = [d for d in lines[:-1] if d["answers"]]
    assert len(asked) == 1 and asked[0]["outcome"] == "forfeit" and asked[0]["rethinks"] == 2
    assert len(lines) > 3 and all(d["outcome"] == "forfeit" and not d["messages"]
                                  for d in lines[1:-1])
    assert lines[-1]["forfeit"] == [lines[0]["seat"]]
    calls = pd.read_parquet(exp.out_dir / "llm_calls.parquet")
    assert calls["attempt"].tolist() == [0, 1, 2] * 3 and set(calls["outcome"]) == {"unparseable"}


def test_a_cli_run_prints_the_estimate_and_cost_writes_no_key_and_reruns_call_free(
        tmp_path, monkeypatch, capsys) -> None:
    """The key comes from the named variable; no file the runs write holds it.  A sampled
    server answers differently each time, yet --force and a second output dir replay the cache:
    zero calls, identical tables."""
    from bluffsim.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BLUFFSIM_TEST_KEY", SENTINEL)
    with LLMServer(policy="sampled", key=SENTINEL,
                   faults=lambda n, m, t: "malformed" if n % 5 == 0 else None) as server:
        cfg = write_config(tmp_path, config(server.url, api_key_env="BLUFFSIM_TEST_KEY"))
        assert main(["run", str(cfg), "--out", "a"]) == 0
        first = capsys.readouterr()
        assert "bluffsim: llm: about " in first.err and "calls expected" in first.err
        calls = server.chat_calls
        assert f"text agents: {calls:,} calls (0 cached" in first.out
        for argv in (("--out", "a", "--force"), ("--out", "b")):
            assert main(["run", str(cfg), *argv]) == 0
            again = capsys.readouterr()
            assert server.chat_calls == calls, argv
            assert f"text agents: {calls:,} calls ({calls:,} cached, 100%" in again.out
        assert results_digest(tmp_path / "a") == results_digest(tmp_path / "b")
        rethought = pd.read_parquet(tmp_path / "b" / "llm_calls.parquet")
        assert (rethought["outcome"] == "unparseable").any() and rethought["cached"].all()
        assert SENTINEL not in first.out + first.err
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name == "llm_cache.sqlite" for p in written)
    assert any(p.suffix == ".jsonl" for p in written) and any(p.name == "run.log" for p in written)
    for p in written:
        assert SENTINEL.encode() not in p.read_bytes(), p


def test_setup_errors_are_one_line_before_anything_is_written(tmp_path, monkeypatch,
                                                              capsys) -> None:
    from bluffsim.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BLUFFSIM_TEST_KEY", SENTINEL)
    monkeypatch.setenv("BLUFFSIM_WRONG_KEY", "nope")
    with LLMServer(key=SENTINEL) as server:
        url = server.url
        cases = [({"model": "other-model", "api_key_env": "BLUFFSIM_TEST_KEY"},
                  "model 'other-model' is not served at"),
                 ({"api_key_env": "BLUFFSIM_MISSING_KEY"},
                  "the environment variable BLUFFSIM_MISSING_KEY (api_key_env) is not set"),
                 ({"api_key_env": "BLUFFSIM_WRONG_KEY"}, "refused the request (HTTP 401)"),
                 ({}, "refused the request (HTTP 401): it needs a key: set api_key_env")]
        for i, (llm, message) in enumerate(cases):
            cfg = write_config(tmp_path, config(url, **llm), f"c{i}.toml")
            code = main(["run", str(cfg), "--out", "o"])
            out = capsys.readouterr()
            assert_one_line_error(code, out.err, "bluffsim: error: ", message)
            assert SENTINEL not in out.err + out.out
        assert server.chat_calls == 0
    cfg = write_config(tmp_path, config(url), "down.toml")          # the server is gone now
    code, err = cli("run", str(cfg), "--out", str(tmp_path / "o"))
    assert_one_line_error(code, err, "cannot reach the server at", "Connection refused")
    assert not (tmp_path / "o").exists() and not (tmp_path / "results").exists()


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_a_run_killed_mid_way_resumes_to_the_same_results(tmp_path, sig) -> None:
    """A real ``bluffsim run`` is killed once its first shard is written; ``--resume`` finishes
    it to the tables of an uninterrupted run (which used a cache of its own)."""
    with LLMServer(delay=0.01) as server:
        raw = config(server.url, games=4, shard_games=1)
        raw["seats"][0]["params"]["cache"] = str(tmp_path / "ref-cache.sqlite")
        raw["run"]["out"] = str(tmp_path / "ref")
        run_experiment(parse_config(raw), progress=False)
        killed = config(server.url, games=4, shard_games=1)
        killed["run"]["batch"] = 1   # one game at a time: shards land one by one, not together
        cfg = write_config(tmp_path, killed)
        env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        # once a shard is written no answer comes until the kill: the run cannot end first
        server.hold = lambda: any((tmp_path / "o" / "shards").glob("games-*.parquet"))
        proc = subprocess.Popen([sys.executable, "-m", "bluffsim.cli", "run", str(cfg), "--out",
                                 "o"], cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.time() + 120
            while not server.hold() and proc.poll() is None and time.time() < deadline:
                time.sleep(0.02)
            proc.send_signal(sig)
            proc.wait(timeout=60)
        finally:
            server.hold = None
            if proc.poll() is None:
                proc.kill()
        assert not (tmp_path / "o" / "games.parquet").exists(), "the run finished before the kill"
        assert len(list((tmp_path / "o" / "shards").glob("games-*"))) >= 1
        done = run_cli("run", str(cfg), "--out", "o", "--resume", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    assert results_digest(tmp_path / "o") == results_digest(tmp_path / "ref")
    calls = pd.read_parquet(tmp_path / "o" / "llm_calls.parquet")
    ref_calls = pd.read_parquet(tmp_path / "ref" / "llm_calls.parquet")
    keep = ["game", "seat", "decision", "attempt", "outcome", "tokens_in"]
    pd.testing.assert_frame_equal(calls[keep], ref_calls[keep])
    assert sorted(p.name for p in (tmp_path / "o" / "transcripts").iterdir()) == \
        [f"{g:06d}.jsonl" for g in range(4)]


def test_max_calls_stops_cleanly_and_resume_goes_on_to_the_same_results(tmp_path,
                                                                        monkeypatch) -> None:
    """A budget far below the run: one line naming max_calls and --resume, finished shards kept;
    every --resume gets a fresh allowance and replays what is cached, until the run is done
    with the tables of a run without a limit."""
    monkeypatch.chdir(tmp_path)
    with LLMServer() as server:
        table = {"game": "qdv", "players": 2, "games": 8, "shard_games": 1}
        ref = parse_config({**config(server.url, **table, cache="ref.sqlite"),
                            "run": {"batch": 4, "shard_games": 1, "plots": False, "out": "ref"}})
        run_experiment(ref, progress=False)
        cfg = write_config(tmp_path, config(server.url, **table, max_calls=30))
        proc = run_cli("run", str(cfg), "--out", "o", cwd=tmp_path)
        assert_one_line_error(proc.returncode, proc.stderr.splitlines()[-1] + "\n",
                              "llm budget reached: max_calls = 30", "--resume")
        assert "llm: max_calls = 30: the run stops there" in proc.stderr
        kept = sorted(p.name for p in (tmp_path / "o" / "shards").glob("games-*"))
        assert kept and len(kept) < 8
        exp = parse_config({**config(server.url, **table, max_calls=30),
                            "run": {"batch": 4, "shard_games": 1, "plots": False, "out": "o"}})
        for _ in range(10):
            try:
                run_experiment(exp, resume=True, progress=False)
                break
            except Exception as e:       # the budget again: resume once more
                assert "llm budget reached" in str(e)
        assert (tmp_path / "o" / "games.parquet").is_file()
    assert results_digest(tmp_path / "o") == results_digest(tmp_path / "ref")


def test_evaluate_an_llm_with_the_llm_budget(tmp_path, monkeypatch, capsys) -> None:
    """``bluffsim evaluate llm:model=M,base_url=URL --budget llm`` (a URL's ':' in a parameter):
    the call estimate first, the scorecard and a leaderboard row; a --force rerun is call-free."""
    from bluffsim import evaluate
    from bluffsim.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(evaluate, "REFERENCE_GAMES", 60)
    monkeypatch.setattr(evaluate, "REFERENCE_LINEUPS", 2)
    with LLMServer() as server:
        subject = f"llm:model={MODEL},base_url={server.url},concurrency=16"
        args = ["evaluate", subject, "--budget", "llm", "--game", "liarsdice", "--out", "card",
                "--leaderboard", "lb.csv", "--reference-dir", "ref"]
        assert main(args) == 0
        printed = capsys.readouterr().out
        assert "llm: about " in printed and "calls expected over 1 tables" in printed
        assert printed.index("llm: about ") < printed.index("scorecard in card/")
        calls = server.chat_calls
        assert calls > 0
        card = pd.read_csv(tmp_path / "card" / "scorecard.csv")
        assert set(card["players"].astype(str)) >= {"3"} and (card["games"] > 0).all()
        board = pd.read_csv(tmp_path / "lb.csv")
        assert len(board) == 1 and board["agent"].iloc[0] == subject
        records = pd.read_parquet(tmp_path / "card" / "llm_calls.parquet")
        assert (~records["cached"]).sum() == calls and set(records["table"]) == {"liarsdice_3p_random"}
        assert f"text agents: {len(records):,} calls ({records['cached'].sum():,} cached" in printed
        lines = [json.loads(x) for f in sorted((tmp_path / "card" / "transcripts"
                                                / "liarsdice_3p_random").iterdir())
                 for x in f.read_text(encoding="utf-8").splitlines()]
        decisions = [x for x in lines if x["type"] == "decision"]
        assert len(decisions) == int((records["attempt"] == 0).sum())
        assert {x["agent"] for x in decisions} == {"subject"}
        assert sum(x["type"] == "end" for x in lines) == records["game"].nunique()
        assert (tmp_path / "card" / "behaviour.csv").is_file()
        assert main([*args, "--force", "--quiet"]) == 0
        assert server.chat_calls == calls
        again = pd.read_parquet(tmp_path / "card" / "llm_calls.parquet")
        assert again["cached"].all() and len(again) == len(records)
    games = pd.read_parquet(tmp_path / "card" / "tables" / "liarsdice_3p_random.parquet")
    assert (games.groupby("game")["seat"].count() == 3).all()
    assert np.isin(games["placement"], [1, 2, 3]).all()
