"""The ``bluffsim`` command line: one subcommand per task (``bluffsim --help`` lists them).

User errors (bad config, unknown game, unwritable dir, ...) print one line
``bluffsim: error: ...`` and exit with status 2, without a traceback.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

import bluffsim
from bluffsim import replay, web
from bluffsim.api import BluffsimError
from bluffsim.tournament.config import MAX_BATCH, add_run_flags, run_overrides


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``bluffsim`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command in ("run", "report", "bench", "evaluate", "exploit"):
        _use_file_backend()
    try:
        return int(args.func(args) or 0)
    except BluffsimError as e:
        print(f"bluffsim: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("bluffsim: interrupted; finished shards are kept: rerun with --resume",
              file=sys.stderr)
        return 130


def _use_file_backend() -> None:
    """Select matplotlib's non-interactive Agg backend: the CLI only writes PNG files and may
    run where there is no display.  Library imports never do this (Jupyter keeps inline)."""
    import matplotlib

    matplotlib.use("Agg")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    p = argparse.ArgumentParser(prog="bluffsim")
    p.add_argument("--version", action="version", version=f"bluffsim {bluffsim.__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("run", help="run an experiment config (TOML)")
    r.add_argument("config", help="experiment TOML, e.g. experiments/quickstart.toml")
    r.add_argument("--games", type=int, help="override experiment.games")
    r.add_argument("--seed", type=int, help="override experiment.seed")
    add_run_flags(r)   # --batch, --workers, --executor, --address, --out, --no-plots ([run] keys)
    r.add_argument("--resume", action="store_true", help="finish an interrupted run in --out")
    r.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="sets",
                   help="override any config key, value read as TOML: --set rules.jokers=0 "
                        "--set seats.1.params.bluff=0.3 (repeatable)")
    r.add_argument("--force", action="store_true",
                   help="replace a previous run in the output dir (deletes its results)")
    r.add_argument("--keep-shards", action="store_true",
                   help="keep shards/ after the merge (deleted by default)")
    r.add_argument("--quiet", action="store_true", help="no progress bar or config echo")
    r.set_defaults(func=cmd_run)

    rep = sub.add_parser("report", help="(re)build summaries and plots of a results dir")
    rep.add_argument("results", help="a results dir written by `bluffsim run`")
    rep.set_defaults(func=cmd_report)

    b = sub.add_parser("bench", help="measure throughput: decisions, rounds, games/s, memory")
    b.add_argument("--games", default=",".join(bluffsim.list_games()),
                   help="comma-separated game ids")
    b.add_argument("--players", type=int, default=4)
    b.add_argument("--batches", default="1,64,1024,4096,16384",
                   help="comma-separated batch sizes")
    b.add_argument("--repeats", type=int, default=5, help="runs per measure (median reported)")
    b.add_argument("--seconds", type=float, default=0.5, help="minimum time per run")
    b.add_argument("--agents", default="random,counting",
                   help="comma-separated agents, each playing every seat in turn")
    b.add_argument("--no-anchor", action="store_true",
                   help="skip the OpenSpiel anchors (Python loop and C++ rollouts)")
    b.add_argument("--cores", type=int, default=1,
                   help="also time random play on this many cores (processes, each pinned to a "
                        "core with its share of the batch) next to one core; 1 = skip")
    b.add_argument("--cores-batches", default="4096",
                   help="comma-separated batch sizes of the --cores measure")
    b.add_argument("--cores-via", choices=("processes", "threads"), default="processes",
                   help="processes (as run --workers) or threads (numba prange over batch "
                        "chunks, compiled games only; measured for comparison)")
    b.add_argument("--env-players", default="",
                   help="comma-separated player counts: also time the Gymnasium vector env "
                        "(learner steps/s) against each --agents opponent, fused and stepped")
    b.add_argument("--env-batch", type=int, default=1024,
                   help="games side by side in the --env-players measure")
    b.add_argument("--markdown", action="store_true",
                   help="also print the table in Markdown (the table of docs/bench.md)")
    b.add_argument("--out", default="results/bench",
                   help="directory for bench.parquet and bench.png")
    b.set_defaults(func=cmd_bench)

    pl = sub.add_parser("play", help="play a game in the terminal against agents, or --watch them")
    pl.add_argument("game", help="game id: " + ", ".join(bluffsim.list_games()))
    pl.add_argument("--seats", default=None,
                    help="comma-separated seats, one per player: human or an agent name with "
                         "optional parameters, e.g. human,heuristic:bluff=0.3,counting "
                         "(default: the game's, e.g. human,counting,heuristic; with --watch "
                         "counting,heuristic,random)")
    pl.add_argument("--seed", type=int, help="game seed 0..2**64-1 (default: a random one, printed)")
    pl.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE",
                    help="a rules option, e.g. --rule starting_tokens=3 (repeatable)")
    pl.add_argument("--watch", action="store_true",
                    help="watch an all-agent game as an omniscient spectator (every hand shown)")
    pl.add_argument("--delay", type=float, default=0.0, metavar="SECONDS",
                    help="with --watch: pause after each decision")
    pl.set_defaults(func=cmd_play)

    ex = sub.add_parser("exploit", help="exploitability: NashConv of the agents and of CFR on a "
                                        "small preset (needs the 'adapters' extra), or with "
                                        "--agent an approximate best response (needs 'learn')")
    ex.add_argument("--preset", default=None,
                    help="a preset of a game's spec (exploit_presets; default: the one marked "
                         "default, e.g. qdv-small); with --agent: play its rules and players "
                         "(with --agent there is no default: give --game or --preset)")
    ex.add_argument("--iterations", type=int, default=None,
                    help="CFR iterations (at least 1; default 300); not with --agent")
    ex.add_argument("--checkpoints", default=None,
                    help="also report CFR at these iteration counts, each 1..ITERATIONS "
                         "(default: those of 1,10,100 up to ITERATIONS)")
    ex.add_argument("--weights", metavar="PATH",
                    help="a `learned` weights file trained on the preset's rules (default: the one "
                         "shipped for the preset, e.g. agents/weights/qdv_small_2p.npz)")
    ex.add_argument("--agent", default=None,
                    help="approximate best response (bluffsim.abr) against these agents, "
                         "comma-separated, each with optional :k=v parameters, e.g. "
                         "random,heuristic:bluff=0.3,counting,learned or learned:weights=PATH")
    ex.add_argument("--game", default=None,
                    help="with --agent: game ids, comma-separated; required with --agent "
                         "unless --preset names the game")
    ex.add_argument("--players", type=int, default=None,
                    help="with --agent: seats (default: the game's smallest count, 2; veru 3)")
    ex.add_argument("--budget", default="small",
                    help="with --agent: small | full (40 | 200 PPO iterations of 4,096 learner "
                         "decisions), a number of PPO iterations, or plateau (train 3 seeds, "
                         "evaluating at 40, 80, ... 1280 iterations, until the win rate gains "
                         "< 0.01 over two doublings and is at least the agent's own in "
                         "self-play; plateau:start=N,cap=N,gain=X,seeds=N to change that); "
                         "comma-separated for several")
    ex.add_argument("--seed", type=int, default=1, help="with --agent: training seed (the "
                                                        "evaluation's deals derive from it too)")
    ex.add_argument("--eval-games", type=int, default=None,
                    help="with --agent: evaluation games per policy (default 3000)")
    ex.add_argument("--out", default=None,
                    help="with --agent: output root (default results/exploit); one dir per "
                         "game, agent and budget with abr.json, curve.png, weights.npz, train/")
    ex.add_argument("--force", action="store_true",
                    help="with --agent: replace results made with other settings (a result "
                         "made with the same settings is reused)")
    ex.add_argument("--markdown", action="store_true",
                    help="with --agent: also print the table in Markdown (docs/exploit.md)")
    ex.set_defaults(func=cmd_exploit)

    t = sub.add_parser("train", help="train a learned agent with PPO from a TOML config "
                                     "(needs the 'learn' extra)")
    t.add_argument("config", help="training TOML, e.g. experiments/train_qdv_2p.toml")
    t.add_argument("--iterations", type=int, help="override train.iterations")
    t.add_argument("--out", help="override train.out (checkpoints, log.csv)")
    t.add_argument("--weights", help="override train.weights (the weights file written)")
    t.add_argument("--resume", action="store_true", help="continue from OUT/checkpoint.npz")
    t.add_argument("--quiet", action="store_true", help="no progress bar")
    t.set_defaults(func=cmd_train)

    ev = sub.add_parser("evaluate", help="evaluate an agent on the standard battery: scorecard, "
                                         "rating, leaderboard row")
    ev.add_argument("agent", help="a registered agent (counting, heuristic:bluff=0.3, "
                                  "llm:model=M,base_url=http://HOST:8000/v1), "
                                  "package.module:ClassName[:k=v,...] or a learned weights .npz")
    ev.add_argument("--budget", default="quick",
                    help="quick | standard | full | llm (default quick; llm: a small battery "
                         "for paid calls, docs/llm.md)")
    ev.add_argument("--out", help="output dir (default results/evaluate/<agent>-<hash>-<budget>)")
    ev.add_argument("--workers", type=int, default=None,
                    help="processes or dask workers; tables run in parallel (default: the "
                         "machine's cores)")
    add_run_flags(ev, only=("executor", "address"))   # as `bluffsim run`: local | dask
    ev.add_argument("--game", action="append", dest="games", help="restrict to this game "
                                                                  "(repeatable)")
    ev.add_argument("--players", type=int, action="append", help="restrict to this player "
                                                                 "count (repeatable)")
    ev.add_argument("--table-games", type=int, help="games per table instead of the budget's "
                                                    "(a multiple of 60)")
    ev.add_argument("--leaderboard", default="results/leaderboard.csv",
                    help="leaderboard CSV (a .md is written beside it)")
    ev.add_argument("--reference-dir", help="cache of the reference ratings (default "
                                            "<out>/../reference)")
    ev.add_argument("--append", action="store_true",
                    help="add a leaderboard row even if this agent, hash and budget has one")
    ev.add_argument("--resume", action="store_true", help="finish an evaluation in --out")
    ev.add_argument("--force", action="store_true", help="replace an evaluation in --out")
    ev.add_argument("--quiet", action="store_true", help="print only the scorecard path")
    ev.set_defaults(func=cmd_evaluate)

    lb = sub.add_parser("leaderboard", help="print the leaderboard of `bluffsim evaluate`")
    lb.add_argument("--path", default="results/leaderboard.csv", help="leaderboard CSV")
    lb.set_defaults(func=cmd_leaderboard)

    g = sub.add_parser("games", help="list the games, their options and defaults; with GAME, "
                       "what an agent reads: its observation's fields, card types and values, "
                       "and the flat tensor's index / meaning table")
    g.add_argument("game", nargs="?", help="a game id: print its observation's fields (key, dtype, "
                                           "shape, meaning), card types and tensor layout")
    g.add_argument("--players", type=int, help="seats of that table (default: the game's)")
    g.add_argument("--source", action="store_true",
                   help="print the game's generated compiled observation source instead (the same "
                        "for every table size: sizes are read from the rules)")
    g.add_argument("--generate", action="store_true",
                   help="write the game's generated compiled kernels (kernels_generated.py beside its "
                        "kernels.py) from its observation spec and rules; every compiled game "
                        "without GAME")
    g.set_defaults(func=cmd_games)

    rp = sub.add_parser("replay", help="play a recorded game again exactly and show it step by "
                        "step, from a seat's view or a spectator's, in the terminal or as HTML")
    replay.add_arguments(rp)
    rp.set_defaults(func=replay.main)

    sv = sub.add_parser("serve", help="play against agents in the browser: a local web app, one "
                        "game per tab, each finished game a results row and a replay")
    web.add_arguments(sv)
    sv.set_defaults(func=web.main)
    p.description = (f"Simulator and agent benchmark for bluffing card games. Subcommands: "
                     f"{', '.join(sub.choices)} (bluffsim SUBCOMMAND --help for its options).")
    return p




def cmd_run(args: argparse.Namespace) -> int:
    """``bluffsim run``: play, write results, print the summary."""
    import signal

    from bluffsim.tournament import run_experiment
    from bluffsim.tournament.output import finished_rerun
    from bluffsim.tournament.runner import schedule_of
    from bluffsim.tournament.sweep import Sweep, load_plan, run_sweep

    if hasattr(signal, "SIGXFSZ"):   # past a file size limit a write fails (EFBIG), no kill
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    if args.resume and args.force:
        raise BluffsimError("--resume and --force exclude each other: --resume finishes the "
                            "previous run, --force replaces it")
    exp = load_plan(args.config, args.sets)   # --set overrides; an Experiment or a Sweep
    run = run_overrides(args)
    if run["address"] and not run["executor"]:
        run["executor"] = "dask"
    exp = exp.with_overrides(games=args.games, seed=args.seed, **run)
    if isinstance(exp, Sweep):
        if not args.quiet:
            print(exp.describe())
        print_sweep(run_sweep(exp, resume=args.resume, progress=not args.quiet, force=args.force,
                              keep_shards=args.keep_shards), exp.out_dir)
        return 0
    if not args.quiet and not finished_rerun(exp, args.resume, args.force):
        from bluffsim.tournament.output import check_output

        check_output(exp, args.resume, args.force)   # a bad --out fails before the config shows
        print(f"# resolved config (saved to {exp.out_dir}/config.json)\n{exp.to_toml()}")
    summary = run_experiment(exp, resume=args.resume, progress=not args.quiet, force=args.force,
                             keep_shards=args.keep_shards)
    print_summary(summary, exp.out_dir)
    balance = schedule_of(exp).balance()
    if not balance.whole:
        print(f"note: seatings unbalanced: {balance.games:,} games is not a whole number of "
              f"{balance.cycle:,}-game cycles ({balance.spread()}); see manifest.json \"seating\"")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    """``bluffsim report DIR``."""
    from bluffsim.analysis.sweeps import build_sweep_report
    from bluffsim.tournament import build_report
    from bluffsim.tournament.sweep import is_sweep_dir

    out = Path(args.results)
    if is_sweep_dir(out):
        print_sweep(build_sweep_report(out, rebuild_points=True), out)
        return 0
    if not out.is_dir():
        raise BluffsimError(f"{str(out)!r} is not a directory; give a results dir written by "
                            "`bluffsim run`")
    if not (out / "games.parquet").is_file():
        raise BluffsimError(f"{str(out)!r} holds no games.parquet; give a dir written by "
                            "`bluffsim run` (an unfinished run completes with --resume)")
    print_summary(build_report(out), out)
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    """``bluffsim bench``."""
    import os

    from benchmarks.engines import (
        bench_engines,
        bench_figure,
        has_chunked_prange,
        markdown_lines,
        summary_lines,
    )

    games = [g.strip() for g in args.games.split(",") if g.strip()]
    for g in games:
        bluffsim.game_module(g)
    try:
        batches = [int(x) for x in args.batches.split(",")]
        cores_batches = [int(x) for x in args.cores_batches.split(",")]
        env_players = [int(x) for x in args.env_players.split(",") if x.strip()]
    except ValueError:
        raise BluffsimError(f"--batches {args.batches!r} / --cores-batches "
                            f"{args.cores_batches!r} / --env-players {args.env_players!r}: give "
                            "integers like 1,64,1024") from None
    names = tuple(a.strip() for a in args.agents.split(",") if a.strip())
    import agents as agent_registry

    for name in names:
        if name not in agent_registry.list_agents():
            raise BluffsimError(f"--agents: unknown agent {name!r}; available: "
                                f"{', '.join(agent_registry.list_agents())}")
    ranges = {g: bluffsim.spec(g).players[:2] for g in games}
    wrong = [p for p in env_players if not any(lo <= p <= hi for lo, hi in ranges.values())]
    if wrong:
        raise BluffsimError(f"--env-players {args.env_players}: no game of --games is played by "
                            f"{wrong[0]} players (" + ", ".join(f"{g} {lo}–{hi}" for g, (lo, hi)
                                                                in ranges.items()) + ")")
    if args.env_batch < 1:
        raise BluffsimError(f"--env-batch {args.env_batch}: give at least 1 game")
    if args.repeats < 1 or args.seconds <= 0 or min(batches) < 1:
        raise BluffsimError("--repeats and --batches must be positive, --seconds above 0")
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if not 1 <= args.cores <= (usable or 1):
        raise BluffsimError(f"--cores {args.cores}: give 1 to {usable} (the CPUs this process "
                            "may use)")
    if args.cores > 1 and min(cores_batches) < args.cores:
        raise BluffsimError(f"--cores-batches {args.cores_batches}: at least one game per core")
    if args.cores > 1 and args.cores_via == "threads":
        lacking = [g for g in games if not has_chunked_prange(g, args.players)]
        if lacking:
            raise BluffsimError(f"--cores-via threads needs a compiled play_random kernel; "
                                f"{', '.join(lacking)} has none (use processes)")
    if max(batches + cores_batches) > MAX_BATCH:
        raise BluffsimError(f"--batches {max(batches + cores_batches)}: at most {MAX_BATCH} "
                            "games per batch "
                            "(as run.batch; a batch's state is held in memory at once)")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise BluffsimError(f"--out {args.out!r} is a file; give a directory")
    table = bench_engines(games, args.players, batches, args.repeats, args.seconds, names,
                          anchor=not args.no_anchor, cores=args.cores,
                          cores_batches=cores_batches, cores_via=args.cores_via,
                          env_players=env_players, env_batch=args.env_batch,
                          progress=to_stderr)
    shown = table.drop(columns=["players", "cpu"]).dropna(axis=1, how="all")
    with pd.option_context("display.width", 160, "display.max_columns", 40,
                           "display.float_format", "{:,.4g}".format):
        print(shown.to_string(index=False))
    print("\n".join(summary_lines(table)))
    if args.markdown:
        print("\n".join(markdown_lines(table)))
    out.mkdir(parents=True, exist_ok=True)
    table.to_parquet(out / "bench.parquet", index=False)
    bench_figure(table).savefig(out / "bench.png", dpi=120)
    print(f"wrote {out / 'bench.parquet'} and {out / 'bench.png'}")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    """``bluffsim play GAME --seats human,counting`` (or ``--watch``): see ``bluffsim.play``."""
    import tomllib

    from bluffsim.play import play_in_terminal

    bluffsim.game_module(args.game)
    options = {}
    for item in args.rule:
        name, sep, value = item.partition("=")
        if not sep:
            raise BluffsimError(f"--rule {item!r}: write NAME=VALUE, e.g. starting_tokens=3")
        if name.strip() == "num_players":
            raise BluffsimError(f"--rule {item!r}: the number of players is the number of "
                                "--seats (e.g. --seats human,counting,random), not a rule")
        try:
            options[name.strip()] = tomllib.loads(f"v = {value}")["v"]
        except tomllib.TOMLDecodeError:
            options[name.strip()] = value
    seats = args.seats or bluffsim.spec(args.game).terminal_seats(watch=args.watch)
    return play_in_terminal(args.game, seats, args.seed, options, watch=args.watch,
                            delay=args.delay)


ABR_ONLY = ("agent", "game", "players", "out", "eval_games", "markdown", "force")


def cmd_exploit(args: argparse.Namespace) -> int:
    """``bluffsim exploit``: the exploitability table of a preset, or with ``--agent`` an
    approximate best response (``cmd_abr``)."""
    if args.agent is not None:
        return cmd_abr(args)
    given = [f"--{k.replace('_', '-')}" for k in ABR_ONLY if getattr(args, k) not in (None, False)]
    given += [f"--{k}" for k, d in (("budget", "small"), ("seed", 1)) if getattr(args, k) != d]
    if given:
        raise BluffsimError(f"{', '.join(given)} need --agent (the approximate best response); "
                            "without it `bluffsim exploit` computes NashConv on a preset")
    try:
        from bluffsim.adapters import exploit
    except ImportError as e:
        raise BluffsimError(f"needs the 'adapters' extra (pip install -e '.[adapters]'): {e}") from None
    if args.preset is None:
        args.preset = exploit.default_preset()
    if args.preset not in exploit.PRESETS:
        raise BluffsimError(f"--preset {args.preset!r}: available: {', '.join(exploit.PRESETS)}")
    marks = exploit_marks(300 if args.iterations is None else args.iterations, args.checkpoints)
    game = exploit.load_preset(args.preset)
    weights = args.weights or exploit.preset_weights(args.preset)
    if weights is not None and not Path(weights).is_file():
        raise BluffsimError(f"--weights {weights!r}: file not found")
    try:
        rows = exploit.exploitability_table(game, marks, learned_weights=weights, progress=to_stderr)
    except KeyboardInterrupt:
        to_stderr("bluffsim: interrupted; nothing was written (the NashConv table prints when every "
                  "row is measured; the lines above are the rows measured so far)")
        return 130
    print(f"{args.preset}: {game}")
    print(pd.DataFrame(rows).to_string(index=False, float_format="{:.4f}".format))
    return 0


def cmd_abr(args: argparse.Namespace) -> int:
    """``bluffsim exploit --agent A``: an approximate best response per (game, agent, budget),
    every input checked before anything is trained or written (``bluffsim.abr``,
    ``bluffsim.plateau``)."""
    from bluffsim import abr, plateau

    try:
        import bluffsim.learn.ppo  # noqa: F401  (JAX and optax: checked before anything runs)
    except ImportError as e:
        raise BluffsimError(f"needs the 'learn' extra (pip install -e '.[learn]'): {e}") from None
    for flag, value in (("--iterations", args.iterations), ("--checkpoints", args.checkpoints),
                        ("--weights", args.weights)):
        if value is not None:
            raise BluffsimError(f"{flag} is for the CFR table (without --agent); against a "
                                "learned policy write --agent learned:weights=PATH")
    abr.check_seed(args.seed)
    cells = abr_cells(args, abr, plateau)
    root = Path(args.out or "results/exploit")
    if root.exists() and not root.is_dir():
        raise BluffsimError(f"--out {str(root)!r} is a file; give a directory")
    eval_games = abr.EVAL_GAMES if args.eval_games is None else args.eval_games
    if eval_games < 1:
        raise BluffsimError(f"--eval-games {eval_games}: give a positive number of games")
    plan = []
    for game, players, rules, preset, target, budget in cells:
        label, iterations, schedule = plateau.budget_plan(budget)
        cell = abr.cell_dir(root, game, players, target, label, preset)
        ident = (abr.identity(game, players, rules, target, iterations, args.seed, eval_games)
                 if schedule is None else
                 plateau.identity(game, players, rules, target, args.seed, eval_games, schedule,
                                  preset))
        done = None if args.force else abr.reusable(cell, ident)
        plan.append((game, players, rules, preset, target, label, schedule, cell, done))
    records: list[dict[str, Any]] = []
    try:
        plateau.measure_plan(plan, args.seed, eval_games, records, to_stderr)
    except KeyboardInterrupt:
        to_stderr(f"bluffsim: interrupted after {len(records)} of {len(plan)} cells; each finished "
                  f"cell's abr.json in {root}/ is kept and reused when the same command runs again")
        return 130
    table = pd.DataFrame([abr.summary_row(r) for r in records])
    with pd.option_context("display.width", 200, "display.max_columns", 30,
                           "display.float_format", "{:.3f}".format):
        print(table.to_string(index=False))
    print("win_rate: the response's outright win rate against the agent (sampling policy; "
          "95% Wilson CI), a lower bound on what a best response wins; greedy_*: its most "
          "probable action; decisions, cpu_s: the training budget")
    if args.markdown:
        md = abr.markdown_table(records)
        plateaus = [r for r in records if "runs" in r]
        if plateaus:
            md += "\n\n" + plateau.markdown_table(plateaus)
        print(md)
        (root / "abr_table.md").write_text(md + "\n", encoding="utf-8")
    print(f"results in {root}/ (per cell: abr.json, curve.png, weights.npz, train/log.csv; a "
          "plateau cell: abr.json, curve.png, seed<N>/weights_<iterations>.npz, seed<N>/train/)")
    return 0


def abr_cells(args: argparse.Namespace, abr: Any, plateau: Any) -> list[tuple[Any, ...]]:
    """(game, players, rules, preset, target, budget) of every ABR to run; one-line errors.

    An agent that cannot play one of several games (``learned`` has no weights for veru 3p) is
    skipped there with a note; an agent that plays none of them is an error."""
    targets = [abr.parse_target(t) for t in abr.split_agents(args.agent)]
    budgets = abr.split_pieces(str(args.budget)) or ["small"]
    for b in budgets:
        schedule = plateau.budget_plan(b)[2]
        if schedule is not None and args.seed + schedule.seeds - 1 > abr.SEED_MAX:
            raise BluffsimError(f"--seed {args.seed} with --budget plateau seeds={schedule.seeds}: "
                                f"its seeds run to {args.seed + schedule.seeds - 1}, above "
                                f"{abr.SEED_MAX}; give a smaller --seed")
    preset, rules = args.preset, {}
    if preset is not None:
        try:
            from bluffsim.adapters.exploit import PRESETS, preset_weights
        except ImportError as e:
            raise BluffsimError(f"--preset needs the 'adapters' extra: {e}") from None
        if preset not in PRESETS:
            raise BluffsimError(f"--preset {preset!r}: available: {', '.join(PRESETS)}")
        p = PRESETS[preset]
        if args.game not in (None, p["game"]):
            raise BluffsimError(f"--game {args.game!r}: preset {preset!r} is a {p['game']} preset")
        if args.players not in (None, p["players"]):
            raise BluffsimError(f"--players {args.players}: preset {preset!r} has "
                                f"{p['players']} players")
        games, rules = [p["game"]], dict(p["options"])
        targets = [abr.Target(t.text, t.agent, {**t.params, "weights": preset_weights(preset)})
                   if t.agent == "learned" and "weights" not in t.params and preset_weights(preset)
                   else t for t in targets]
    elif args.game is None:
        raise BluffsimError("--agent needs --game (e.g. --game qdv) or --preset (e.g. "
                            "--preset qdv-small)")
    else:
        games = [g.strip() for g in args.game.split(",") if g.strip()]
        for g in games:
            bluffsim.game_module(g)
    if args.players is not None and args.players < 1:
        raise BluffsimError(f"--players {args.players}: give a number of seats")
    cells = []
    for t in targets:
        plays, why = [], []
        for g in games:
            players = args.players or (PRESETS[preset]["players"] if preset else
                                       abr.default_players(g))
            try:
                abr.check_target(g, players, rules, t)
                plays.append((g, players))
            except BluffsimError as e:
                why.append(str(e))
        if not plays:
            raise BluffsimError(why[0])
        for w in why:
            to_stderr(f"exploit: skipped: {w}")
        cells += [(g, p, rules, preset, t, b) for g, p in plays for b in budgets]
    order = {g: i for i, g in enumerate(games)}   # game by game, then agent, then budget
    return sorted(cells, key=lambda c: order[c[0]])


def exploit_marks(iterations: int, checkpoints: str | None) -> list[int]:
    """The CFR iteration counts ``bluffsim exploit`` reports: ``--checkpoints`` (default: those of
    1, 10, 100 not above ``--iterations``) and ``--iterations``."""
    if iterations < 1:
        raise BluffsimError(f"--iterations {iterations}: give a positive number of CFR iterations")
    if checkpoints is None:
        return sorted({m for m in (1, 10, 100) if m <= iterations} | {iterations})
    try:
        marks = {int(x) for x in checkpoints.split(",") if x.strip()}
    except ValueError:
        raise BluffsimError(f"--checkpoints {checkpoints!r}: give integers like 1,10,100") from None
    if any(not 1 <= m <= iterations for m in marks):
        raise BluffsimError(f"--checkpoints {checkpoints}: give iteration counts 1..{iterations} "
                            f"(--iterations {iterations} is the last one run)")
    return sorted(marks | {iterations})


def cmd_train(args: argparse.Namespace) -> int:
    """``bluffsim train CONFIG``: PPO self-play training; writes a weights file for ``learned``."""
    from bluffsim.learn import load_train_config, uncompiled_opponents

    cfg = load_train_config(args.config).with_overrides(
        iterations=args.iterations, out=args.out, weights=args.weights)
    try:
        from bluffsim.learn.ppo import check_resume, interrupted_message, train
    except ImportError as e:
        raise BluffsimError(f"needs the 'learn' extra (pip install -e '.[learn]'): {e}") from None
    if args.resume and check_resume(cfg) is None:   # a damaged checkpoint fails here, before writing
        to_stderr(f"note: no checkpoint in {cfg.out}/: --resume starts from iteration 0")
    slow = uncompiled_opponents(cfg)
    if slow:
        to_stderr(f"note: {', '.join(slow)} ha{'s' if len(slow) == 1 else 've'} no compiled policy: "
                  "every opponent plays through Python (same games, slower than the fused loop)")
    keep_replaced_weights(Path(cfg.weights), Path(cfg.out))
    command = " ".join(["bluffsim train", args.config]
                       + [f"--{k} {v}" for k, v in (("iterations", args.iterations), ("out", args.out),
                                                   ("weights", args.weights)) if v is not None]
                       + (["--resume"] if args.resume else []))
    try:
        path = train(cfg, resume=args.resume, progress=not args.quiet, command=command)
    except KeyboardInterrupt:
        resume = command if args.resume else f"{command} --resume"
        to_stderr(f"bluffsim: {interrupted_message(cfg, resume)}")
        return 130
    print(f"wrote {path} (log and checkpoint in {cfg.out}/)")
    return 0


def keep_replaced_weights(weights: Path, out: Path) -> None:
    """Before a run replaces an existing weights file (the shipped ``agents/weights/`` files are
    what ``agent = "learned"`` loads), copy it to ``OUT/replaced_<name>`` (``replaced_<stem>_<k>``
    when that exists: an earlier copy is never overwritten) and say so."""
    if not weights.is_file():
        return
    out.mkdir(parents=True, exist_ok=True)
    kept, k = out / f"replaced_{weights.name}", 1
    while kept.exists():
        kept, k = out / f"replaced_{weights.stem}_{k}{weights.suffix}", k + 1
    shutil.copy2(weights, kept)
    print(f"note: this run replaces {weights} (a copy is kept in {kept}; --weights PATH writes "
          "elsewhere)", file=sys.stderr)


def cmd_evaluate(args: argparse.Namespace) -> int:
    """``bluffsim evaluate AGENT``: see ``bluffsim.evaluate``."""
    from bluffsim import evaluate

    run = run_overrides(args)
    p = evaluate.plan(args.agent, args.budget, args.out, args.workers, args.games, args.players,
                      args.table_games, args.leaderboard, args.reference_dir, args.append,
                      args.resume, args.force, run["executor"], run["address"])
    try:
        result = evaluate.run(p, log=(lambda _m: None) if args.quiet
                              else (lambda m: print(m, flush=True)))
    except KeyboardInterrupt:
        to_stderr(f"bluffsim: interrupted; the finished tables are kept in {p.out}/tables: rerun "
                  "the same command with --resume to play the rest")
        return 130
    if not args.quiet:
        print((p.out / "scorecard.md").read_text(encoding="utf-8"))
    print(f"scorecard in {p.out}/ (scorecard.md, scorecard.csv, ratings.csv, plots/); "
          f"leaderboard {p.leaderboard} ({len(result['leaderboard'])} "
          f"row{'' if len(result['leaderboard']) == 1 else 's'}); "
          f"{result['seconds']:.0f} s")
    return 0


def cmd_leaderboard(args: argparse.Namespace) -> int:
    """``bluffsim leaderboard``: print the leaderboard."""
    from bluffsim import evaluate

    print(evaluate.print_leaderboard(Path(args.path)), end="")
    return 0


def cmd_games(args: argparse.Namespace) -> int:
    """``bluffsim games``: every game with its options and defaults; ``bluffsim games GAME``: what
    an agent reads (``print_observation``; ``--source``: the generated compiled observation)."""
    if args.generate:
        return write_generated(args.game)
    if args.game is not None:
        return print_observation(args.game, args.players, args.source)
    if args.players is not None or args.source:
        raise BluffsimError("--players and --source need a GAME (bluffsim games GAME --players N)")
    for gid in bluffsim.list_games():
        spec = bluffsim.spec(gid)
        print(f"{gid}: {spec.name} — {spec.summary}")
        for name, default, allowed in spec.rules.describe():
            if name == "num_players":
                allowed += " (experiment.players in a config, --seats in play; not [rules])"
            print(f"    {name:<22} default {default:<40} allowed {allowed}")
    return 0


def write_generated(game_id: str | None) -> int:
    """``bluffsim games [GAME] --generate``: write the generated kernels of ``game_id`` (every
    compiled game when None) and say which changed."""
    from bluffsim.games import obscompile
    from bluffsim.games.compiled import CompiledGame

    games = [game_id] if game_id is not None else bluffsim.list_games()
    for gid in games:
        engine = bluffsim.spec(gid).engine
        if not issubclass(engine, CompiledGame):
            if game_id is not None:
                raise BluffsimError(f"{gid} has no generated kernels (its engine is not a "
                                    "CompiledGame)")
            continue
        changed = obscompile.write_generated(engine.kernels)
        print(f"{obscompile.generated_path(engine.kernels)}: {'written' if changed else 'unchanged'}")
    return 0


def print_observation(game_id: str, players: int | None, source: bool) -> int:
    """Print what an agent of a game reads at ``players`` seats (the structured observation's
    fields, the legal mask, the card types and their worth, the tensor layout:
    ``bluffsim.games.display.agent_view_text``), or its generated observation source."""
    spec = bluffsim.spec(game_id)
    if not source:
        from bluffsim.games.display import agent_view_text

        print(agent_view_text(game_id, spec.make_rules(players), spec.observation.SPEC,
                              spec.observation.__name__, spec.display_module().DISPLAY))
        return 0
    from bluffsim.games import obscompile

    kn = getattr(spec.make(players), "kernels", None)
    if kn is None:
        raise BluffsimError(f"{game_id} has no generated observation source (its engine is not a "
                            "CompiledGame)")
    print(obscompile.generated_path(kn).read_text(encoding="utf-8"), end="")
    return 0


def to_stderr(line: str) -> None:
    """A progress line: to stderr, so what stdout prints (tables, --markdown) stays clean."""
    print(line, file=sys.stderr, flush=True)


def print_summary(summary: pd.DataFrame, out: object) -> None:
    """The results table as the CLI prints it."""
    cols = {"games": "games", "win_rate": "win rate", "ci_low": "95% CI low",
            "ci_high": "95% CI high", "win_share": "win share", "mean_placement": "mean place",
            "rating": "rating", "se": "± se"}
    t = summary[[c for c in cols if c in summary]].rename(columns=cols)
    with pd.option_context("display.float_format", "{:.3f}".format, "display.width", 120):
        print(t.to_string())
    print(WIN_SHARE_NOTE + _shared_note(summary))
    if "rating" in summary and len(summary) > 1 and summary["rating"].isna().all():
        print(RATINGS_NOT_ESTIMABLE)
    from bluffsim.tournament.runner import llm_cost_line

    cost = llm_cost_line(Path(str(out)))   # runs with text agents: calls, tokens, cached share
    if cost:
        print(cost)
    print(f"\nresults in {out}/ (games.parquet, rounds.parquet, summary.csv, plots/)")


RATINGS_NOT_ESTIMABLE = ("note: ratings not estimable from these games (some agents never placed "
                         "ahead of, or never behind, the others: Bradley–Terry has no finite "
                         "fit); play more games")
WIN_SHARE_NOTE = ("win rate: first place alone (outright); win share: first place with a tie "
                  "for first split 1/k, so win shares sum to 1 over a game's seats")


def _shared_note(table: pd.DataFrame) -> str:
    """"; N first places shared" when some were (then win rates sum to less than 1)."""
    if "shared_wins" not in table or not table["shared_wins"].sum():
        return ""
    return f"; {int(table['shared_wins'].sum()):,} first places shared"


def print_sweep(table: pd.DataFrame, out: object) -> None:
    """The sweep table as the CLI prints it: win rate and CI per point and agent."""
    cols = [*table.attrs.get("keys", []), "agent", "games", "win_rate", "ci_low", "ci_high",
            "win_share", "mean_placement"]
    with pd.option_context("display.float_format", "{:.3f}".format, "display.width", 140):
        print(table[[c for c in cols if c in table]].to_string(index=False))
    print(WIN_SHARE_NOTE + _shared_note(table))
    print(f"\nsweep results in {out}/ (sweep.csv, sweep.parquet, sweep_seats.csv, points/<i>/, "
          "plots/sweep_<key>.png)")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
