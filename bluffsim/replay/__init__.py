"""``bluffsim replay``: any recorded game played again exactly from its seed, shown step by step.

``bluffsim replay RESULTS_DIR --game N [--table KEY] [--seat S | --omniscient] [--html FILE]
[--prompts]`` rebuilds game ``N`` of a ``bluffsim run`` (or ``bluffsim serve``) dir, or of one
table of a ``bluffsim evaluate`` dir, on the reference engine, checks it against the recorded
rows, and prints every decision from one view — a seat's (nothing that seat could not see, the
other hands revealed after the end) or, by default, a spectator's — or writes the
self-contained HTML viewer.  ``--find COND ...`` lists the games matching conditions on the
results' columns instead.  A replay that leaves its record is a one-line error saying whether
the code changed since the run.  See docs/replay.md.

| module | what it holds |
|---|---|
| ``record`` | a results dir read: its lineup, one game's rows, its transcript |
| ``game`` | ``replay_game``: the game played again and checked |
| ``views`` | the frames one viewer sees (a seat's built from its observations only) |
| ``terminal`` | the frames printed |
| ``html`` | the frames in ``viewer.html``, one file with no network |
| ``find`` | ``--find``: games by conditions on the results |
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from bluffsim.replay.game import Replayed, replay_game
from bluffsim.replay.record import ReplayError, Source, open_source

__all__ = ["ReplayError", "Replayed", "add_arguments", "main", "open_source", "replay_game"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``replay`` subcommand's flags."""
    parser.add_argument("results", metavar="RESULTS_DIR",
                        help="a dir written by bluffsim run, serve or evaluate")
    parser.add_argument("--game", type=int, default=None,
                        help="the game to replay (its `game` column in games.parquet)")
    parser.add_argument("--table", default="",
                        help="an evaluate dir's table key (evaluation.json lists them)")
    view = parser.add_mutually_exclusive_group()
    view.add_argument("--seat", type=int, default=None,
                      help="show the game as seat S saw it: its own cards, the public table and "
                           "history; the other hands only after the end")
    view.add_argument("--omniscient", action="store_true",
                      help="show every hand at every step (the default view)")
    parser.add_argument("--html", default=None, metavar="FILE",
                        help="write the self-contained HTML viewer to FILE instead of printing")
    parser.add_argument("--prompts", action="store_true",
                        help="print text seats' system prompts in full (terminal)")
    parser.add_argument("--find", nargs="+", default=None, metavar="COND",
                        help="list the games matching every KEY=VALUE condition (also !=, >=, <=, "
                             ">, <; VALUE max or min): e.g. agent=counting placement=4, "
                             "call_right=false, decisions=max")


def check_flags(args: argparse.Namespace) -> None:
    """The flags that contradict each other, as a one-line error."""
    if args.find is not None and args.game is not None:
        raise ReplayError("--find lists games and --game replays one: give one of them")
    if args.find is None and args.game is None:
        raise ReplayError("give --game N (a game of the results) or --find COND to list games")
    if args.find is not None and (args.html or args.seat is not None or args.omniscient):
        raise ReplayError("--find lists games; --html, --seat and --omniscient apply to --game")
    if args.html and not Path(args.html).resolve().parent.is_dir():
        raise ReplayError(f"--html {args.html}: the dir {str(Path(args.html).parent)!r} does "
                          "not exist; give a file in an existing dir")


def check_seat(r: Replayed, seat: int | None) -> None:
    """A seat the table does not have is a one-line error naming the seats it has."""
    if seat is not None and not 0 <= seat < r.players:
        raise ReplayError(f"--seat {seat}: game {r.game} has seats 0..{r.players - 1} "
                          f"({', '.join(r.labels)})")


def command_of(args: argparse.Namespace) -> str:
    """The replay command for ``--find``'s hint."""
    words = ["bluffsim", "replay", args.results, *(["--table", args.table] if args.table else [])]
    return shlex.join(words)


def main(args: argparse.Namespace) -> int:
    """Run ``bluffsim replay`` (module docstring)."""
    from bluffsim.replay.find import find_lines

    check_flags(args)
    source: Source = open_source(args.results, args.table)
    if args.find is not None:
        for line in find_lines(source, args.find, command_of(args)):
            print(line)
        return 0
    if args.seat is not None and args.seat < 0:
        raise ReplayError(f"--seat {args.seat}: seats are numbered from 0")
    r = replay_game(source, args.game)
    check_seat(r, args.seat)
    if args.html:
        from bluffsim.replay.html import write_viewer

        path = write_viewer(r, args.seat, args.html)
        print(f"bluffsim replay: game {r.game} ({r.game_id}, {len(r.steps)} decisions) replayed "
              f"exactly; viewer written to {path}", file=sys.stderr)
        return 0
    from bluffsim.replay.terminal import print_replay

    print_replay(r, args.seat, print, args.prompts)
    return 0
