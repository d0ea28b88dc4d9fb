"""Cached kernels compiled from older sources of the functions they call are deleted.

numba keys a cached kernel on its own file only, not on the files of the kernels it calls
(``fmath``, ``rng_nb``, ``games.drivers``, ``agents.fused``, a game's rules, a game's
observation spec, from which its observation kernels are generated): after an update that
changes only those, it would load machine code built from the old sources.
``clear_stale_caches`` (run when ``bluffsim`` is imported) guards against that: it keeps a
digest of every numba source file of ``bluffsim/`` and ``agents/`` (and ``tests/``, in a
checkout) next to the caches and, when the digest changes, deletes the cached kernels so that
they compile again.  Reading the sources takes a few milliseconds.

``lock_cache_index`` (also run at import) makes numba's cache safe for processes that compile
different signatures of one function at the same time, as a pool playing tables of several
player counts does: numba reads a function's cache index, picks the first free data-file name
and writes both, unlocked, so two processes can both pick ``….1.nbc`` and one then loads the
other's machine code for its own types (numba/numba#4807, #10128).  Each index's reads and
writes now take an exclusive ``flock`` on a lock file beside it.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

# the packages whose numba kernels the digest covers (``tests``: the test-suite game, in a checkout)
PACKAGES = ("bluffsim", "agents", "tests")
STAMP = "kernel_sources.sha256"


def sources_digest(roots: Iterable[Path]) -> str:
    """sha256 of every ``.py`` file under ``roots`` that uses numba or declares an observation
    spec (the compiled observation kernels are generated from it: ``games.obscompile``), path
    and contents (the committed ``kernels_generated.py`` files included)."""
    h = hashlib.sha256()
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            text = path.read_bytes()
            if b"njit" in text or b"ObservationSpec" in text:
                h.update(str(path.relative_to(root.parent)).encode() + b"\0" + text)
    return h.hexdigest()


def clear_stale_caches(roots: Iterable[Path] | None = None,
                       cache_dir: Path | None = None) -> bool:
    """Delete the cached kernels (``*.nbi``, ``*.nbc`` under ``roots``, or under ``cache_dir``,
    default ``NUMBA_CACHE_DIR``) when the numba sources changed since the digest stored there;
    returns whether it did.  An unwritable install is left alone."""
    if roots is None:
        here = Path(__file__).resolve().parent.parent
        roots = [here / p for p in PACKAGES if (here / p).is_dir()]
    roots = list(roots)
    if cache_dir is None and os.environ.get("NUMBA_CACHE_DIR"):
        cache_dir = Path(os.environ["NUMBA_CACHE_DIR"])
    stamp = (cache_dir or roots[0] / "__pycache__") / STAMP
    digest = sources_digest(roots)
    try:
        if stamp.is_file() and stamp.read_text() == digest:
            return False
        for where in [cache_dir] if cache_dir is not None else roots:
            for old in [*where.rglob("*.nbi"), *where.rglob("*.nbc")]:
                old.unlink(missing_ok=True)
        stamp.parent.mkdir(parents=True, exist_ok=True)
        tmp = stamp.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(digest)
        tmp.replace(stamp)
    except OSError:  # a read-only install: numba's own checks are all there is
        return False
    return True


@contextmanager
def index_lock(index_path: str) -> Iterator[None]:
    """An exclusive ``flock`` on ``<index_path>.lock`` while the block runs (none where the
    platform or the directory does not allow one)."""
    try:
        import fcntl

        f = open(index_path + ".lock", "a")  # noqa: SIM115  (closed below)
    except (ImportError, OSError):
        yield
        return
    with f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX)
        except OSError:  # a file system without flock: unlocked, as numba itself
            yield
            return
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _locked(method: Callable[..., Any]) -> Callable[..., Any]:
    def run(self: Any, *args: Any) -> Any:
        with index_lock(self._index_path):
            return method(self, *args)

    run.__wrapped__ = method  # type: ignore[attr-defined]
    return run


def lock_cache_index() -> None:
    """Make numba's ``IndexDataCacheFile.save`` and ``load`` hold ``index_lock`` (module
    docstring); idempotent."""
    from numba.core.caching import IndexDataCacheFile

    for name in ("save", "load"):
        method = getattr(IndexDataCacheFile, name)
        if not hasattr(method, "__wrapped__"):
            setattr(IndexDataCacheFile, name, _locked(method))
