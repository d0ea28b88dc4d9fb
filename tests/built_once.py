"""Expensive fixtures built once per test session, not once per xdist worker."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str,
               build: Callable[[Path], Any]) -> tuple[Path, Any]:
    """``(directory, build(directory))``, built once per test session: each xdist worker calls
    this, the first builds under a lock and the others wait and reuse its directory and its
    result (which must be JSON).  For expensive fixtures whose tests only read (the evaluate
    runs); the pattern of pytest-xdist's docs ("Making session-scoped fixtures execute only
    once"), with ``fcntl.flock`` for the lock."""
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    where, result = root / name, root / f"{name}.json"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not result.exists():   # not built, or a build that failed: (re)build from scratch
            shutil.rmtree(where, ignore_errors=True)
            where.mkdir()
            partial = result.with_suffix(".partial")
            partial.write_text(json.dumps(build(where)))
            os.replace(partial, result)
    return where, json.loads(result.read_text())
