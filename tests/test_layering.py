"""Layering (issue 14 point 6): playing never imports plotting; reports are built by ``analysis``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def modules_after(statement: str) -> set[str]:
    """The ``sys.modules`` names after running ``statement`` in a fresh interpreter."""
    code = f"import sys\n{statement}\nprint('\\n'.join(sys.modules))"
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          cwd=ROOT, check=True, timeout=120)
    return set(done.stdout.split())


def test_importing_the_runner_does_not_import_matplotlib() -> None:
    """``bluffsim.tournament.runner`` (and the tournament package) load without matplotlib."""
    mods = modules_after("import bluffsim.tournament.runner\nimport bluffsim.tournament")
    assert "bluffsim.tournament.runner" in mods
    assert not {m for m in mods if m.split(".")[0] == "matplotlib"}
    assert "bluffsim.analysis.plots" not in mods


def test_the_report_is_built_by_analysis() -> None:
    """``build_report`` is ``bluffsim.analysis.report``'s (the tournament re-exports it)."""
    from bluffsim.analysis import report
    from bluffsim.tournament import build_report
    from bluffsim.tournament.experiment import report_tables

    assert build_report is report.build_report
    assert report_tables is report.report_tables
