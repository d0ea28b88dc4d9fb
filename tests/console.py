"""The ``bluffsim`` command run in this process, as its console script runs it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bluffsim.cli import main

ROOT = Path(__file__).resolve().parents[1]


def bluffsim_here(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """``bluffsim ARGS`` through the console script's ``main`` in this process: ``(exit status,
    stderr)``.  For the many one-line-error cases of a command; each such test also runs one case
    as a real process (``python -m bluffsim.cli``), which checks what only a process shows."""
    capsys.readouterr()
    try:
        code = main(args)
    except SystemExit as stop:   # argparse's own errors exit
        code = stop.code if isinstance(stop.code, int) else 1
    return code, capsys.readouterr().err


def run_in_root(args: list[str]) -> int:
    """``bluffsim ARGS`` in this process from the repository root (where ``experiments.*``
    agents import): its exit status."""
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        return main(args)
    finally:
        os.chdir(cwd)
