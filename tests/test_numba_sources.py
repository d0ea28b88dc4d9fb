"""numba's cache knows only a kernel's own file: ``numba_sources.clear_stale_caches`` deletes the
cached kernels when any numba source changed, so an update that edits only a callee
(``fmath``, ``games.drivers``, ``agents.fused``) never runs machine code of the old sources."""

from __future__ import annotations

from pathlib import Path

from bluffsim.numba_sources import STAMP, clear_stale_caches


def tree(tmp: Path) -> tuple[Path, Path, Path]:
    pkg = tmp / "pkg"
    (pkg / "__pycache__").mkdir(parents=True)
    callee = pkg / "callee.py"
    callee.write_text("from numba import njit\n\n@njit(cache=True)\ndef f(x):\n    return x + 1\n")
    (pkg / "plain.py").write_text("X = 1\n")
    cached = pkg / "__pycache__" / "caller.g-3.py311.nbi"
    cached.write_bytes(b"index")
    return pkg, callee, cached


def test_a_changed_callee_deletes_the_cached_kernels_once(tmp_path):
    pkg, callee, cached = tree(tmp_path)
    assert clear_stale_caches([pkg])  # no digest yet: a first run clears
    assert not cached.exists() and (pkg / "__pycache__" / STAMP).is_file()
    cached.write_bytes(b"index")
    assert not clear_stale_caches([pkg]) and cached.exists()  # nothing changed: kept
    (pkg / "plain.py").write_text("X = 2\n")  # no numba in it: kept
    assert not clear_stale_caches([pkg]) and cached.exists()
    callee.write_text(callee.read_text().replace("x + 1", "x + 2"))
    assert clear_stale_caches([pkg]) and not cached.exists()


def test_numba_cache_dir_holds_the_digest_and_the_caches(tmp_path):
    pkg, callee, cached = tree(tmp_path)
    elsewhere = tmp_path / "numba_cache" / "pkg"
    elsewhere.mkdir(parents=True)
    remote = elsewhere / "caller.g-3.py311.1.nbc"
    remote.write_bytes(b"code")
    assert clear_stale_caches([pkg], tmp_path / "numba_cache")
    assert not remote.exists() and cached.exists()  # only the cache dir is numba's
    assert (tmp_path / "numba_cache" / STAMP).is_file()
