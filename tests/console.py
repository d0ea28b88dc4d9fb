"""The ``bluffsim`` command run in this process, as its console script runs it."""

from __future__ import annotations

import pytest

from bluffsim.cli import main


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
