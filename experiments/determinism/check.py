"""The portable determinism check: small fixed tournaments whose results are pinned by hash.

Each config beside this file (``qdv.toml``, ``legumes.toml``, ``veru.toml``: heuristic,
counting and learned seats) is played through the real runner (``run_experiment``: shards,
merge) at two batch sizes, and the content hash of its ``games.parquet`` / ``rounds.parquet``
(``bluffsim.results.results_digest``) is compared with ``hashes.json``.  A game
depends only on its seed and its actions, so the hashes may not change with the batch size,
the CPU, numpy's SIMD dispatch or the C library's math.  ``tests/test_determinism.py`` runs
this script twice, with numpy's native dispatch and with every dispatched SIMD target above
the x86-64-v2 baseline (AVX2, AVX-512) disabled (``NPY_DISABLE_CPU_FEATURES``) and glibc's
AVX2/FMA math disabled (``GLIBC_TUNABLES``); ``--numba-generic`` additionally compiles every
kernel for a generic x86-64 CPU (cold compile, minutes: not in CI).

    python experiments/determinism/check.py            # check; exit 1 on a mismatch
    python experiments/determinism/check.py --update   # rewrite hashes.json (after a
                                                       # deliberate change of behaviour)
    python experiments/determinism/check.py --json     # print the digests as JSON
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
HASHES = HERE / "hashes.json"
GAMES = ("qdv", "legumes", "veru")
# batch sizes: one game at a time is not worth the time; 7 splits the 120-game shards
# unevenly, 120 plays a whole shard in one batch
BATCHES = (7, 120)


def play_digests(game: str, batch: int) -> dict[str, str]:
    """The results digest of ``<game>.toml`` played at ``batch`` games per batch, one worker."""
    from bluffsim.results import results_digest
    from bluffsim.tournament.config import load_raw, parse_config
    from bluffsim.tournament.experiment import run_experiment

    raw = load_raw(HERE / f"{game}.toml")
    with tempfile.TemporaryDirectory() as tmp:
        raw["run"] = {**raw.get("run", {}), "batch": batch, "workers": 1, "plots": False,
                      "out": str(Path(tmp) / game)}
        exp = parse_config(raw, source=f"{game}.toml")
        run_experiment(exp, progress=False)
        return results_digest(Path(tmp) / game)


def all_digests(games: tuple[str, ...] = GAMES) -> dict[str, dict[str, dict[str, str]]]:
    """``{game: {batch: {"games": sha, "rounds": sha}}}`` for every game and batch size."""
    return {g: {str(b): play_digests(g, b) for b in BATCHES} for g in games}


def mismatches(got: dict, pinned: dict) -> list[str]:
    """One line per (game, batch, table) whose digest differs from the pinned one."""
    out = []
    for game, by_batch in got.items():
        for batch, tables in by_batch.items():
            for table, digest in tables.items():
                want = pinned.get(game, {}).get(table)
                if digest != want:
                    out.append(f"{game} batch {batch} {table}.parquet: {digest[:16]} != pinned "
                               f"{(want or 'none')[:16]}")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--update", action="store_true", help="rewrite hashes.json from this run")
    p.add_argument("--json", action="store_true", help="print the digests as JSON")
    p.add_argument("--games", nargs="+", choices=GAMES, default=list(GAMES))
    p.add_argument("--numba-generic", action="store_true",
                   help="compile the kernels for a generic x86-64 CPU in a fresh cache (slow)")
    args = p.parse_args(argv)
    if args.numba_generic and os.environ.get("NUMBA_CPU_NAME") != "generic":
        env = {**os.environ, "NUMBA_CPU_NAME": "generic",
               "NUMBA_CACHE_DIR": tempfile.mkdtemp(prefix="numba-generic-")}
        os.execve(sys.executable, [sys.executable, __file__, *[a for a in (argv or sys.argv[1:])
                                                              if a != "--numba-generic"]], env)
    got = all_digests(tuple(args.games))
    if args.json:
        print(json.dumps(got, indent=1, sort_keys=True))
    if args.update:
        pinned = {g: got[g][str(BATCHES[0])] for g in got}
        if any(got[g][str(b)] != pinned[g] for g in got for b in BATCHES):
            print("refusing to pin: the batch sizes disagree", file=sys.stderr)
            return 1
        old = json.loads(HASHES.read_text()) if HASHES.is_file() else {}
        HASHES.write_text(json.dumps({**old, **pinned}, indent=1, sort_keys=True) + "\n")
        print(f"pinned {', '.join(got)} in {HASHES}")
        return 0
    bad = mismatches(got, json.loads(HASHES.read_text()))
    for line in bad:
        print(line, file=sys.stderr)
    if not bad:
        print(f"determinism: {len(got)} games x batch sizes {BATCHES}: every digest matches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
