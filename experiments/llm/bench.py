"""Throughput of ``llm`` seats end to end: ``bluffsim run`` against the scripted test server.

The server (tests/llm_server.py) answers every request after ``--delay`` seconds (default 50 ms,
a fast batching server's latency); the run is a real ``bluffsim run`` subprocess (3 players:
llm, counting, random) with a fresh answer cache, so every decision is a real HTTP call.  By
default it plays 2,048 games in two worker processes, each with its llm seat at concurrency 32:
64 requests in flight in all, so the ideal is 64 / 0.05 = 1,280 decisions per second.  (Two
workers because one seat's batch waits for its last answers before its games move on; the other
worker's requests keep the connections busy meanwhile.)  Reported: llm decisions per second of
the run's play time (``manifest.json`` ``play_seconds``: games, HTTP and parsing; not the
interpreter's start or the report), median and spread (min–max) over ``--repeats`` runs, the
mean number of requests in flight at the server when each arrived (itself included, so a
steady 64 shows as about 64, a burst as about half), and the CPU seconds of the ``bluffsim
run`` process and its workers (start and report included; not the HTTP child processes of
``bluffsim.chat_client``, which nobody waits for) and of the server (this process).

    python experiments/llm/bench.py                           # veru, 2 workers x 32
    python experiments/llm/bench.py --game qdv --repeats 1
    python experiments/llm/bench.py --workers 1 --concurrency 64 --batch 1024
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.llm_server import MODEL, LLMServer  # noqa: E402


def config_text(url: str, game: str, games: int, batch: int, concurrency: int, cache: Path,
                workers: int = 1, shard_games: int = 0) -> str:
    """The benchmark table: an llm seat, counting and random (3 players)."""
    return f"""[experiment]
name = "llm_bench"
game = "{game}"
players = 3
games = {games}
seed = 1

[[seats]]
agent = "llm"
params = {{model = "{MODEL}", base_url = "{url}", concurrency = {concurrency}, cache = "{cache}"}}

[[seats]]
agent = "counting"

[[seats]]
agent = "random"

[run]
batch = {batch}
shard_games = {shard_games or -(-games // workers)}
workers = {workers}
plots = false
"""


def one_run(args: argparse.Namespace, work: Path, i: int) -> dict:
    """One ``bluffsim run``; its decisions per second and in-flight mean."""
    with LLMServer(delay=args.delay) as server:
        cfg = work / f"bench{i}.toml"
        cfg.write_text(config_text(server.url, args.game, args.games, args.batch,
                                   args.concurrency, work / f"cache{i}.sqlite", args.workers,
                                   args.shard_games),
                       encoding="utf-8")
        out = work / f"out{i}"
        env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        child0, own0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.process_time()
        subprocess.run([sys.executable, "-m", "bluffsim.cli", "run", str(cfg), "--out", str(out)],
                       check=True, env=env, cwd=work, stdout=subprocess.DEVNULL)
        child1, server_cpu = resource.getrusage(resource.RUSAGE_CHILDREN), time.process_time() - own0
        requests = server.chat_calls
        in_flight = statistics.mean(server.in_flight_seen)
    calls = pd.read_parquet(out / "llm_calls.parquet")
    play = json.loads((out / "manifest.json").read_text())["timing"]["play_seconds"]
    decisions = int((calls["attempt"] == 0).sum())
    run_cpu = child1.ru_utime + child1.ru_stime - child0.ru_utime - child0.ru_stime
    return {"decisions": decisions, "requests": requests, "play_seconds": play,
            "decisions_per_second": decisions / play, "in_flight": in_flight,
            "run_cpu": run_cpu, "server_cpu": server_cpu}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", default="veru")
    p.add_argument("--games", type=int, default=2048)
    p.add_argument("--batch", type=int, default=512,
                   help="run.batch: games in flight per worker")
    p.add_argument("--concurrency", type=int, default=32, help="requests in flight per worker")
    p.add_argument("--delay", type=float, default=0.05, help="seconds the server takes per answer")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--workers", type=int, default=2,
                   help="processes, each playing one shard with its own llm seat")
    p.add_argument("--shard-games", type=int, default=0,
                   help="run.shard_games (default: games / workers, one shard per worker)")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="llm_bench_") as tmp:
        runs = [one_run(args, Path(tmp), i) for i in range(args.repeats)]
    rates = [r["decisions_per_second"] for r in runs]
    for r in runs:
        print(f"  {r['decisions']:,} llm decisions ({r['requests']:,} requests) in "
              f"{r['play_seconds']:.2f} s of play: {r['decisions_per_second']:,.0f} decisions/s; "
              f"{r['in_flight']:.1f} requests in flight on average; CPU: run {r['run_cpu']:.1f} s "
              f"(run and workers), server {r['server_cpu']:.1f} s")
    ideal = args.concurrency * args.workers / args.delay if args.delay else float("inf")
    print(f"{args.game}, batch {args.batch}, concurrency {args.concurrency}, workers "
          f"{args.workers}, server delay "
          f"{args.delay * 1000:.0f} ms: median {statistics.median(rates):,.0f} decisions/s "
          f"(min {min(rates):,.0f}, max {max(rates):,.0f}; ideal {ideal:,.0f})")


if __name__ == "__main__":
    main()
