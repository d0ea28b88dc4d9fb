"""A run's output dir as the runner uses it: prepared (or checked for a resume) from an
``Experiment``, and the manifest written once merged.  The file I/O itself is
``bluffsim.results`` (below both the runner and the analysis).

Running the same config again into a dir that holds its finished run (``finished_rerun``:
same identity, merged, neither ``--resume`` nor ``--force``) is not an error: the games are
already there, so the runner says so in one line and rebuilds the report, as ``--resume``
on a finished run does; ``--force`` replays the games.  A different config in that dir, or
an unfinished run without ``--resume``, is still refused.
"""

from __future__ import annotations

import json
import os
import platform
from pathlib import Path
from typing import Any

import bluffsim
from bluffsim import rng
from bluffsim.api import BluffsimError
from bluffsim.results import (
    LOCK_FILE,
    OutputError,
    _jsonable,
    check_not_in_use,
    clear_run,
    git_hash,
    has_results,
    is_complete,
    remove_temporaries,
    write_json,
)
from bluffsim.tournament.config import EXPERIMENT_KEYS, RUN_KEYS, Experiment
from bluffsim.tournament.runner import schedule_of


def prepare_output(exp: Experiment, resume: bool, force: bool = False) -> Path:
    """Create (or, with ``resume``, check; with ``force``, empty) the output dir; returns it.

    A dir left by a failed run that finished no shard is reused silently: there is
    nothing to resume and nothing to lose.
    """
    out = exp.out_dir
    cfg = out / "config.json"
    try:
        if check_output(exp, resume, force):
            clear_run(out)
        (out / "shards").mkdir(parents=True, exist_ok=True)
        remove_temporaries(out)
        write_json(cfg, {"identity": _jsonable(exp.identity()), "config": exp.to_dict()})
    except OSError as e:
        if isinstance(e, BluffsimError):
            raise
        raise OutputError(f"cannot write to output dir {str(out)!r}: "
                          f"{e.strerror or e}") from None
    return out


def check_output(exp: Experiment, resume: bool, force: bool = False) -> bool:
    """Raise ``OutputError`` if the run may not use its output dir (another run holds it, it
    is a file, ...; writes nothing); returns whether a previous run's files are to be cleared
    first."""
    out = exp.out_dir
    cfg = out / "config.json"
    try:
        if out.exists() and not out.is_dir():
            raise OutputError(f"output dir {str(out)!r} is a file, not a directory; give a "
                              "directory (--out or run.out)")
        check_not_in_use(out)
        if out.is_dir() and any(p.name != LOCK_FILE for p in out.iterdir()):
            if not cfg.is_file():
                raise OutputError(f"output dir {str(out)!r} is not empty and holds no bluffsim run "
                                  "(no config.json); choose another dir with --out")
            if force or not has_results(out):
                return True
            if not resume:
                raise OutputError(f"output dir {str(out)!r} is not empty: it holds a previous "
                                  "run; pass --resume to finish it, --force to replace it, or "
                                  "--out to choose another dir")
            saved, now = saved_identity(cfg), _jsonable(exp.identity())
            if saved != now:
                raise OutputError(f"--resume: {str(out)!r} was made by a different config: "
                                  f"{describe_differences(saved, now)}; pass --force to replace "
                                  "it, or --out to choose another dir")
    except OSError as e:
        if isinstance(e, BluffsimError):
            raise
        raise OutputError(f"cannot use output dir {str(out)!r}: {e.strerror or e}") from None
    return False


def finished_rerun(exp: Experiment, resume: bool, force: bool) -> bool:
    """True when a plain run (neither ``resume`` nor ``force``) finds its output dir holding a
    finished run of the same identity (module docstring); reads only, never raises."""
    out = exp.out_dir
    if resume or force:
        return False
    try:
        if not (out.is_dir() and is_complete(out)):
            return False
        return saved_identity(out / "config.json") == _jsonable(exp.identity())
    except OSError:       # unreadable or corrupt: check_output words the refusal
        return False


def finished_rerun_note(exp: Experiment) -> str:
    """The one line a finished rerun prints: the results are there, ``--force`` replays them."""
    return (f"{str(exp.out_dir)!r} already holds this finished run (same config): its results "
            "are kept and its report rebuilt; pass --force to play the games again")


def saved_identity(cfg: Path) -> dict[str, Any]:
    """The identity a run saved in its ``config.json``; ``OutputError`` naming the file if it is
    not the JSON a run writes (corrupt or edited)."""
    try:
        data = json.loads(cfg.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        data = None
    if not isinstance(data, dict) or not isinstance(data.get("identity"), dict):
        raise OutputError(f"--resume: {str(cfg)!r} is corrupt (not the JSON config a bluffsim run "
                          "writes), so the run cannot be checked; pass --force to replace the run, "
                          "or --out to choose another dir")
    return data["identity"]


_ABSENT = object()


def describe_differences(saved: Any, now: Any, limit: int = 6) -> str:
    """The keys whose values differ between a saved and a new identity, in config key form with
    both values: ``experiment.seed (5 there, 6 now), rules.jokers (default there, 2 now)``."""
    diffs = _differences(saved, now, "")
    if not diffs:
        return "its identity differs"
    more = f", and {len(diffs) - limit} more" if len(diffs) > limit else ""
    return ", ".join(diffs[:limit]) + more


def _differences(saved: Any, now: Any, path: str) -> list[str]:
    if isinstance(saved, dict) and isinstance(now, dict):
        out = []
        for k in dict.fromkeys([*saved, *now]):
            sub = (f"experiment.{k}" if k in EXPERIMENT_KEYS else f"run.{k}" if k in RUN_KEYS
                   else k) if not path else f"{path}.{k}"
            out += _differences(saved.get(k, _ABSENT), now.get(k, _ABSENT), sub)
        return out
    if isinstance(saved, list) and isinstance(now, list) and len(saved) == len(now):
        return [d for i, (a, b) in enumerate(zip(saved, now, strict=True))
                for d in _differences(a, b, f"{path}[{i}]")]
    if saved == now:
        return []
    return [f"{path} ({_shown(saved, path)} there, {_shown(now, path)} now)"]


def _shown(value: Any, path: str) -> str:
    if value is _ABSENT:
        return "default" if path.startswith("rules.") or ".params." in path else "absent"
    if isinstance(value, list) and path in ("seats", "pool"):
        return f"{len(value)} seats"
    text = json.dumps(value, default=str)
    return text if len(text) <= 40 else text[:39] + "…"


def write_manifest(out: Path, exp: Experiment, timing: dict[str, Any]) -> None:
    """Version, git hash, config, seed scheme, seating balance (``Schedule.balance``), timing
    and machine, as JSON."""
    write_json(out / "manifest.json", {
        "bluffsim_version": bluffsim.__version__,
        "git_hash": git_hash(),
        "config": exp.to_dict(),
        "seeds": {"master": exp.seed, "scheme": f"word(master, {rng.Stream.SCHEDULE}, deal) "
                  "(bluffsim.tournament.schedule)", "duplicate": exp.duplicate, "rotate": exp.rotate,
                  "permute": exp.permute, "seating": exp.seating_mode},
        "seating": schedule_of(exp).balance().to_dict(),
        "timing": timing,
        "machine": {"python": platform.python_version(), "platform": platform.platform(),
                    "cpus": os.cpu_count()},
    })
