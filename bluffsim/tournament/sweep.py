"""Sweeps: one config, a grid (or zip) of values for some of its keys, one results dir per point.

```toml
[sweep]
"rules.jokers" = [0, 1, 2, 3, 4]      # any config key (dotted, as for --set) -> its values
"seats.1.params.bluff" = [0.1, 0.5]   # (rules.jokers = [...] without quotes works too)
mode = "grid"                         # grid: every combination (default) | zip: i-th with i-th
```

Point ``i`` is the config with the point's values set, validated like a file,
run as a normal experiment into ``<out>/points/<i>/`` (every point with the same
master seed: common random numbers, so differences between points are not deal
luck).  ``<out>/sweep.json`` lists the points; ``sweep.parquet`` / ``sweep.csv``
hold one row per (point, agent): ``point``, a column per swept key (named by the
key), ``agent``, games, wins, shared_wins, win_rate, ci_low, ci_high, win_share,
mean_placement, mean_decisions, truncated (share of games cut at the game's limit);
``sweep_seats.csv`` one row per (point, seat); ``plots/sweep_<key>.png`` the win
rate against each swept key (one line per agent, 95% CI bands) and
``plots/sweep_seats_<key>.png`` per seat.  ``--resume`` skips finished points and
resumes the interrupted one; ``bluffsim report <out>`` rebuilds everything.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from bluffsim.tournament.config import ConfigError, Experiment, load_raw, parse_config
from bluffsim.tournament.overrides import apply_sets, set_key

log = logging.getLogger("bluffsim.tournament")

MODES = ("grid", "zip")
MAX_POINTS = 1000
# keys that do not change the games played, or that the sweep itself sets
NOT_SWEPT = {"experiment.name", "run.out", "run.plots", "run.batch", "run.workers", "run.executor",
             "run.address"}
SECTIONS = ("experiment.", "rules.", "seats.", "pool.", "run.")


@dataclass(frozen=True)
class Sweep:
    """A validated sweep: its keys, each point's values and each point's experiment."""

    keys: tuple[str, ...]
    values: tuple[tuple[Any, ...], ...]
    mode: str
    points: tuple[Experiment, ...]
    out: str = ""

    @property
    def name(self) -> str:
        """The experiment name (of the base config)."""
        return self.points[0].name

    @property
    def out_dir(self) -> Path:
        """Root of the sweep: ``run.out`` or ``results/<name>``."""
        return dataclasses.replace(self.points[0], out=self.out).out_dir

    def point_dir(self, i: int) -> Path:
        """Results dir of point ``i``."""
        return self.out_dir / "points" / str(i)

    def with_overrides(self, **overrides: Any) -> Sweep:
        """CLI overrides applied to every point (``out`` moves the sweep's root)."""
        out = overrides.pop("out", None)
        sw = dataclasses.replace(self, out=self.out if out is None else out)
        pts = tuple(p.with_overrides(**overrides) for p in self.points)
        return dataclasses.replace(sw, points=tuple(
            dataclasses.replace(p, out=str(sw.point_dir(i))) for i, p in enumerate(pts)))

    def point_values(self, i: int) -> dict[str, Any]:
        """``{key: value}`` of point ``i``."""
        return dict(zip(self.keys, self.values[i], strict=True))

    def identity(self) -> dict[str, Any]:
        """What ``--resume`` checks: keys, mode and every point's identity."""
        return {"keys": list(self.keys), "mode": self.mode,
                "points": [p.identity() for p in self.points]}

    def describe(self) -> str:
        """The resolved sweep as printed at the start of a run."""
        lines = [f"# sweep {self.name}: {len(self.points)} points ({self.mode} over "
                 f"{', '.join(self.keys)}), results in {self.out_dir}/"]
        lines += [f"#   point {i}: " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in
                                                 self.point_values(i).items())
                  for i in range(len(self.points))]
        return "\n".join(lines) + "\n" + self.points[0].to_toml()


def load_plan(path: str | Path, sets: Sequence[str] = ()) -> Experiment | Sweep:
    """Read a config file, apply ``--set`` overrides, and validate it as an experiment or a sweep."""
    return parse_plan(apply_sets(load_raw(path), sets), source=str(path))


def parse_plan(raw: dict[str, Any], source: str = "config") -> Experiment | Sweep:
    """An ``Experiment``, or a ``Sweep`` when ``raw`` has a ``[sweep]`` table (every point validated)."""
    if "sweep" not in raw:
        return parse_config(raw, source)
    base = copy.deepcopy(raw)
    table = base.pop("sweep")
    if not isinstance(table, dict) or not table:
        raise ConfigError(f"{source}: [sweep] must be a table of config keys -> lists of values, "
                          "e.g. \"rules.jokers\" = [0, 1, 2]")
    table = dict(table)
    mode = table.pop("mode", "grid")
    if mode not in MODES:
        raise ConfigError(f"sweep.mode = {mode!r} is invalid; allowed: {' | '.join(MODES)}")
    flat = _flatten(table)
    if not flat:
        raise ConfigError(f"{source}: [sweep] names no key to sweep")
    for key, vals in flat.items():
        if not key.startswith(SECTIONS):
            raise ConfigError(f"sweep key {key!r}: give a config key such as rules.jokers, "
                              "experiment.games or seats.1.params.bluff")
        if key in NOT_SWEPT:
            raise ConfigError(f"sweep key {key!r} cannot be swept (it does not change the games); "
                              f"not sweepable: {', '.join(sorted(NOT_SWEPT))}")
        if not isinstance(vals, list) or not vals:
            raise ConfigError(f"sweep {key!r} = {vals!r}: give a non-empty list of values")
    keys = tuple(flat)
    if mode == "zip":
        lengths = {k: len(v) for k, v in flat.items()}
        if len(set(lengths.values())) != 1:
            raise ConfigError(f"sweep mode = \"zip\" needs lists of one length; got {lengths}")
        combos = list(zip(*flat.values(), strict=True))
    else:
        combos = list(itertools.product(*flat.values()))
    if len(combos) > MAX_POINTS:
        raise ConfigError(f"the sweep has {len(combos):,} points (at most {MAX_POINTS:,})")
    points = []
    for i, combo in enumerate(combos):
        r = copy.deepcopy(base)
        where = ", ".join(f"{k} = {json.dumps(v)}" for k, v in zip(keys, combo, strict=True))
        for k, v in zip(keys, combo, strict=True):
            set_key(r, k, v, f"sweep {k}")
        try:
            points.append(parse_config(r, source))
        except ConfigError as e:
            raise ConfigError(f"sweep point {i} ({where}): {e}") from None
    sw = Sweep(keys=keys, values=tuple(tuple(c) for c in combos), mode=mode, points=tuple(points),
               out=points[0].out)
    return sw.with_overrides()


def _flatten(table: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"rules": {"jokers": [..]}}`` (TOML dotted keys) -> ``{"rules.jokers": [..]}``."""
    out: dict[str, Any] = {}
    for k, v in table.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, key + "."))
        else:
            out[key] = v
    return out


# ------------------------------------------------------------------ running
def run_sweep(sw: Sweep, resume: bool = False, progress: bool = True, force: bool = False,
              keep_shards: bool = False) -> pd.DataFrame:
    """Run every unfinished point, then build the sweep tables and plots; returns the table.

    ``resume`` finishes a sweep in the same dir (finished points are kept), ``force``
    replaces a previous sweep (only the files a sweep writes are deleted)."""
    from bluffsim.results import OutputError, check_not_in_use, output_lock

    root = sw.out_dir
    if root.exists() and not root.is_dir():
        raise OutputError(f"output dir {str(root)!r} is a file, not a directory; give a "
                          "directory (--out or run.out)")
    check_not_in_use(root)        # another sweep on this root: refused before anything changes
    _check_sweep_dir(sw, root, resume, force)
    with output_lock(root):
        _check_sweep_dir(sw, root, resume, force, clear=force)
        return _run_points(sw, root, resume, progress, keep_shards)


def _check_sweep_dir(sw: Sweep, root: Path, resume: bool, force: bool, clear: bool = False) -> None:
    """Refuse a root the sweep may not use; with ``clear``, empty a previous sweep's files."""
    from bluffsim.results import LOCK_FILE, OutputError

    marker = root / "sweep.json"
    if root.is_dir() and any(p.name != LOCK_FILE for p in root.iterdir()):
        if not marker.is_file():
            raise OutputError(f"output dir {str(root)!r} is not empty and holds no bluffsim sweep "
                              "(no sweep.json); choose another dir with --out")
        if force:
            if clear:
                clear_sweep(root)
        elif not resume:
            raise OutputError(f"output dir {str(root)!r} is not empty: it holds a previous sweep; "
                              "pass --resume to finish it, --force to replace it, or --out to "
                              "choose another dir")
        elif _read_identity(marker) != _jsonable(sw.identity()):
            raise OutputError(f"--resume: {str(root)!r} was made by a different sweep config; "
                              "pass --force to replace it")


def _run_points(sw: Sweep, root: Path, resume: bool, progress: bool,
                keep_shards: bool) -> pd.DataFrame:
    from bluffsim.results import OutputError, write_json
    from bluffsim.tournament.experiment import run_experiment

    marker = root / "sweep.json"
    try:
        root.mkdir(parents=True, exist_ok=True)
        write_json(marker, {"identity": sw.identity(), "name": sw.name, "keys": list(sw.keys),
                            "mode": sw.mode,
                            "points": [{"index": i, "values": sw.point_values(i),
                                        "dir": f"points/{i}"} for i in range(len(sw.points))]})
    except OSError as e:
        raise OutputError(f"cannot write to output dir {str(root)!r}: {e.strerror}") from None
    for i, exp in enumerate(sw.points):
        if point_finished(exp):
            log.info("sweep %s: point %d already finished", sw.name, i)
            continue
        if progress:
            print(f"# point {i} ({i + 1} of {len(sw.points)}): " + ", ".join(
                f"{k} = {json.dumps(v)}" for k, v in sw.point_values(i).items()), flush=True)
        run_experiment(exp, resume=resume, progress=progress, keep_shards=keep_shards)
    from bluffsim.analysis.sweeps import build_sweep_report

    return build_sweep_report(root, plots_too=sw.points[0].plots)


SWEEP_FILES = ("sweep.json", "sweep.parquet", "sweep.csv", "sweep_seats.csv")


def clear_sweep(root: Path) -> None:
    """Delete what a sweep wrote in ``root``: its tables, plots and point dirs (each point only
    through ``results.clear_run``, so nothing but bluffsim's own files goes)."""
    import shutil

    from bluffsim.results import clear_run

    for name in SWEEP_FILES:
        (root / name).unlink(missing_ok=True)
    shutil.rmtree(root / "plots", ignore_errors=True)
    points = root / "points"
    if points.is_dir():
        for d in points.iterdir():
            if d.is_dir() and (d / "config.json").is_file():
                clear_run(d)
                if not any(d.iterdir()):
                    d.rmdir()
        if not any(points.iterdir()):
            points.rmdir()


def point_finished(exp: Experiment) -> bool:
    """A point whose dir holds a whole run of this very config and its report."""
    from bluffsim.results import is_complete

    out = exp.out_dir
    try:
        saved = json.loads((out / "config.json").read_text())
    except (OSError, ValueError):
        return False
    return (is_complete(out) and (out / "summary.csv").is_file() and (out / "seats.csv").is_file()
            and saved.get("identity") == _jsonable(exp.identity()))


def _read_identity(marker: Path) -> Any:
    try:
        data = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None   # unreadable: not this sweep (--resume then asks for --force)
    return data.get("identity") if isinstance(data, dict) else None


def _jsonable(d: Any) -> Any:
    return json.loads(json.dumps(d, default=str))


# ------------------------------------------------------------------ a sweep dir
def is_sweep_dir(path: str | Path) -> bool:
    """True for a dir written by a sweep (it holds ``sweep.json``)."""
    return (Path(path) / "sweep.json").is_file()
