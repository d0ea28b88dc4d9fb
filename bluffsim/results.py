"""Results on disk: atomic shard files, resume, the streamed merge, reading results back.

Below both the runner (``bluffsim.tournament``) and the analysis (``bluffsim.analysis``): it
imports neither.  What needs an ``Experiment`` (preparing a run's dir, checking a resume's
config, the manifest) is ``bluffsim.tournament.output``'s.

Layout of an output dir::

    config.json            resolved experiment (what `--resume` checks)
    manifest.json          version, git hash, config, seeds, timing (written once merged)
    shards/games-00003.parquet, shards/rounds-00003.parquet   (removed after the merge
                           unless --keep-shards)
    games.parquet          one row per game and seat
    rounds.parquet         one row per round
    summary.csv, head_to_head.csv, head_to_head_ci.csv, ratings.csv, bluff.csv,
    seats.csv, lengths.csv, placements.csv, lineups.csv (pools),
    behaviour.csv, calibration.csv (a replay of a sample of the games)
    plots/*.png
    run.log
    .bluffsim.lock         held while a run uses the dir (removed when it ends)
    llm_calls.parquet, transcripts/<game>.jsonl   runs with text agents (shards/llm_calls-*
                           merged like the others; a game's transcript written with its shard)
    .llm_budget.sqlite     the llm seats' call counter of the current invocation

A run holds an exclusive ``fcntl.flock`` lock on ``.bluffsim.lock`` from before it
touches the dir until it ends (``output_lock``): a second run on the same dir, with
or without ``--resume``/``--force``, stops with one line before it changes anything.
The kernel drops the lock when the process dies, so a killed run never blocks its
``--resume``.

A shard is written to a temporary name and renamed into place (rounds first,
games last), so a shard's ``games`` file exists only once the shard is whole:
an interrupted run leaves finished shards valid and ``--resume`` redoes only
the missing ones; temporaries a killed run left behind are deleted when the dir
is prepared again.  The merge streams shard after shard through a
``pyarrow.parquet.ParquetWriter``, so its memory does not grow with the number
of games.  Every file is created with the permissions the umask allows (as
``open`` would), not ``mkstemp``'s private 0600.

A write that fails (a full disk, a quota, a file size limit such as ``ulimit -f``) leaves
no partial file under a final name; ``write_failure`` words the cause for the one-line
error the runner gives (what is kept and how ``--resume`` finishes).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from bluffsim.api import BluffsimError


class OutputError(BluffsimError, OSError):
    """The output dir cannot be used (exists without --resume, other config, unwritable)."""


class ResultsError(BluffsimError, OSError):
    """A results file is missing or unreadable; the message names it."""


# what a run writes (and what --force or a rerun over a failed run removes); nothing else is
# ever deleted
RUN_FILES = ("config.json", "manifest.json", "games.parquet", "rounds.parquet", "summary.csv",
             "head_to_head.csv", "ratings.csv", "bluff.csv", "run.log",
             # the seat-effect and game-shape tables (bluffsim.analysis.report.report_tables)
             "seats.csv", "lengths.csv", "head_to_head_ci.csv", "placements.csv", "lineups.csv")
RUN_FILES += ("llm_calls.parquet", ".llm_budget.sqlite")   # runs with text agents
RUN_FILES += ("behaviour.csv", "calibration.csv")   # bluffsim.analysis.behaviour
RUN_FILES += ("alpharank.csv",)   # bluffsim.analysis.report.report_tables (α-Rank)
RUN_DIRS = ("shards", "plots", "transcripts")
LOCK_FILE = ".bluffsim.lock"
SHARD_RE = re.compile(r"games-(\d+)\.parquet")


# errno -> what it means for a run's writes (pyarrow's messages name only the system call)
FULL_DISK_ERRNOS = {errno.ENOSPC: "no space left on the device",
                    errno.EFBIG: "a file reached the file size limit (ulimit -f)",
                    getattr(errno, "EDQUOT", errno.ENOSPC): "the disk quota is exceeded"}


def write_failure(e: OSError) -> str:
    """The cause of a failed write in a few words: a full disk, a quota or a file size limit by
    name, else the system's message."""
    if e.errno in FULL_DISK_ERRNOS:
        return FULL_DISK_ERRNOS[e.errno]
    first = str(e.strerror or e).strip().splitlines()
    return first[0] if first else type(e).__name__


def shard_paths(out: Path, shard: int) -> tuple[Path, Path]:
    """(games, rounds) parquet paths of a shard."""
    return (out / "shards" / f"games-{shard:05d}.parquet",
            out / "shards" / f"rounds-{shard:05d}.parquet")


def is_complete(out: Path) -> bool:
    """The run in ``out`` was merged (its manifest is written after the merge)."""
    return (out / "manifest.json").is_file() and (out / "games.parquet").is_file()


def has_results(out: Path) -> bool:
    """``out`` holds something a rerun would lose: a finished shard or merged tables."""
    shards = out / "shards"
    return (out / "games.parquet").exists() or (out / "manifest.json").exists() or (
        shards.is_dir() and any(SHARD_RE.fullmatch(p.name) for p in shards.iterdir()))


# dirs this process holds the lock of -> (lock file descriptor, nesting depth)
_HELD: dict[Path, list[int]] = {}


def _in_use(out: Path) -> OutputError:
    pid = ""
    with contextlib.suppress(OSError, ValueError):
        pid = f" (pid {int((out / LOCK_FILE).read_text().strip())})"
    return OutputError(f"output dir {str(out)!r} is in use by another bluffsim run{pid}; wait "
                       "for it to end, or choose another dir with --out")


def check_not_in_use(out: Path) -> None:
    """Raise ``OutputError`` if another run holds ``out``'s lock (creates nothing)."""
    if out.resolve() in _HELD:
        return
    try:
        fd = os.open(out / LOCK_FILE, os.O_RDONLY)
    except OSError:   # no lock file (or no dir): nobody is using it
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise _in_use(out) from None
    finally:
        os.close(fd)


@contextlib.contextmanager
def output_lock(out: Path) -> Iterator[Path]:
    """Hold the exclusive lock of output dir ``out`` (created if missing) for the ``with`` body.

    Refuses with ``OutputError`` if another run holds it.  Re-entrant within a process.  The
    lock file is removed at the end; a lock taken on a file that another run removed meanwhile
    is dropped and taken again on the new file.
    """
    key = out.resolve()
    if key in _HELD:
        _HELD[key][1] += 1
        try:
            yield out
        finally:
            _HELD[key][1] -= 1
        return
    if out.exists() and not out.is_dir():
        raise OutputError(f"output dir {str(out)!r} is a file, not a directory; give a "
                          "directory (--out or run.out)")
    path = out / LOCK_FILE
    try:
        out.mkdir(parents=True, exist_ok=True)
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise _in_use(out) from None
            try:
                same = os.fstat(fd).st_ino == os.stat(path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)    # the previous holder removed it after we opened it: retry
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
    except OSError as e:
        if isinstance(e, BluffsimError):
            raise
        raise OutputError(f"cannot write to output dir {str(out)!r}: "
                          f"{e.strerror or e}") from None
    _HELD[key] = [fd, 1]
    try:
        yield out
    finally:
        del _HELD[key]
        with contextlib.suppress(OSError):
            path.unlink()        # while still locked: a waiting run then makes a new file
        os.close(fd)


def clear_run(out: Path) -> None:
    """Delete what a bluffsim run wrote in ``out`` (only its own file names)."""
    for name in RUN_FILES:
        (out / name).unlink(missing_ok=True)
    for name in RUN_DIRS:
        shutil.rmtree(out / name, ignore_errors=True)
    remove_temporaries(out)


def remove_temporaries(out: Path) -> None:
    """Delete the ``.<name>.*.tmp`` files a killed run left in ``out`` and ``out/shards``."""
    for d in (out, out / "shards"):
        if d.is_dir():
            for p in d.glob(".*.tmp"):
                p.unlink(missing_ok=True)


def done_shards(out: Path, num_shards: int) -> set[int]:
    """Shards whose files are complete (one directory listing, not one stat per shard)."""
    shards = out / "shards"
    if not shards.is_dir():
        return set()
    found = (SHARD_RE.fullmatch(p.name) for p in shards.iterdir())
    return {int(m.group(1)) for m in found if m and int(m.group(1)) < num_shards}


def write_shard(out: Path, shard: int, games: pd.DataFrame, rounds: pd.DataFrame,
                records: dict[str, Any] | None = None) -> None:
    """Write a shard atomically (text records, then rounds; the games file marks completion)."""
    if records is not None:
        write_text_records(out, shard, records)
    g, r = shard_paths(out, shard)
    write_table(rounds, r)
    write_table(games, g)


def merge_shards(out: Path, num_shards: int) -> tuple[int, int]:
    """Stream all shards into ``games.parquet`` and ``rounds.parquet``; returns their row counts.

    One shard is in memory at a time (``ParquetWriter``), so peak memory is that of
    the largest shard whatever the number of games.
    """
    counts = []
    for kind, name in ((1, "rounds.parquet"), (0, "games.parquet")):
        counts.append(_stream_concat([shard_paths(out, s)[kind] for s in range(num_shards)],
                                     out / name))
    calls = [p for s in range(num_shards) if (p := calls_path(out, s)).is_file()]
    if calls:
        _stream_concat(calls, out / "llm_calls.parquet")
    return counts[1], counts[0]


def calls_path(out: Path, shard: int) -> Path:
    """The text agents' call table of a shard."""
    return out / "shards" / f"llm_calls-{shard:05d}.parquet"


def write_text_records(out: Path, shard: int, records: dict[str, Any]) -> None:
    """A shard's text records: ``transcripts/<game>.jsonl`` per game and the shard's call table."""
    write_transcripts(out / "transcripts", records["transcripts"])
    write_table(records["calls"], calls_path(out, shard))


def write_transcripts(folder: Path, transcripts: dict[int, list[dict[str, Any]]]) -> None:
    """``<folder>/<game>.jsonl`` per game, each written atomically (a redone shard or table
    rewrites its games' files)."""
    folder.mkdir(parents=True, exist_ok=True)
    for game, lines in transcripts.items():
        text = "".join(json.dumps(line, ensure_ascii=False, default=str) + "\n" for line in lines)
        _atomic_write(folder / f"{int(game):06d}.jsonl", text.encode())



def remove_shards(out: Path) -> None:
    """Delete ``shards/`` once the merged tables are written."""
    shutil.rmtree(out / "shards", ignore_errors=True)


def _stream_concat(parts: list[Path], dest: Path) -> int:
    """Concatenate parquet files into ``dest`` atomically, one file in memory at a time."""
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".tmp")
    os.close(fd)
    writer: pq.ParquetWriter | None = None
    rows = 0
    try:
        for part in parts:
            table = pq.read_table(part)
            if table.num_columns == 0:       # a shard without rounds
                continue
            if writer is None:
                writer = pq.ParquetWriter(tmp, table.schema)
            elif not table.schema.equals(writer.schema, check_metadata=False):
                table = table.cast(writer.schema)
            writer.write_table(table)
            rows += table.num_rows
        if writer is None:
            pq.write_table(pa.table({}), tmp)
        else:
            writer.close()
            writer = None
        _publish(tmp, dest)
    finally:
        if writer is not None:           # a failed write: closing may fail the same way
            with contextlib.suppress(OSError, pa.ArrowException):
                writer.close()
        if os.path.exists(tmp):
            os.unlink(tmp)
    return rows


def read_table(path: Path, columns: list[str] | None = None) -> pd.DataFrame:
    """A results parquet file as a DataFrame; a missing or corrupt file is a ``ResultsError``."""
    _check_readable(path)
    try:
        return pd.read_parquet(path, columns=columns)
    except (OSError, pa.ArrowException) as e:
        raise ResultsError(_unreadable(path, e)) from None


def table_digest(df: pd.DataFrame) -> str:
    """SHA-256 of a table's content: column names, dtypes and values (numbers as their bytes,
    text as UTF-8), in row order; independent of the parquet writer and the pandas version."""
    h = hashlib.sha256()
    for name in df.columns:
        col = df[name]
        h.update(f"{name}:{col.dtype}\x1e".encode())
        if pd.api.types.is_numeric_dtype(col.dtype) or pd.api.types.is_bool_dtype(col.dtype):
            h.update(np.ascontiguousarray(col.to_numpy()).tobytes())
        else:
            h.update("\x1f".join("\x00" if pd.isna(v) else str(v) for v in col).encode())
        h.update(b"\x1d")
    return h.hexdigest()


def results_digest(out: Path) -> dict[str, str]:
    """``{"games": sha256, "rounds": sha256}`` of a finished run's merged tables (``table_digest``):
    two runs played the same games exactly when their digests are equal."""
    return {t: table_digest(read_table(Path(out) / f"{t}.parquet")) for t in ("games", "rounds")}


def iter_chunks(path: Path, columns: list[str] | None = None, rows: int = 1 << 20,
                whole_games: bool = True) -> Iterator[pd.DataFrame]:
    """A results parquet file in chunks of about ``rows`` rows (only ``columns``).

    With ``whole_games`` the rows of the chunk's last game are carried to the next
    chunk, so no game is split (the file is in game order, as the merge writes it).
    """
    _check_readable(path)
    try:
        pf = pq.ParquetFile(path)
        names = pf.schema_arrow.names
        cols = None if columns is None else [c for c in columns if c in names]
        carry: pd.DataFrame | None = None
        for batch in pf.iter_batches(batch_size=rows, columns=cols):
            df = batch.to_pandas()
            if carry is not None and len(carry):
                df = pd.concat([carry, df], ignore_index=True)
            if not whole_games or df.empty:
                yield df
                continue
            game = df["game"].to_numpy()
            cut = int(np.argmax(game == game[-1]))
            carry = df.iloc[cut:]
            if cut:
                yield df.iloc[:cut]
        if carry is not None and len(carry):
            yield carry
    except (OSError, pa.ArrowException) as e:
        raise ResultsError(_unreadable(path, e)) from None


def _check_readable(path: Path) -> None:
    if not path.is_file():
        raise ResultsError(f"{str(path)!r} is missing; rerun the experiment with --force to "
                           "rebuild it (--resume only rebuilds the report of a complete run)")


def run_game(out: Path) -> str:
    """The game id of the run in ``out``, from its ``config.json`` (else ``manifest.json``): the
    report reads it, never guesses it from the tables' columns.  ``ResultsError`` names the file
    when neither holds it."""
    for name in ("config.json", "manifest.json"):
        try:
            game = json.loads((Path(out) / name).read_text(encoding="utf-8"))["config"]["game"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if isinstance(game, str):
            return game
    raise ResultsError(f"cannot read the game id from {str(Path(out) / 'config.json')!r} (nor "
                       "manifest.json): not a bluffsim results dir, or a corrupt one")


def _unreadable(path: Path, e: Exception) -> str:
    first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    return (f"cannot read {str(path)!r} ({first}); the file is corrupt or not parquet: rerun "
            "the experiment with --force")


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


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _publish(tmp: str, path: Path) -> None:
    """Give ``tmp`` the permissions the umask allows (mkstemp made it 0600) and move it."""
    os.chmod(tmp, 0o666 & ~_umask())
    os.replace(tmp, path)


def write_table(df: pd.DataFrame, path: Path) -> None:
    """``df`` as the parquet file ``path``, written atomically."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        df.to_parquet(tmp, index=False)
        _publish(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _atomic_write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        _publish(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _jsonable(d: Any) -> Any:
    return json.loads(json.dumps(d, default=str))
