"""``bluffsim serve``: play a game against agents in the browser, on a local web page.

``bluffsim serve [--game G] [--players N] [--opponents A,B,...] [--seat K] [--rule NAME=VALUE]
[--host H] [--port P] [--out DIR] [--seed S]`` checks every flag (one-line errors, exit 2, before
the server starts), binds the port, compiles what numba lacks, and serves until Ctrl-C.  Every
browser tab plays its own game (``bluffsim.web.app``); the agents play server-side
(``bluffsim.web.table``) and every finished game is written to the results dir as
``bluffsim run`` writes games, the human seat as agent ``human`` with its decisions in
``transcripts/`` (``bluffsim.web.record``).  See docs/serve.md.

| module | what it holds |
|---|---|
| ``setup`` | the flags checked into a ``ServeSetup`` (the table as an ``Experiment``, seeds) |
| ``table`` | ``WebGame``: one game, what its page may show, the human's transcript |
| ``record`` | ``ResultsDir``: game numbers, finished games written as a run's results |
| ``app`` | the Starlette routes over the games of one server |
| ``server`` | the warm-up and uvicorn on a socket bound first |
| ``static/`` | the pages, their script and style sheet (plain HTML and JavaScript) |
"""

from __future__ import annotations

import argparse
import sys

import bluffsim
from bluffsim.results import output_lock
from bluffsim.web.setup import DEFAULT_HOST, DEFAULT_PORT, ServeSetup, bind, from_flags


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``serve`` subcommand's flags."""
    games = bluffsim.list_games()
    parser.add_argument("--game", default=games[0], help="game id: " + ", ".join(games)
                        + f" (default {games[0]})")
    parser.add_argument("--players", type=int, default=None,
                        help="players at the table, the human included (default: one more than "
                             "--opponents, else the game's bluffsim play table)")
    parser.add_argument("--opponents", default=None, metavar="AGENTS",
                        help="comma-separated agents for the other seats, in seat order, each "
                             "with optional parameters (counting,heuristic:bluff=0.3); one agent "
                             "fills every other seat (default: bluffsim play's, e.g. "
                             "counting,heuristic)")
    parser.add_argument("--seat", type=int, default=0, help="the human's seat (default 0)")
    parser.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE",
                        help="a rules option, e.g. --rule starting_tokens=3 (repeatable)")
    parser.add_argument("--host", default=DEFAULT_HOST,
                        help=f"address to listen on (default {DEFAULT_HOST}: this machine only)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"port to listen on (default {DEFAULT_PORT}; 0: any free port)")
    parser.add_argument("--out", default=None, metavar="DIR",
                        help="results dir of the finished games (default results/serve_<game>); "
                             "a dir of the same setup is continued")
    parser.add_argument("--seed", type=int, default=None,
                        help="master seed 0..2**63-1: game k is dealt from word(seed, 7, k) "
                             "(default: the dir's, else a random one, printed)")


def setup_of(argv: list[str]) -> ServeSetup:
    """The checked setup of ``serve`` flags given as a list (for scripts and tests)."""
    parser = argparse.ArgumentParser(prog="bluffsim serve")
    add_arguments(parser)
    return from_flags(parser.parse_args(argv))


def main(args: argparse.Namespace) -> int:
    """Run ``bluffsim serve`` until Ctrl-C (exit status 0)."""
    from bluffsim.web.server import Server, warm_up

    setup = from_flags(args)
    sock = bind(setup.host, setup.port)
    with output_lock(setup.out):
        warm_up(setup)
        server = Server(setup, sock)
        more = f" (continuing: games from {setup.first_game})" if setup.first_game else ""
        print(f"bluffsim serve: {server.url} · {setup.describe()} · seed {setup.seed} · results "
              f"in {setup.out}{more}; Ctrl-C stops", flush=True)
        try:
            server.run()
        except KeyboardInterrupt:
            pass
        print(f"bluffsim serve: stopped; {server.tables.results.written} games saved in "
              f"{setup.out} this time", file=sys.stderr, flush=True)
    return 0
