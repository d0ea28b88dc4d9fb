"""Results on disk: atomic shard files, resume, the merged tables and the manifest.

Layout of an output dir::

    config.json            resolved experiment (what `--resume` checks)
    manifest.json          version, git hash, config, seeds, timing, machine
    shards/games-00003.parquet, shards/rounds-00003.parquet
    games.parquet          one row per game and seat
    rounds.parquet         one row per round
    summary.csv, head_to_head.csv, ratings.csv, bluff.csv
    plots/*.png

A shard is written to a temporary name and renamed into place (rounds first,
games last), so a shard's ``games`` file exists only once the shard is whole:
an interrupted run leaves finished shards valid and ``--resume`` redoes only
the missing ones.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd

import bluffsim
from bluffsim.api import BluffsimError
from bluffsim.tournament.config import Experiment


class OutputError(BluffsimError, OSError):
    """The output dir cannot be used (exists without --resume, other config, unwritable)."""


def shard_paths(out: Path, shard: int) -> tuple[Path, Path]:
    """(games, rounds) parquet paths of a shard."""
    return (out / "shards" / f"games-{shard:05d}.parquet",
            out / "shards" / f"rounds-{shard:05d}.parquet")


def prepare_output(exp: Experiment, resume: bool) -> Path:
    """Create (or, with ``resume``, check) the output dir; returns it."""
    out = exp.out_dir
    cfg = out / "config.json"
    if out.exists() and any(out.iterdir()):
        if not resume:
            raise OutputError(f"output dir {str(out)!r} is not empty; pass --resume to finish "
                              "that run or --out to choose another dir")
        if not cfg.is_file():
            raise OutputError(f"--resume: {str(out)!r} holds no config.json; not a bluffsim run")
        saved = json.loads(cfg.read_text())
        if saved.get("identity") != _jsonable(exp.identity()):
            raise OutputError(f"--resume: {str(out)!r} was made by a different config "
                              "(game, rules, lineup, games, seed or schedule differ)")
    try:
        (out / "shards").mkdir(parents=True, exist_ok=True)
        write_json(cfg, {"identity": _jsonable(exp.identity()), "config": exp.to_dict()})
    except OSError as e:
        raise OutputError(f"cannot write to output dir {str(out)!r}: {e.strerror}") from None
    return out


def done_shards(out: Path, num_shards: int) -> set[int]:
    """Shards whose files are complete."""
    return {s for s in range(num_shards) if shard_paths(out, s)[0].is_file()}


def write_shard(out: Path, shard: int, games: pd.DataFrame, rounds: pd.DataFrame) -> None:
    """Write a shard atomically (rounds first; the games file marks completion)."""
    g, r = shard_paths(out, shard)
    _atomic_parquet(rounds, r)
    _atomic_parquet(games, g)


def merge_shards(out: Path, num_shards: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Concatenate all shards into ``games.parquet`` and ``rounds.parquet``."""
    games = pd.concat([pd.read_parquet(shard_paths(out, s)[0]) for s in range(num_shards)],
                      ignore_index=True)
    parts = [pd.read_parquet(shard_paths(out, s)[1]) for s in range(num_shards)]
    rounds = pd.concat([p for p in parts if len(p)], ignore_index=True) if parts else pd.DataFrame()
    _atomic_parquet(games, out / "games.parquet")
    _atomic_parquet(rounds, out / "rounds.parquet")
    return games, rounds


def write_manifest(out: Path, exp: Experiment, timing: dict[str, Any]) -> None:
    """Version, git hash, config, seed scheme, timing and machine, as JSON."""
    write_json(out / "manifest.json", {
        "bluffsim_version": bluffsim.__version__,
        "git_hash": git_hash(),
        "config": exp.to_dict(),
        "seeds": {"master": exp.seed, "scheme": "word(master, 7, deal) (bluffsim.tournament."
                  "schedule)", "duplicate": exp.duplicate, "rotate": exp.rotate,
                  "permute": exp.permute},
        "timing": timing,
        "machine": {"python": platform.python_version(), "platform": platform.platform(),
                    "cpus": os.cpu_count()},
    })


def git_hash() -> str:
    """Commit of the bluffsim checkout, or '' when not in a git repository."""
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                              cwd=Path(__file__).parent, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def write_json(path: Path, data: Any) -> None:
    """Write JSON atomically."""
    _atomic_write(path, json.dumps(data, indent=2, default=str).encode())


def _atomic_parquet(df: pd.DataFrame, path: Path) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        df.to_parquet(tmp, index=False)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _atomic_write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _jsonable(d: Any) -> Any:
    return json.loads(json.dumps(d, default=str))
